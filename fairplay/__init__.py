"""Fair play (RULES §15): the report an event's organizer and the staff read, the focus lost
during one's own turn that the game page reports, and the staff's "under review" mark.

On its own floor between the kinds of event and `events` (pyproject.toml): it reads events,
games and accounts; the kinds' standings read its marks. Nothing here acts on a player by
itself: the figures are for a person to look at (RULES 15.1)."""
