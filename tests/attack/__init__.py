"""Attack regression tests: each one replays an attack that once worked (issue 26 onwards)."""
