"""Hostile values for form fields and hostile frames for sockets, drawn from a seeded random
generator (a run can be repeated with `--seed`)."""

from __future__ import annotations

import json
import random
from datetime import datetime, timedelta

CONTROL = [chr(c) for c in (*range(0x00, 0x20), 0x7F, *range(0x80, 0xA0))]
BIDI = ["\u202a", "\u202b", "\u202c", "\u202d", "\u202e", "\u2066", "\u2067", "\u2068", "\u2069"]
INVISIBLE = [
    "\u200b",
    "\u200c",
    "\u200d",
    "\u200e",
    "\u200f",
    "\ufeff",
    "\u2028",
    "\u2029",
    "\u00ad",
]
ODD_DIGITS = ["²", "³", "①", "②", "٣", "٢", "۵", "१", "𝟙", "１", "Ⅻ", "½"]
SCRIPTS = [
    "àèéìòù",
    "ÆØÅßþ",
    "ελληνικά",
    "кириллица",
    "עברית",
    "العربية",
    "中文字符",
    "日本語かな",
    "한국어",
    "🏆♞♛🎲",
    "e\u0301\u0302\u0303\u0304",  # combining marks
    "ｆｕｌｌｗｉｄｔｈ",
    "İıſK",  # case folding traps (dotted I, dotless i, long s, Kelvin sign)
]
ZONES = [
    "America",
    "Europe",
    "Etc",
    "Etc/",
    "Europe/",
    "Etc/GMT+12",
    "Etc/GMT-14",
    "Pacific/Kiritimati",
    "Pacific/Pago_Pago",
    "UTC",
    "Europe/Rome",
    "",
    " ",
    "x" * 300,
    "Europe/" + "x" * 300,
    "../../../../etc/passwd",
    "/etc/localtime",
    "Europe/Rome\x00",
    "Europe/Rome/..",
    ".",
    "..",
    "posixrules",
    "localtime",
    "Factory",
    "EST5EDT",
    "zone.tab",
    "tzdata.zi",
    "leapseconds",
    "Europe\\Rome",
    "europe/rome",
    "Europe/Rome ",
    "+01:00",
    "GMT+1",
]
NUMBERS = [
    "-1",
    "0",
    "-0",
    "1",
    "3",
    "4",
    "199",
    "200",
    "201",
    "2147483648",
    "9223372036854775808",
    "-9223372036854775809",
    "9" * 40,
    "1e309",
    "-1e309",
    "1e-309",
    "NaN",
    "nan",
    "inf",
    "-Infinity",
    "1.5",
    "0x10",
    "0b1",
    "1_000",
    " 7 ",
    "7\x00",
    "٣",
    "²",
    "１６",
    "16 16",
    "+16",
    "--16",
]
DATES = [
    "9999-12-31T23:59",
    "0001-01-01T00:00",
    "2026-02-30T10:00",
    "2026-13-01T10:00",
    "2026-00-00T00:00",
    "2026-01-01T24:00",
    "2026-01-01T23:60",
    "2026-01-01T10:00:61",
    "1970-01-01T00:00",
    "2038-01-19T03:14:08",
    "10000-01-01T00:00",
    "2026-1-1T1:1",
    "2026-01-01 10:00",
    "2026-01-01T10:00Z",
    "2026-01-01T10:00+02:00",
    "tomorrow",
    "²⁰²⁶-01-01T10:00",
]
NEXTS = [
    "https://evil.example/",
    "//evil.example/",
    "/\\evil.example/",
    "\\\\evil.example",
    "http://127.0.0.1:9999/",
    "https:evil.example",
    "http:/evil.example",
    "javascript:alert(1)",
    "data:text/html,<script>alert(1)</script>",
    " https://evil.example/",
    "\thttps://evil.example/",
    "/%2F%2Fevil.example",
    "/play/",
    "/",
    "",
    "\x00",
    "https://evil.example\\@127.0.0.1/",
    "https://127.0.0.1@evil.example/",
]


def text(rng: random.Random, *, max_len: int = 40) -> str:
    """A string mixing every kind of character that hurts: control characters (NUL
    included), bidi overrides, invisible ones, other scripts, odd digits, lone surrogates."""
    pieces = []
    for _ in range(rng.randint(0, max_len)):
        kind = rng.random()
        if kind < 0.35:
            pieces.append(chr(rng.randint(0x20, 0x7E)))
        elif kind < 0.5:
            pieces.append(rng.choice(CONTROL))
        elif kind < 0.6:
            pieces.append(rng.choice(BIDI))
        elif kind < 0.67:
            pieces.append(rng.choice(INVISIBLE))
        elif kind < 0.8:
            pieces.append(rng.choice(rng.choice(SCRIPTS)))
        elif kind < 0.87:
            pieces.append(rng.choice(ODD_DIGITS))
        elif kind < 0.9:
            pieces.append(chr(rng.randint(0xD800, 0xDFFF)))  # a lone surrogate: invalid UTF-8
        else:
            pieces.append(chr(rng.randint(0xA0, 0x10FFFF)))
    return "".join(pieces)


