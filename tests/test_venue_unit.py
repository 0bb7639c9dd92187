"""The venue board's systemd unit: `systemd-analyze verify` passes on the unit in the
repository and on the one `penguin-panel service install --venue` writes; the install
writes the venue's settings file, readable by the service's group only."""

import stat
import subprocess
import sys
from pathlib import Path

from panel.tools.cli import main
from panel.tools.commands import service as service_cmd

UNIT = Path(__file__).resolve().parents[1] / "systemd" / "penguin-panel-venue.service"
PENGUIN_PANEL = str(Path(sys.executable).parent / "penguin-panel")


def verify(path: Path) -> subprocess.CompletedProcess:
    return subprocess.run(["systemd-analyze", "verify", str(path)], capture_output=True, text=True)


def test_repository_unit_verifies(tmp_path):
    unit = tmp_path / "penguin-panel-venue.service"
    unit.write_text(UNIT.read_text().replace(service_cmd.DEFAULT_EXEC, PENGUIN_PANEL))
    r = verify(unit)
    assert r.returncode == 0 and r.stderr == "", r.stderr
    text = UNIT.read_text().splitlines()
    for line in ("Type=notify", "WatchdogSec=20", "Restart=on-failure", "PrivateDevices=yes",
                 "StateDirectory=penguin-panel", "After=network-online.target mosquitto.service"):
        assert line in text, line
    assert not any(line.startswith(("DeviceAllow", "SupplementaryGroups")) for line in text)


def test_installed_venue_unit_verifies(tmp_path, capsys):
    assert main(["service", "install", "--venue", "--print", "--user", "cafe"]) == 0
    text = capsys.readouterr().out
    assert f"ExecStart={PENGUIN_PANEL} venue " in text and "User=cafe" in text
    unit = tmp_path / "penguin-panel-venue.service"
    unit.write_text(text)
    r = verify(unit)
    assert r.returncode == 0 and r.stderr == "", r.stderr


def test_install_venue_writes_its_unit_and_settings(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(service_cmd.os, "geteuid", lambda: 0)
    units, config = tmp_path / "units", tmp_path / "etc"
    assert main(["service", "install", "--venue", "--unit-dir", str(units), "--config-dir", str(config)]) == 0
    out = capsys.readouterr().out
    assert f"--settings {config}/venue.toml" in (units / "penguin-panel-venue.service").read_text()
    settings = config / "venue.toml"
    assert "[mqtt]" in settings.read_text() and stat.S_IMODE(settings.stat().st_mode) == 0o640
    assert "systemctl enable --now penguin-panel-venue" in out and "usermod" not in out
    from panel.venue.run import read_settings
    venue, broker = read_settings(str(settings))  # the template is a valid settings file
    assert broker.username == "venue" and venue.port == 8090
