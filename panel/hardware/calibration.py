"""The calibration file: each slider's two ends as the ADC reads them, and whether the
knob was homed. `penguin-panel calibrate` writes it; the service reads it at start.

    format = 1
    map = "Reference build"

    [sliders."slider.blue"]
    low = 0.031          # reading (0..1 of full scale) at the first position's end
    high = 0.962         # ... at the last position's end
    checked = ["1", "2", "3", "4", "5", "6"]   # positions confirmed by the check pass

    [knob."knob.main"]
    home = "1"           # the position the knob was turned to when homed

The file is written whole to a temporary file and moved over the old one, so running the
calibration again (or a power cut in the middle) never leaves half a file: re-running is
safe, and a control not re-done keeps its old values.
"""

from __future__ import annotations

import os
import statistics
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Iterable, Sequence

from panel.core.schema import Check, Each, Field, Problems, Str, Table, number, say
from panel.core.toml_file import read_toml
from panel.hardware.map import HardwareMap
from panel.core.i18n import N_, Text, _

ENV = "PENGUIN_PANEL_CALIBRATION"
MIN_SPAN = 0.3   # ends closer than this (of full scale) mean the slider is not really moving


def default_path() -> Path:
    """$PENGUIN_PANEL_CALIBRATION, else $XDG_STATE_HOME (~/.local/state)/penguin-panel/calibration.toml."""
    if os.environ.get(ENV):
        return Path(os.environ[ENV])
    base = Path(os.environ.get("XDG_STATE_HOME") or Path.home() / ".local" / "state")
    return base / "penguin-panel" / "calibration.toml"


@dataclass
class SliderCalibration:
    low: float
    high: float
    checked: tuple[str, ...] = ()


@dataclass
class Calibration:
    map: str | None = None
    sliders: dict[str, SliderCalibration] = field(default_factory=dict)
    knobs: dict[str, str] = field(default_factory=dict)   # control id -> home position

    def apply(self, hmap: HardwareMap) -> HardwareMap:
        """The map with each calibrated slider's ends in place of the map's defaults."""
        controls = dict(hmap.controls)
        for cid, sc in self.sliders.items():
            s = controls.get(cid)
            if s is not None and s.calibrated == "ends":
                controls[cid] = s.with_calibration(sc.low, sc.high)
        return replace(hmap, controls=controls)

    def missing(self, hmap: HardwareMap) -> list[str]:
        """Controls of the map that need calibrating and are not in this file."""
        done = {"ends": self.sliders, "home": self.knobs}
        return [cid for cid, s in hmap.controls.items() if s.calibrated is not None and cid not in done[s.calibrated]]


# ---------------------------------------------------------------------------- the maths

def end_reading(samples: Sequence[float]) -> float:
    """One end from a burst of readings: the median, so a noisy sample does not move it."""
    if not samples:
        raise ValueError(_("no readings arrived"))
    return float(statistics.median(samples))


def fit(low_samples: Sequence[float], high_samples: Sequence[float]) -> SliderCalibration:
    low, high = end_reading(low_samples), end_reading(high_samples)
    if abs(high - low) < MIN_SPAN:
        raise ValueError(_("the two ends read {low} and {high} of full scale: the slider hardly changes the "
                           "reading (a wire off the wiper, or both ends on one rail?)").format(low=f"{low:.2f}",
                                                                                           high=f"{high:.2f}"))
    return SliderCalibration(round(low, 4), round(high, 4))


def position_of(cal: SliderCalibration, positions: Sequence[str], raw: float) -> str:
    """Where a reading falls with this calibration (the quantiser's bands, no hysteresis)."""
    x = (raw - cal.low) / (cal.high - cal.low)
    x = 0.0 if x < 0 else 1.0 if x > 1 else x
    n = len(positions)
    return positions[min(int(x * n), n - 1)]


def check_positions(cal: SliderCalibration, positions: Sequence[str],
                    readings: dict[str, Sequence[float]]) -> dict[str, str]:
    """The check pass: each position, set by the maker, must read as itself. Returns the
    ones that do not, each with the position it reads as."""
    wrong = {}
    for p in positions:
        got = position_of(cal, positions, end_reading(readings[p]))
        if got != p:
            wrong[p] = got
    return wrong


# ---------------------------------------------------------------------------- the file

def _names(v) -> str | None:
    if isinstance(v, list) and all(isinstance(x, str) for x in v):
        return None
    return N_("must be a list of position names")


