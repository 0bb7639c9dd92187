"""The systemd unit: `systemd-analyze verify` passes, with no warning, on the unit in the
repository and on the one `penguin-panel service install` writes."""

import subprocess
import sys
from pathlib import Path

import pytest

from panel.tools.commands import service as service_cmd
from panel.tools.cli import main

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


@pytest.mark.parametrize("unit", [UNIT.name, "penguin-panel-venue.service"])
def test_unit_gives_the_connection_guard_its_descriptors(unit):
    """systemd's default 1,024 ran out under 1,100 idle connections: the cockpit's unit and
    the venue's (both serve through the guard) raise it above what the guard holds (its
    connections plus the descriptors it keeps aside)."""
    from panel.server.guard import MAX_CONNECTIONS, RESERVE_FDS

    text = (UNIT.parent / unit).read_text()
    limits = [line.split("=", 1)[1] for line in text.splitlines() if line.startswith("LimitNOFILE=")]
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
    (tmp_path / service_cmd.KIOSK_UNIT).write_text("[Unit]\n")
    assert main(["service", "uninstall", "--kiosk", "--unit-dir", str(tmp_path)]) == 1
    assert "service uninstall --kiosk" in capsys.readouterr().err
    assert (tmp_path / service_cmd.KIOSK_UNIT).exists()


def test_a_program_in_a_home_directory_stays_visible():
    text = service_cmd.render_unit(exec_path="/home/pi/pp/.venv/bin/penguin-panel", user="pi",
                                   config_dir="/etc/penguin-panel")
    assert "ProtectHome=read-only" in text and "ProtectHome=yes" not in text


@pytest.mark.parametrize("args", [["service", "reset-pin", "--db", "/nonexistent/panel.db"]])
def test_reset_pin_needs_a_database(args, capsys):
    assert main(args) == 2
    assert "no database here" in capsys.readouterr().err


# ---------------------------------------------------------------------------- the kiosk

KIOSK = UNIT.parent / "penguin-panel-kiosk.service"


def test_repository_kiosk_unit_verifies(tmp_path):
    unit = tmp_path / "penguin-panel-kiosk.service"
    unit.write_text(KIOSK.read_text().replace(service_cmd.DEFAULT_EXEC, PENGUIN_PANEL))
    r = verify(unit)
    assert r.returncode == 0 and r.stderr == "", r.stderr
    unit.write_text(unit.read_text().replace("TTYPath=", "TTYPaht="))
    assert "TTYPaht" in verify(unit).stderr


def test_kiosk_unit_has_what_the_screen_needs():
    lines = KIOSK.read_text().splitlines()
    for line in ("After=penguin-panel.service", "Wants=penguin-panel.service", "PartOf=penguin-panel.service",
                 "Restart=always", "StartLimitIntervalSec=0", "User=penguin-kiosk", "PAMName=login",
                 "TTYPath=/dev/tty7", "Conflicts=getty@tty7.service", "RuntimeDirectory=penguin-panel-kiosk",
                 "NoNewPrivileges=yes", "WantedBy=multi-user.target",
                 f"ExecStart={service_cmd.DEFAULT_EXEC} kiosk --settings /etc/penguin-panel/settings.toml"):
        assert line in lines, line
    assert not any(line.startswith(("User=root", "Group=root")) for line in lines)
    # The cockpit's port comes from the settings file, which the kiosk reads too.
    assert "--port" not in UNIT.read_text()


def test_installed_kiosk_unit_verifies(tmp_path, capsys):
    assert main(["service", "install", "--print", "--kiosk", "--kiosk-user", "tv"]) == 0
    text = capsys.readouterr().out
    kiosk = text.split(f"# ---- {service_cmd.KIOSK_UNIT}\n", 1)[1]
    assert f"ExecStart={PENGUIN_PANEL} kiosk" in kiosk and "User=tv" in kiosk and "Group=tv" in kiosk
    unit = tmp_path / service_cmd.KIOSK_UNIT
    unit.write_text(kiosk)
    r = verify(unit)
    assert r.returncode == 0 and r.stderr == "", r.stderr


def condition_with(sysfs: Path) -> str:
    """The kiosk unit, its screen check pointed at a folder of our own instead of /sys/class/drm."""
    return KIOSK.read_text().replace("/sys/class/drm/", f"{sysfs}/")


