"""Penguin Kaboom on the cockpit: its missions file, its use of the panel, its scenarios.
The rules themselves are in panel.games.kaboom.engine."""
