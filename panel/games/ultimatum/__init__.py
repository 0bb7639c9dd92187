"""Penguin Ultimatum: the cockpit as the card game's scorekeeper (house rules: docs/ultimatum.md)."""
