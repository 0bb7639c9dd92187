"""A message for every listener of a hub (the cockpit's pages and its MQTT bridge, the
venue's boards), serialised once however many listen. No aiohttp here: the cockpit's core
makes these without importing the web server."""

from __future__ import annotations

import json
from typing import Any


class Message(dict):
    """One message for every subscriber: a dict for those in this process (the MQTT bridge)
    and its JSON text for the pages' sockets, made once, by whoever asks first, however many
    pages are connected. Never changed once sent."""

    __slots__ = ("_text",)  # (unset until asked: dict's own __init__ makes it, no call of ours per message)

    @property
    def text(self) -> str:
        try:
            return self._text
        except AttributeError:
            self._text: str = json.dumps(self)
            return self._text
