"""daphne on uvloop's event loop: `python -m config.serve` takes daphne's own arguments
(`-b 127.0.0.1 -p 8000 config.asgi:application`) and runs daphne's command line.

daphne runs Twisted on an asyncio loop that it makes when `daphne.server` is first imported,
before any code of ours: so the loop's kind is chosen here, first. uvloop's loop (libuv, in C)
does what asyncio's pure-Python loop does on every turn — selecting, timers, the ready queue,
futures and the socket transports of the channel layer's Redis connections — for less CPU per
move (bench/live.py at 1,000 games; docs/benchmarks.md). Twisted's reactor, daphne and Channels use only what both loops offer.

`DAPHNE_UVLOOP=0` keeps asyncio's own loop; so does a platform without uvloop (a line says so).
"""

from __future__ import annotations

import asyncio
import os
import sys


def choose_loop() -> str:
    """Make new event loops uvloop's unless told not to; the kind chosen."""
    if os.environ.get("DAPHNE_UVLOOP", "1") == "0":
        return "asyncio"
    try:
        import uvloop
    except ImportError:
        print(
            "config.serve: uvloop is not installed, daphne runs on asyncio's loop", file=sys.stderr
        )
        return "asyncio"
    asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())
    return "uvloop"


def main() -> int:
    choose_loop()
    from daphne.cli import CommandLineInterface  # imports daphne.server: makes its loop

    sys.argv[0] = "daphne"
    CommandLineInterface.entrypoint()
    return 0


if __name__ == "__main__":
    sys.exit(main())
