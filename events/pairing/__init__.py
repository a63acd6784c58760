"""The tournament engine: pure rules, no Django (STYLE 1).

- `berger`: round-robin schedules by the Berger tables' construction (RULES 5.1).
- `rounds`: format and number of rounds (RULES 4.4, 4.5).
- `lim`: one Swiss round by the Lim system (`docs/lim.md`), `pair_round(players, spec)`.
- `matching`: Edmonds' maximum matching, the "can the rest still be paired" oracle (Lim 8.3).
- `standings`: points and tiebreaks for both formats (RULES 4.6, 4.10).
- `trf`: FIDE TRF-16 reading and writing.
- `checks`: independent hard-rule checks and quality figures; `simulate`: random tournaments.
- `cli` / `__main__`: `python -m events.pairing berger|rounds|pair|standings|simulate`.
"""