_POSITION = N_("must be a position name")
_SLIDER = Table(says=N_("must be a table with low and high"),
                fields={"low": Field(), "high": Field(), "checked": Check(default=(), test=_names, convert=tuple)})
CALIBRATION_FILE = Table(fields={
    "format": Field(default=1), "map": Field(), "sliders": Each(of=_SLIDER, says=N_("must be a table")),
    "knob": Each(of=Table(fields={"home": Str(missing=_POSITION, says=_POSITION)}), says=N_("must be a table"))})


def load(path: str | Path) -> Calibration:
    """Read a calibration file; ConfigError naming file and key for anything wrong."""
    file = Path(path)
    problems = Problems(file)
    top = CALIBRATION_FILE.read_top(read_toml(file), problems)
    if top["format"] != 1:
        problems.add("format", say(N_("unsupported calibration format {value}"), top["format"]))
    cal = Calibration(map=top["map"] if isinstance(top["map"], str) else None)
    for cid, v in top["sliders"].items():
        lo, hi = v["low"], v["high"]
        if not all(number(x) and 0 <= x <= 1 for x in (lo, hi)):
            problems.add(f"sliders.{cid}", Text(N_("low and high must be readings between 0.0 and 1.0")))
        elif lo == hi:
            problems.add(f"sliders.{cid}", Text(N_("low and high must differ")))
        else:
            cal.sliders[cid] = SliderCalibration(float(lo), float(hi), v["checked"])
    cal.knobs = {cid: v["home"] for cid, v in top["knob"].items() if v["home"] is not None}
    problems.raise_any()
    return cal


def dumps(cal: Calibration) -> str:
    import tomli_w

    data: dict = {"format": 1}
    if cal.map:
        data["map"] = cal.map
    if cal.sliders:
        data["sliders"] = {cid: {"low": s.low, "high": s.high, "checked": list(s.checked)}
                           for cid, s in sorted(cal.sliders.items())}
    if cal.knobs:
        data["knob"] = {cid: {"home": home} for cid, home in sorted(cal.knobs.items())}
    head = "# Written by `penguin-panel calibrate`; run it again rather than editing this file.\n"
    return head + tomli_w.dumps(data)


def save(cal: Calibration, path: str | Path) -> None:
    """Atomic: a temporary file beside the target, then os.replace."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w", encoding="utf-8") as fh:
        fh.write(dumps(cal))
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


def merged(old: Calibration | None, new: Calibration) -> Calibration:
    """Re-running keeps what this run did not redo (for the same build: a file made for
    another map starts afresh)."""
    if old is None or (old.map is not None and new.map is not None and old.map != new.map):
        return new
    return Calibration(new.map or old.map, {**old.sliders, **new.sliders}, {**old.knobs, **new.knobs})


def status_at_start(hmap: HardwareMap, path: str | Path | None = None, *,
                    map_arg: str | None = None) -> tuple[Calibration | None, str | None]:
    """What the service does at start: (the calibration, or None; a warning line, or None).

    A missing file, or controls missing from it, give a line naming them and the command
    that fixes it; the service then runs on the map's own defaults."""
    path = Path(path) if path is not None else default_path()
    fix = f"penguin-panel calibrate {map_arg or hmap.source}" + ("" if path == default_path() else f" --file {path}")
    needs = [cid for cid, s in hmap.controls.items() if s.calibrated is not None]
    if not path.is_file():
        if not needs:
            return None, None
        return None, _("no calibration ({file} is missing) for {controls}: run `{command}`").format(
            file=path, controls=", ".join(needs), command=fix)
    cal = load(path)
    missing = cal.missing(hmap)
    if missing:
        return cal, _("calibration {file} lacks {controls}: run `{command}`").format(
            file=path, controls=", ".join(missing), command=fix)
    return cal, None


def describe(cal: Calibration, ids: Iterable[str]) -> list[str]:
    lines = []
    for cid in ids:
        if cid in cal.sliders:
            s = cal.sliders[cid]
            lines.append(_("{control}: ends {low} .. {high}, positions checked: {positions}").format(
                control=cid, low=f"{s.low:.3f}", high=f"{s.high:.3f}", positions=", ".join(s.checked) or _("none")))
        elif cid in cal.knobs:
            lines.append(_("{control}: homed at {position}").format(control=cid, position=cal.knobs[cid]))
    return lines
