# Firmware for the Raspberry Pi Pico co-processor (MicroPython). The other .py files here
# are copied as they are to the board's filesystem by `penguin-panel firmware install`
# (this one is not: it only makes the folder the Pi's package `panel.firmware`, mapped
# onto this folder in pyproject.toml). The Pi's link (panel.link) imports protocol.py and
# config.py from here, so both ends share one protocol. Docs: README.md, PROTOCOL.md.
