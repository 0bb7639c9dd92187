"""The [mqtt] table's checks on what a person (or a careless script) writes there (issue 24,
item 7): a FIFO as ca_file, an empty user name, control characters in a cockpit's name. Each
is one line at start, never a hang or a name that breaks the board."""

from __future__ import annotations

import os
import threading

import pytest

from panel.core.errors import ConfigError
from panel.mqtt.settings import BridgeSettings


def problems(raw):
    with pytest.raises(ConfigError) as e:
        BridgeSettings.from_table(raw, file="settings.toml")
    return str(e.value)


def test_a_fifo_as_ca_file_is_refused_without_opening_it(tmp_path):
    fifo = tmp_path / "ca.pem"
    os.mkfifo(fifo)
    said = []
    reader = threading.Thread(target=lambda: said.append(problems({"tls": True, "ca_file": str(fifo)})), daemon=True)
    reader.start()
    reader.join(30)  # a bound against the hang it was (opening a FIFO waits for a writer)
    if reader.is_alive():
        with open(fifo, "w"):  # let the hung reader go before failing
            pass
        pytest.fail("reading the settings hung on the FIFO")
    assert said == [f"settings.toml: mqtt.ca_file: {fifo}: is not a regular file"]


@pytest.mark.parametrize("username", ["", "   ", "cockpit\n1"])
def test_an_empty_or_multi_line_user_name_is_refused(username):
    assert "mqtt.username: must be a user name" in problems({"username": username, "password": "x"})


@pytest.mark.parametrize("name", ["Cockpit\x1b[2J", "Bar\nterrace", "tab\there", "\x00"])
def test_control_characters_in_a_cockpits_name_are_refused(name):
    assert "mqtt.name: must be text on one line, without control characters" in problems({"name": name})


def test_a_plain_name_and_user_still_pass():
    s = BridgeSettings.from_table({"name": "Café terrace ✈", "username": "cockpit-1", "password": "x"})
    assert s.name == "Café terrace ✈" and s.username == "cockpit-1"
