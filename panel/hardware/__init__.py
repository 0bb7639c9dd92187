"""The hardware layer: the hardware map, pin inputs (gpiozero), NeoPixels and the buzzer.

Nothing here imports a hardware library at import time: gpiozero's MockFactory runs the
simulator and the tests, and the real pin backends, neopixel and board are imported only
when a real board is used.
"""