@pytest.mark.parametrize("connectors, screen", [
    ({}, False),
    ({"card0-HDMI-A-1": "disconnected", "card0-HDMI-A-2": "disconnected"}, False),
    ({"card0-HDMI-A-1": "disconnected", "card0-HDMI-A-2": "connected"}, True),
    ({"card1-DSI-1": "connected"}, True),
])
def test_the_kiosk_starts_only_with_a_screen(tmp_path, connectors, screen):
    """The unit's own ExecCondition line, run by the shell it names, on a fake sysfs."""
    (tmp_path / "card0").mkdir()  # the GPU itself has no status: not a screen
    for name, status in connectors.items():
        (tmp_path / name).mkdir()
        (tmp_path / name / "status").write_text(status + "\n")
    assert service_cmd.screen_connected(condition_with(tmp_path)) is screen


@pytest.fixture
def as_root(monkeypatch):
    monkeypatch.setattr(service_cmd.os, "geteuid", lambda: 0)  # root, into folders of our own


def install_kiosk(tmp_path, *extra):
    units, config, udev = tmp_path / "units", tmp_path / "etc", tmp_path / "udev"
    code = main(["service", "install", "--kiosk", "--unit-dir", str(units), "--config-dir", str(config),
                 "--udev-dir", str(udev), *extra])
    return code, units, udev


def test_install_kiosk_writes_both_units_and_the_udev_rule(tmp_path, capsys, monkeypatch, as_root):
    monkeypatch.setattr("panel.tools.kiosk.missing_programs", lambda: [])
    monkeypatch.setattr(service_cmd, "screen_connected", lambda unit: True)
    code, units, udev = install_kiosk(tmp_path, "--kiosk-user", "nobody-here-kiosk")
    out = capsys.readouterr().out
    assert code == 0, out
    assert (units / service_cmd.UNIT_NAME).exists()
    kiosk = (units / service_cmd.KIOSK_UNIT).read_text()
    assert f"--settings {tmp_path}/etc/settings.toml" in kiosk and "User=nobody-here-kiosk" in kiosk
    assert 'ENV{LIBINPUT_IGNORE_DEVICE}="1"' in (udev / service_cmd.KIOSK_RULES).read_text()
    for said in (f"wrote {units / service_cmd.KIOSK_UNIT}", f"wrote {udev / service_cmd.KIOSK_RULES}",
                 "useradd --system --no-create-home --shell /usr/sbin/nologin nobody-here-kiosk",
                 "systemctl enable --now penguin-panel-kiosk", "systemctl enable --now penguin-panel\n"):
        assert said in out, said


def test_install_kiosk_refuses_without_a_screen(tmp_path, capsys, monkeypatch, as_root):
    monkeypatch.setattr("panel.tools.kiosk.missing_programs", lambda: [])
    monkeypatch.setattr(service_cmd, "screen_connected", lambda unit: False)
    code, units, udev = install_kiosk(tmp_path)
    err = capsys.readouterr().err
    assert code == 1 and "no screen is connected" in err and "plug the screen in" in err
    assert not units.exists() and not udev.exists()  # nothing half-installed


def test_install_kiosk_says_which_packages_are_missing(tmp_path, capsys, monkeypatch, as_root):
    monkeypatch.setattr("panel.tools.kiosk.missing_programs", lambda: ["cage", "xwayland"])
    code, units, _ = install_kiosk(tmp_path)
    err = capsys.readouterr().err
    assert code == 1 and "sudo apt-get install cage xwayland" in err and "Traceback" not in err
    assert not units.exists()


def test_uninstall_removes_the_kiosk_then_the_cockpit(tmp_path, capsys, monkeypatch, as_root):
    monkeypatch.setattr("panel.tools.kiosk.missing_programs", lambda: [])
    monkeypatch.setattr(service_cmd, "screen_connected", lambda unit: True)
    monkeypatch.setattr(service_cmd, "SYSTEMD_RUNNING", tmp_path / "no-systemd")
    _, units, udev = install_kiosk(tmp_path)
    capsys.readouterr()
    where = ["--unit-dir", str(units), "--udev-dir", str(udev)]
    assert main(["service", "uninstall", "--kiosk", *where]) == 0
    out = capsys.readouterr().out
    assert f"removed {units / service_cmd.KIOSK_UNIT}" in out and f"removed {udev / service_cmd.KIOSK_RULES}" in out
    assert not (units / service_cmd.KIOSK_UNIT).exists() and not (udev / service_cmd.KIOSK_RULES).exists()
    assert (units / service_cmd.UNIT_NAME).exists()  # --kiosk leaves the cockpit
    assert main(["service", "uninstall", *where]) == 0
    assert not (units / service_cmd.UNIT_NAME).exists()
    assert (tmp_path / "etc" / "settings.toml").exists()  # settings kept
    assert main(["service", "uninstall", *where]) == 0
    assert "nothing to remove" in capsys.readouterr().out
