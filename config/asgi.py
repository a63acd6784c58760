"""ASGI entry point, served by daphne: HTTP through Django, websockets through Channels."""

from __future__ import annotations

import gc
import os
import sys

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

from django.core.asgi import get_asgi_application  # noqa: E402

django_asgi_app = get_asgi_application()

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from django.conf import settings  # noqa: E402

from config.routing import websocket_urlpatterns  # noqa: E402
from live.auth import SocketAuthMiddleware  # noqa: E402
from live.sockets import SameOriginValidator  # noqa: E402

application = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        # The full origin (scheme, host and port), not only the host: another port or scheme on
        # the same host is another site (live/sockets.py, SameOriginValidator).
        # The socket's user from its session cookie, once at the handshake (live/auth.py).
        "websocket": SameOriginValidator(SocketAuthMiddleware(URLRouter(websocket_urlpatterns))),
    }
)


# Everything loaded so far (Django, the apps, the URL and template machinery) lives as long as
# the process: moved out of the collector's sight, a full collection no longer walks it. On a
# busy server those walks were pauses of 100-160 ms (bench/live.py) on every socket at once.
gc.freeze()


# The socket threads (live.sockets) give up the GIL at every database round trip and must win it
# back from the event loop, which keeps it up to the switch interval (5 ms by default) while it
# frames and forwards messages: with four round trips per move, a busy process made each move wait
# for the GIL several times over (bench/live.py, 1,250 games). A shorter interval hands it back
# sooner; ASGI_SWITCH_INTERVAL_MS sets it (0 keeps Python's default).
_switch_ms = settings.ASGI_SWITCH_INTERVAL_MS
if _switch_ms > 0:
    sys.setswitchinterval(_switch_ms / 1000)
