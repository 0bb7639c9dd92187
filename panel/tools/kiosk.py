"""The board on the cockpit's own screen: Chromium in kiosk mode under the cage compositor.

A café's Pi with a TV on HDMI boots into the board with no keyboard or mouse. The
systemd unit `penguin-panel-kiosk.service` runs `penguin-panel kiosk`, which replaces
itself (exec) with

    cage -- chromium <CHROMIUM_FLAGS> --user-data-dir=<fresh profile> <board URL>

Why cage: a Wayland compositor made for exactly this, one full-screen application and
nothing else (no panel, no desktop, no idle blanking of its own), in Debian as the `cage`
package, light enough for a Pi. Chromium talks Wayland to it directly.

The flags are here and only here: the unit runs this module, and the tests run Chromium
with the same list (headless) against a real service.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

BOARD_PATH = "/board"

# Each flag and why the board needs it.
CHROMIUM_FLAGS = (
    # Full screen, no address bar, tabs or menus, and no way out by the usual shortcuts.
    "--kiosk",
    # cage is a Wayland compositor: talk Wayland, not X11 through Xwayland.
    "--ozone-platform=wayland",
    # No welcome page, no "make Chromium your default browser" question.
    "--no-first-run",
    # No error dialogs waiting for a click nobody can give.
    "--noerrdialogs",
    # No "Restore pages?" bubble after a power cut (the profile is fresh at each start too).
    "--hide-crash-restore-bubble",
    # No "Translate this page?" bar over a board in Spanish on an English Chromium.
    "--disable-features=Translate",
    # No keyring to unlock: there is no desktop session to provide one.
    "--password-store=basic",
    # The board's sounds play with nobody there to touch the screen first.
    "--autoplay-policy=no-user-gesture-required",
    # On a touch screen, no pinch zoom and no swipe back out of the board.
    "--disable-pinch",
    "--overscroll-history-navigation=0",
)
BROWSERS = ("chromium", "chromium-browser")  # Debian's name; older Raspberry Pi OS images'
# The unit's RuntimeDirectory=penguin-panel-kiosk (systemd/penguin-panel-kiosk.service):
# systemd makes it at each start and hands it over as $RUNTIME_DIRECTORY.
UNIT_RUNTIME_DIRECTORY = Path("/run/penguin-panel-kiosk")


def board_url(port: int, host: str = "127.0.0.1") -> str:
    # 127.0.0.1, not localhost: the cockpit listens on IPv4 (0.0.0.0), localhost may be ::1 first.
    return f"http://{host}:{port}{BOARD_PATH}"


def chromium_args(url: str, *, profile: str | os.PathLike) -> list[str]:
    """What Chromium is given: the flags, a profile of its own, and the board's address."""
    return [*CHROMIUM_FLAGS, f"--user-data-dir={profile}", url]


def find_browser() -> str | None:
    for name in BROWSERS:
        found = shutil.which(name)
        if found:
            return found
    return None


def profile_dir(env: dict[str, str] | None = None, *, unit: bool = False) -> Path | None:
    """Where Chromium keeps its profile: the unit's RuntimeDirectory (a tmpfs that systemd
    empties when the kiosk stops), else the login session's runtime folder; None without
    either (cage needs XDG_RUNTIME_DIR anyway). `unit`: the unit's folder wherever this
    runs (what `--print` shows: the command the unit runs, from any shell)."""
    env = os.environ if env is None else env
    if env.get("RUNTIME_DIRECTORY"):
        return Path(env["RUNTIME_DIRECTORY"].split(":")[0]) / "chromium"
    if unit:
        return UNIT_RUNTIME_DIRECTORY / "chromium"
    if env.get("XDG_RUNTIME_DIR"):
        return Path(env["XDG_RUNTIME_DIR"]) / "penguin-panel-kiosk" / "chromium"
    return None


def fresh_profile(profile: Path) -> None:
    """An empty profile at each start: nothing to restore after a crash or a power cut."""
    if profile.exists():
        shutil.rmtree(profile)
    profile.mkdir(parents=True, mode=0o700)


def command(url: str, *, cage: str, browser: str, profile: str | os.PathLike) -> list[str]:
    """The whole kiosk: cage running Chromium on the board."""
    # cage's own options are left at their defaults: `-m last` (one screen of two) crashes
    # Debian's cage 0.1.4 at start (cage issue #231), so a second screen shows the board too.
    return [cage, "--", browser, *chromium_args(url, profile=profile)]


def missing_programs() -> list[str]:
    """Debian packages the kiosk needs and this machine lacks. Debian's cage 0.1.4 refuses
    to start without the Xwayland binary (it is built with X11 support), hence `xwayland`."""
    missing = []
    if not shutil.which("cage"):
        missing.append("cage")
    if not Path("/usr/bin/Xwayland").exists():
        missing.append("xwayland")
    if find_browser() is None:
        missing.append("chromium")
    return missing

