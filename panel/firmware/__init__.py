# Firmware for the Raspberry Pi Pico co-processor (MicroPython). These files are copied
# as they are to the board's filesystem by `penguin-panel firmware install`; the Pi's link
# (panel.link) imports protocol.py and config.py from here, so both ends share one
# protocol. Docs: firmware/README.md and firmware/PROTOCOL.md at the top of the repository.
