"""A light's colour: (red, green, blue), 0-255 each. A game's picture is made of them
(panel/games/*/show.py) and a pixel strip writes them (panel/hardware/leds.py)."""

Colour = tuple[int, int, int]
