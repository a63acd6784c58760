"""The arena's rules as pure Python, without Django (RULES 8): who plays whom and with which
colour (`pairing`), and what a player's results are worth (`sheet`)."""
