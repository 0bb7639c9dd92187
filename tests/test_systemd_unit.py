"""The systemd unit: `systemd-analyze verify` passes, with no warning, on the unit in the
repository and on the one `penguin-panel service install` writes."""

import subprocess
import sys
from pathlib import Path

import pytest

from panel.commands import service as service_cmd
from panel.cli import main

UNIT = Path(__file__).resolve().parents[1] / "systemd" / "penguin-panel.service"
PENGUIN_PANEL = str(Path(sys.executable).parent / "penguin-panel")


def verify(path: Path) -> subprocess.CompletedProcess:
    # Offline: no running systemd is needed to check a unit file.
    return subprocess.run(["systemd-analyze", "verify", str(path)], capture_output=True, text=True)


def test_repository_unit_verifies(tmp_path):
    # verify insists that ExecStart exists: point it at this installation's script.
    unit = tmp_path / "penguin-panel.service"
    unit.write_text(UNIT.read_text().replace(service_cmd.DEFAULT_EXEC, PENGUIN_PANEL))
    r = verify(unit)
    assert r.returncode == 0 and r.stderr == "", r.stderr


def test_verify_catches_a_broken_unit(tmp_path):
    """The check is worth something: a misspelt key is reported."""
    unit = tmp_path / "penguin-panel.service"
    unit.write_text(UNIT.read_text().replace(service_cmd.DEFAULT_EXEC, PENGUIN_PANEL)
                    .replace("WatchdogSec=", "WatchdogSecs="))
    assert "WatchdogSecs" in verify(unit).stderr


def test_unit_has_what_the_cafe_needs():
    text = UNIT.read_text()
    for line in ("Type=notify", "WatchdogSec=20", "Restart=on-failure", "SupplementaryGroups=gpio spi dialout",
                 "NoNewPrivileges=yes", "ProtectSystem=strict", "DevicePolicy=closed", "DeviceAllow=char-gpiochip rw",
                 "DeviceAllow=char-spi rw", "DeviceAllow=char-ttyACM rw", "StateDirectory=penguin-panel",
                 "WantedBy=multi-user.target"):
        assert line in text.splitlines(), line
    assert "--db /var/lib/penguin-panel/panel.db" in text  # inside StateDirectory, writable


def test_unit_gives_the_connection_guard_its_descriptors():
    """systemd's default 1,024 ran out under 1,100 idle connections: the unit raises it
    above what the guard holds (its connections plus the descriptors it keeps aside)."""
    from panel.service.guard import MAX_CONNECTIONS, RESERVE_FDS

    limits = [line.split("=", 1)[1] for line in UNIT.read_text().splitlines() if line.startswith("LimitNOFILE=")]
    assert len(limits) == 1 and int(limits[0]) >= MAX_CONNECTIONS + RESERVE_FDS


def test_installed_unit_verifies(tmp_path, capsys):
    assert main(["service", "install", "--print", "--user", "cafe"]) == 0
    text = capsys.readouterr().out
    assert f"ExecStart={PENGUIN_PANEL} play" in text and "User=cafe" in text
    unit = tmp_path / "penguin-panel.service"
    unit.write_text(text)
    r = verify(unit)
    assert r.returncode == 0 and r.stderr == "", r.stderr


def test_install_writes_the_unit_and_settings(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(service_cmd.os, "geteuid", lambda: 0)  # root, into folders of our own
    units, config = tmp_path / "units", tmp_path / "etc"
    assert main(["service", "install", "--unit-dir", str(units), "--config-dir", str(config)]) == 0
    out = capsys.readouterr().out
    assert (units / "penguin-panel.service").read_text().count(f"--settings {config}/settings.toml") == 1
    assert "[match]" in (config / "settings.toml").read_text()
    assert "systemctl enable --now penguin-panel" in out and "daemon-reload" in out


def test_install_without_root_refuses_politely(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(service_cmd.os, "geteuid", lambda: 1000)
    assert main(["service", "install", "--unit-dir", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert "needs root" in err and "sudo" in err and "Traceback" not in err
    assert not (tmp_path / "penguin-panel.service").exists()


def test_a_program_in_a_home_directory_stays_visible():
    text = service_cmd.render_unit(exec_path="/home/pi/pp/.venv/bin/penguin-panel", user="pi",
                                   config_dir="/etc/penguin-panel")
    assert "ProtectHome=read-only" in text and "ProtectHome=yes" not in text


@pytest.mark.parametrize("args", [["service", "reset-pin", "--db", "/nonexistent/panel.db"]])
def test_reset_pin_needs_a_database(args, capsys):
    assert main(args) == 2
    assert "no database here" in capsys.readouterr().err
