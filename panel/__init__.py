"""Penguin Airlines cockpit: layout, cards, rules engine and the adapters around them."""

__version__ = "0.1.0"
