"""The Pi's side of the USB serial link to the Pico co-processor (see firmware/PROTOCOL.md)."""

from panel.link.serial_link import AnalogReading, SerialLink, find_ports, link_action

__all__ = ["AnalogReading", "SerialLink", "find_ports", "link_action"]
