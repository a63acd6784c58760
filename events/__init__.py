"""Events: what both kinds of event (round tournaments, arenas) share, below them both.

- `kinds`: the registry of event kinds; the one-live-event-per-person lookup (RULES 1) and the
  `game_finished` router (`receivers`) go through it, so no kind imports another;
- `models`: the abstract `Event` (the options every event has: variant, time control, start,
  openings, rated and floor, private) and its statuses;
- `options`: the rules of those options, without Django (RULES 4.1, 6, 7.2, 7.3, 8);
- `forms`, `services`: the form fields and the checks both kinds reuse;
- `openings`: the opening draw of RULES 6;
- `ending`: the end-of-event grace (RULES 4.9) and ending every live game of an event;
- `describe`: the options in words.

It depends on games (and the live layer), never the reverse; tournaments and arenas depend on
it.
"""