def encode_text(value: str) -> bytes:
    """UTF-8, lone surrogates kept as the invalid bytes they make."""
    return value.encode("utf-8", "surrogatepass")


def huge(rng: random.Random) -> str:
    """From 300 characters up to about 1 MB."""
    size = rng.choice([300, 301, 1000, 5000, 65_536, 200_000, 1_000_000])
    unit = rng.choice(["x", "é", "\u202e", "\x01", "🏆", "a\nb", "ab"])
    return (unit * (size // len(unit) + 1))[:size]


def value(rng: random.Random, field: str = "") -> str | bytes:
    """One hostile value, somewhat aimed at what the field is."""
    roll = rng.random()
    if roll < 0.03:
        return huge(rng)
    if roll < 0.06:
        return bytes(rng.randint(0, 255) for _ in range(rng.randint(1, 24)))  # not UTF-8
    if field == "timezone" and roll < 0.7:
        return rng.choice(ZONES)
    if field in ("starts_at",) and roll < 0.6:
        return rng.choice(DATES)
    if field == "next" and roll < 0.8:
        return rng.choice(NEXTS)
    if roll < 0.4:
        return rng.choice(NUMBERS)
    if roll < 0.5:
        return rng.choice(ZONES + DATES)
    if roll < 0.55:
        return rng.choice(["on", "off", "true", "false", "", "None", "null", "[]", "{}"])
    return text(rng)


def mutate(
    rng: random.Random, base: list[tuple[str, str]], *, extra_fields: tuple[str, ...] = ()
) -> tuple[list[tuple[str, str | bytes]], str, str]:
    """A form submission from a valid one: a few fields hostile, some missing or repeated.
    Returns the fields, the names of those changed and what was changed (for the report)."""
    fields: list[tuple[str, str | bytes]] = list(base)
    names = [k for k, _ in base] + list(extra_fields)
    changed = []
    for _ in range(rng.choice([1, 1, 1, 2, 3])):
        name = rng.choice(names)
        action = rng.random()
        if action < 0.75:
            new = value(rng, name)
            fields = [(k, v) for k, v in fields if k != name] + [(name, new)]
            changed.append((name, new))
        elif action < 0.9:
            fields = [(k, v) for k, v in fields if k != name]
            changed.append((name, "<missing>"))
        else:
            again = value(rng, name)
            fields.append((name, again))  # the field twice
            changed.append((f"{name} (twice)", again))
    if rng.random() < 0.03:
        junk = text(rng, max_len=12) or "x"
        fields.append((junk, value(rng)))
        changed.append(("<unknown field>", junk))
    names = ", ".join(dict.fromkeys(name for name, _ in changed))
    return fields, names, describe(changed)


def describe(changed: list[tuple[str, str | bytes]]) -> str:
    parts = []
    for name, new in changed:
        shown = repr(new)
        if len(shown) > 60:
            shown = shown[:40] + f"…(len {len(new)})"
        parts.append(f"{name}={shown}")
    return ", ".join(parts)


def start_at(zone_hours: int = 0, days: int = 2) -> str:
    """A start time the forms accept (RULES 4.1: 5 minutes to 14 days ahead)."""
    return (datetime.now() + timedelta(days=days, hours=zone_hours)).strftime("%Y-%m-%dT%H:%M")


# --- socket frames ------------------------------------------------------------------------------

BAD_PLIES = [
    "0",
    0.0,
    1.5,
    True,
    False,
    None,
    [],
    {},
    [0],
    -1,
    10**30,
    -(10**30),
    2**63,
    "²",
    "①",
    float("inf"),
    float("nan"),
]
BAD_MOVES = [
    "²-1",
    "①-2",
    "²²-¹⁸",
    "٢٢-١٨x",
    "22-18-",
    "22-",
    "-18",
    "22x",
    "x",
    "22-18\x00",
    "e2e4\x00",
    "e2e9",
    "e7e8k",
    "",
    " ",
    "0-0",
    "O-O-O",
    "a1a1",
    "z9z9",
    "e2" * 100,
    "1" * 200,
    "9" * 1000,
    "22-18" * 300,
    "\u202e81-22",
    "\ud800",
    123,
    1e400,
    None,
    [],
    {"from": "e2"},
    ["e2e4"],
    True,
]
ACTIONS = ["move", "resign", "draw_offer", "draw_accept", "draw_decline", "draw_claim", "boost"]
ODD_TYPES = [
    "",
    "Move",
    "PING",
    "ping ",
    " ping",
    "ping\x00",
    "move\u200b",
    "game.state",
    "game_state",
    "lobby.changed",
    "user.changed",
    "tournament.changed",
    "arena.changed",
    "websocket.receive",
    "websocket.disconnect",
    "websocket.connect",
    "on_move",
    "__init__",
    "__class__",
    "connect",
    "disconnect",
    "receive",
    "close",
    "send",
    "closed",
    "sync ",
    "\ud800",
    "x" * 1000,
]


def frame(rng: random.Random, *, game: bool, legal: frozenset[str] = frozenset()) -> tuple:
    """One hostile frame: (label, kind, payload) with kind "text", "binary" or "json".

    None is ever a valid action: on a game socket a player's action carries a ply that is not
    the game's, or a move that is not legal (the game stays at ply 0), so every frame must be
    answered with an error."""
    roll = rng.random()
    if roll < 0.06:
        return ("empty", "text", "")
    if roll < 0.14:
        data = rng.choice(
            [
                b"",
                b'{"type": "ping"}',
                b'{"type": "move", "ply": 0, "move": "e2e4"}',
                bytes(rng.randint(0, 255) for _ in range(rng.randint(1, 200))),
            ]
        )
        return ("binary", "binary", data)
    if roll < 0.18:
        return ("nested 100000", "text", "[" * 100_000)
    if roll < 0.22:
        depth = rng.choice([999, 1001, 3000, 4000])
        return (f"nested {depth}", "text", "[" * depth + "]" * depth)
    if roll < 0.25:
        depth = rng.choice([500, 2000])
        return (f"nested objects {depth}", "text", '{"type":' * depth + "1" + "}" * depth)
    if roll < 0.3:
        return (
            "not JSON",
            "text",
            rng.choice(
                [
                    "abc",
                    "{",
                    "}",
                    "\x00",
                    "null\x00",
                    "{'type': 'move'}",
                    "NaN",
                    '{"type": "ping"',
                    '{"type": "ping"}{"type": "ping"}',
                    "\ufeff{}",
                    '{"type": "move", "ply": 0, "move": "e2e4",}',
                ]
            ),
        )
    if roll < 0.35:
        return (
            "not an object",
            "text",
            rng.choice(["[]", "1", '"move"', "null", "true", '[{"type": "ping"}]', "-0", "1e400"]),
        )
    if roll < 0.42:
        bad = rng.choice(
            [[], ["move"], {}, {"type": "move"}, None, 1, 1.5, True, ["ping"], "\ud800" * 3]
        )
        return ("type not a string", "json", {"type": bad, "ply": 0, "move": "e2e4"})
    if roll < 0.5:
        return ("unknown type", "json", {"type": rng.choice(ODD_TYPES), "id": rng.randint(0, 9)})
    if roll < 0.54:
        size = rng.choice([8193, 9000, 65_536, 1_000_000])
        return (f"long {size}", "json", {"type": "move", "ply": 0, "move": "a" * size})
    if roll < 0.57:
        odd_id = rng.choice([{"a": [1, {"b": None}]}, "x" * 7000, 1e400, "\ud800", [[[]]]])
        return ("odd id", "json", {"type": "nope", "id": odd_id})
    if roll < 0.6:
        return ("text junk", "text", text(rng).encode("utf-8", "replace").decode())
    if not game:
        kind = rng.choice(ACTIONS + ["sync", "resign"])
        return (f"action on a push-only socket: {kind}", "json", {"type": kind, "ply": 0})
    # Actions on a game socket, none valid.
    kind = rng.choice(ACTIONS)
    if kind == "move":
        if rng.random() < 0.5:
            ply = rng.choice(BAD_PLIES)
            return ("move with a bad ply", "json", {"type": "move", "ply": ply, "move": "e2e4"})
        move = rng.choice([m for m in BAD_MOVES if not (isinstance(m, str) and m in legal)])
        return (f"move {move!r:.30}", "json", {"type": "move", "ply": 0, "move": move})
    ply = rng.choice([p for p in BAD_PLIES if p is not None] + [7, 10**20])
    message = {"type": kind, "ply": ply, "id": rng.randint(0, 99)}
    if kind in ("draw_accept", "draw_decline", "draw_claim", "boost") and rng.random() < 0.3:
        message["ply"] = 0  # refused by the rules (no offer, no claim, no boost)
    return (f"{kind} with a bad ply", "json", message)


def encode(kind: str, payload) -> tuple[str, str | bytes]:
    """The frame to send: ("text", str) or ("binary", bytes)."""
    if kind == "json":
        return "text", json.dumps(payload)  # lone surrogates come out escaped: valid UTF-8
    return kind, payload
