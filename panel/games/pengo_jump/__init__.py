"""Pengo Jump as a game of the cockpit: the companion that keeps the bag (see game.py)."""
