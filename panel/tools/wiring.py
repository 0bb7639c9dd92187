"""Wiring documents generated from a hardware map, never drawn by hand.

`wiring_files(hmap, layout)` returns {file name: text} for one build:

    pinout.md          the Pi's 40-pin header and the Pico's pins, each with what it carries,
                       and every control of the layout with where it is wired
    matrix.md          the co-processor's diode matrix: row, column, button (a table and a grid)
    harness-pi.yml     WireViz source of the harness on the Pi's header ...
    harness-pi.svg     ... and its drawing (WireViz, laid out by Graphviz)
    harness-pico.yml   the same for the Pico (matrix ribbons, sliders), when the build has one
    harness-pico.svg
    matrix.svg         the diode matrix schematic (schemdraw)
    analog.svg         the slider dividers (schemdraw), when the build has sliders

Tools of the field: WireViz draws cable harnesses from a YAML description (the .yml is
kept beside the drawing so a maker can restyle it); schemdraw draws schematics in pure
Python. Both render to SVG, which `normalise_svg` strips of the comments and ids that vary
between runs, so a staleness check can compare text.
"""

from __future__ import annotations

import re
from pathlib import Path

from panel.hardware.map import MAPS_DIR, PICO_ADC_GP, HardwareMap
from panel.hardware.pinout import BCM_TO_PHYS
from panel.core.layout import Layout

PHYS_POWER = {1: "3V3", 17: "3V3", 2: "5V", 4: "5V", 6: "GND", 9: "GND", 14: "GND", 20: "GND",
              25: "GND", 30: "GND", 34: "GND", 39: "GND", 27: "ID_SD", 28: "ID_SC"}
PI_GND = (6, 9, 14, 20, 25, 30, 34, 39)
# Pico (RP2040 board) physical pin -> signal.
PICO_PINS = {1: "GP0", 2: "GP1", 3: "GND", 4: "GP2", 5: "GP3", 6: "GP4", 7: "GP5", 8: "GND",
             9: "GP6", 10: "GP7", 11: "GP8", 12: "GP9", 13: "GND", 14: "GP10", 15: "GP11",
             16: "GP12", 17: "GP13", 18: "GND", 19: "GP14", 20: "GP15", 21: "GP16", 22: "GP17",
             23: "GND", 24: "GP18", 25: "GP19", 26: "GP20", 27: "GP21", 28: "GND", 29: "GP22",
             30: "RUN", 31: "GP26", 32: "GP27", 33: "AGND", 34: "GP28", 35: "ADC_VREF",
             36: "3V3(OUT)", 37: "3V3_EN", 38: "GND", 39: "VSYS", 40: "VBUS"}
GP_TO_PICO = {int(s[2:]): p for p, s in PICO_PINS.items() if s.startswith("GP")}
SPI0_SIGNALS = {11: "SPI0 SCLK", 10: "SPI0 MOSI", 9: "SPI0 MISO", 8: "SPI0 CE0", 7: "SPI0 CE1"}

HEADER = ("<!-- Generated from {src} by `penguin-panel wiring`. Do not edit: change the map "
          "and run the command again. -->\n")


# ---------------------------------------------------------------------------- who uses what

def pi_usage(hmap: HardwareMap, layout: Layout) -> dict[int, str]:
    """{BCM pin: what it carries}, for every Pi GPIO the build uses: the map's own claims
    (`HardwareMap.pi_claims`), each told as its source means it, and the SPI bus's pins."""
    out: dict[int, str] = {}
    for pin, user, _ in hmap.pi_claims():
        s = hmap.controls.get(user)
        if s is not None:
            out[pin] = s.carries(pin, user, layout.control(user) if user in layout else None)
        elif hmap.neopixel is not None and pin == hmap.neopixel.pin:
            out[pin] = (f"NeoPixel data ({hmap.neopixel.count} pixels, "
                        f"{hmap.neopixel.driver} driver, through the 74AHCT125)")
        elif hmap.buzzer is not None and pin == hmap.buzzer.pin:
            out[pin] = "buzzer (PWM, through the transistor)"
    if hmap.mcp3008 is not None:
        for pin in (11, 10, 9):
            out.setdefault(pin, f"MCP3008 {SPI0_SIGNALS[pin][5:]}")
        out.setdefault(hmap.mcp3008.select_pin, f"MCP3008 CS ({SPI0_SIGNALS[hmap.mcp3008.select_pin][5:]})")
    return out


def pico_usage(hmap: HardwareMap) -> dict[int, str]:
    """{Pico GP: what it carries}."""
    out: dict[int, str] = {}
    cp = hmap.coprocessor
    if cp is not None:
        for i, gp in enumerate(cp.rows):
            out[gp] = f"matrix row {i}"
        for i, gp in enumerate(cp.cols):
            out[gp] = f"matrix column {i}"
    for ch, cid in hmap.coprocessor_adc().items():
        out[PICO_ADC_GP[ch]] = f"{cid} (ADC{ch})"
    for cid, (a, b) in hmap.coprocessor_encoders().items():
        out[a], out[b] = f"{cid} encoder A", f"{cid} encoder B"
    return out


# ---------------------------------------------------------------------------- markdown

def pinout_md(hmap: HardwareMap, layout: Layout) -> str:
    lines = [HEADER.format(src=_src(hmap)), f"# Pinout: {hmap.name}", ""]
    lines += _pi_header_md(hmap, layout) + _pico_md(hmap) + _mcp3008_md(hmap) + _controls_md(hmap, layout)
    return "\n".join(lines) + "\n"


def _pi_header_md(hmap: HardwareMap, layout: Layout) -> list[str]:
    pi = pi_usage(hmap, layout)
    pull = {pin: hmap.controls[user].pull_words for pin, user, _ in hmap.pi_claims() if user in hmap.controls}
    lines = ["## Raspberry Pi 40-pin header", "",
             "Pin numbers are physical header pins; GPIO numbers are BCM. Pin 1 is the square pad.", "",
             "| Pin | Signal | Carries | Input |", "| ---: | --- | --- | --- |"]
    bcm_of = {v: k for k, v in BCM_TO_PHYS.items()}
    for n in range(1, 41):
        if n in PHYS_POWER:
            sig = PHYS_POWER[n]
            carries = "ground return of the controls" if sig == "GND" else ""
            if n == 2:
                carries = "5 V in from the supply (powers the Pi; see build notes)"
            elif n == 4 and hmap.buzzer is not None:
                carries = "buzzer supply"
            if sig in ("ID_SD", "ID_SC"):
                carries = "reserved (HAT EEPROM): leave unconnected"
            lines.append(f"| {n} | {sig} | {carries} | |")
            continue
        b = bcm_of[n]
        carries = pi.get(b, "")
        if not carries and b in SPI0_SIGNALS and "spi0" in hmap.buses:
            carries = f"reserved: {SPI0_SIGNALS[b]}"
        lines.append(f"| {n} | GPIO{b} | {carries} | {pull.get(b, '')} |")
    return lines


def _pico_md(hmap: HardwareMap) -> list[str]:
    pico = pico_usage(hmap)
    if hmap.coprocessor is None and not pico:
        return []
    lines = ["", "## Raspberry Pi Pico", "",
             f"Connected to the Pi over USB ({(hmap.coprocessor.port if hmap.coprocessor else None) or 'auto'}).",
             "", "| Pin | Signal | Carries |", "| ---: | --- | --- |"]
    for n in range(1, 41):
        sig = PICO_PINS[n]
        carries = ""
        if sig.startswith("GP"):
            carries = pico.get(int(sig[2:]), "")
        elif sig == "ADC_VREF" and hmap.coprocessor_adc():
            carries = "top of the slider dividers"
        elif sig == "AGND" and hmap.coprocessor_adc():
            carries = "bottom of the slider dividers"
        lines.append(f"| {n} | {sig} | {carries} |")
    return lines


def _mcp3008_md(hmap: HardwareMap) -> list[str]:
    if hmap.mcp3008 is None:
        return []
    adc = hmap.mcp3008_channels()
    lines = ["", "## MCP3008 (on SPI0)", "", "| Chip pin | Signal | Goes to |", "| ---: | --- | --- |"]
    lines += [f"| {ch + 1} | CH{ch} | {adc.get(ch, '')} |" for ch in range(8)]
    cs = hmap.mcp3008.select_pin
    for n, sig, to in ((9, "DGND", "Pi GND"), (10, "CS/SHDN", f"Pi GPIO{cs} (pin {BCM_TO_PHYS[cs]})"),
                       (11, "DIN", "Pi GPIO10 (pin 19)"), (12, "DOUT", "Pi GPIO9 (pin 21)"),
                       (13, "CLK", "Pi GPIO11 (pin 23)"), (14, "AGND", "Pi GND"),
                       (15, "VREF", "Pi 3V3 (pin 1)"), (16, "VDD", "Pi 3V3 (pin 1)")):
        lines.append(f"| {n} | {sig} | {to} |")
    return lines


def _controls_md(hmap: HardwareMap, layout: Layout) -> list[str]:
    lines = ["", "## Every control of the layout", "",
             f"Layout: {layout.name}, {layout.side} side" + (", with the expansion" if layout.expansion else "")
             + ".", "", "| Control | Kind | Wired to |", "| --- | --- | --- |"]
    for c in sorted(layout.controls(), key=lambda c: c.id):
        kind = getattr(c, "token_kind", None) or "button"
        s = hmap.controls.get(c.id)
        lines.append(f"| {c.id} | {kind} | {s.describe() if s else 'not wired (click it on the screen)'} |")
    return lines


def matrix_md(hmap: HardwareMap) -> str:
    cp = hmap.coprocessor
    cells = hmap.matrix_cells()
    lines = [HEADER.format(src=_src(hmap)), f"# Button matrix: {hmap.name}", ""]
    if cp is None or not cells:
        lines.append("This build has no button matrix: every button is on a Pi GPIO (see pinout.md).")
        return "\n".join(lines) + "\n"
    lines += [f"{len(cp.rows)} rows x {len(cp.cols)} columns on the Pico, {len(cells)} buttons. One diode per "
              "button: anode on the column, cathode (the band) on the row. Rows are scanned low one at a "
              "time; columns have pull-ups.", "",
              "| Row | Row pin | Column | Column pin | Button |", "| ---: | --- | ---: | --- | --- |"]
    for (r, c), cid in sorted(cells.items()):
        lines.append(f"| {r} | GP{cp.rows[r]} (pin {GP_TO_PICO[cp.rows[r]]}) | {c} | "
                     f"GP{cp.cols[c]} (pin {GP_TO_PICO[cp.cols[c]]}) | {cid} |")
    lines += ["", "## As a grid", "",
              "| row \\ column | " + " | ".join(f"{c} (GP{gp})" for c, gp in enumerate(cp.cols)) + " |",
              "| --- |" + " --- |" * len(cp.cols)]
    for r, gp in enumerate(cp.rows):
        lines.append(f"| {r} (GP{gp}) | " + " | ".join(cells.get((r, c), "") for c in range(len(cp.cols))) + " |")
    return "\n".join(lines) + "\n"


def _src(hmap: HardwareMap) -> str:
    # The map's folder and name only: the files come out the same from any working directory.
    p = Path(hmap.source)
    if p.parent == MAPS_DIR:
        return f"panel/maps/{p.name}"
    return f"{p.parent.name}/{p.name}" if p.parent.name else p.name


# ---------------------------------------------------------------------------- WireViz

def _pi_harness(hmap: HardwareMap, layout: Layout) -> dict:
    """A WireViz harness: the Pi header, one cable and connector per Pi-wired part."""
    bcm_of = {v: k for k, v in BCM_TO_PHYS.items()}
    labels = [PHYS_POWER.get(n) or f"GPIO{bcm_of[n]}" for n in range(1, 41)]
    connectors: dict = {"Pi": {"type": "Raspberry Pi 40-pin header", "subtype": "female",
                               "pinlabels": labels}}
    cables: dict = {}
    connections: list = []
    gnd = iter(PI_GND * 10)

    def part(name: str, pinlabels: list[str], pi_pins: list[int], colors: list[str], what: str) -> None:
        name = _designator(name)
        connectors[name] = {"type": what, "pinlabels": pinlabels}
        cname = f"W_{name}"
        cables[cname] = {"wirecount": len(pi_pins), "colors": colors, "gauge": "0.14 mm2",
                         "show_equiv": False}
        ids = list(range(1, len(pi_pins) + 1))
        connections.append([{"Pi": pi_pins}, {cname: ids}, {name: ids}])

    for cid, s in hmap.controls.items():
        harness = s.harness(layout.control(cid) if cid in layout else None)
        if harness is not None:  # a part wired to the Pi's header (BCM pins; None: a ground)
            labels, pins, colours, what = harness
            part(cid, labels, [next(gnd) if p is None else BCM_TO_PHYS[p] for p in pins], colours, what)
    if hmap.mcp3008 is not None:
        cs = BCM_TO_PHYS[hmap.mcp3008.select_pin]
        part("MCP3008", ["CLK", "DIN", "DOUT", "CS", "VDD", "GND"], [23, 19, 21, cs, 1, next(gnd)],
             ["WH", "BU", "GN", "YE", "RD", "BK"], "MCP3008 ADC (SPI0)")
    if hmap.neopixel is not None:
        # Data and its ground reference only: the pixels' 5 V comes straight from the supply.
        part("NeoPixels", ["DIN", "GND"], [BCM_TO_PHYS[hmap.neopixel.pin], next(gnd)],
             ["GN", "BK"], f"{hmap.neopixel.count} NeoPixels via 74AHCT125 (5 V from the supply)")
    if hmap.buzzer is not None:
        part("Buzzer", ["SIG", "5V", "GND"], [BCM_TO_PHYS[hmap.buzzer.pin], 4, next(gnd)],
             ["OG", "RD", "BK"], "passive piezo via NPN transistor")
    return {"metadata": {"title": f"{hmap.name}: Pi header"}, "connectors": connectors,
            "cables": cables, "connections": connections}


def _pico_harness(hmap: HardwareMap) -> dict | None:
    cp = hmap.coprocessor
    adc = hmap.coprocessor_adc()
    enc = hmap.coprocessor_encoders()
    if cp is None and not adc and not enc:
        return None
    connectors: dict = {"Pico": {"type": "Raspberry Pi Pico", "pinlabels": [PICO_PINS[n] for n in range(1, 41)]}}
    cables: dict = {}
    connections: list = []
    if cp is not None and cp.rows:
        n = len(cp.rows)
        connectors["Rows"] = {"type": "matrix rows (diode cathodes)", "pinlabels": [f"R{i}" for i in range(n)]}
        cables["W_rows"] = {"wirecount": n, "category": "bundle", "gauge": "0.14 mm2",
                            "colors": (["BN", "RD", "OG", "YE", "GN", "BU", "VT", "GY", "WH", "BK"] * 3)[:n]}
        connections.append([{"Pico": [GP_TO_PICO[g] for g in cp.rows]}, {"W_rows": list(range(1, n + 1))},
                            {"Rows": list(range(1, n + 1))}])
    if cp is not None and cp.cols:
        n = len(cp.cols)
        connectors["Columns"] = {"type": "matrix columns (diode anodes)", "pinlabels": [f"C{i}" for i in range(n)]}
        cables["W_cols"] = {"wirecount": n, "category": "bundle", "gauge": "0.14 mm2",
                            "colors": (["BN", "RD", "OG", "YE", "GN", "BU", "VT", "GY", "WH", "BK"] * 3)[:n]}
        connections.append([{"Pico": [GP_TO_PICO[g] for g in cp.cols]}, {"W_cols": list(range(1, n + 1))},
                            {"Columns": list(range(1, n + 1))}])
    for ch, cid in sorted(adc.items()):
        cid = _designator(cid)
        connectors[cid] = {"type": "slide potentiometer 10 kOhm linear", "pinlabels": ["top", "wiper", "bottom"]}
        cables[f"W_{cid}"] = {"wirecount": 3, "colors": ["RD", "YE", "BK"], "gauge": "0.14 mm2",
                              "shield": True}
        connections.append([{"Pico": [35, GP_TO_PICO[PICO_ADC_GP[ch]], 33]}, {f"W_{cid}": [1, 2, 3]},
                            {cid: [1, 2, 3]}])
    gnd = iter((38, 28, 23) * 5)
    for cid, (a, b) in sorted(enc.items()):
        cid = _designator(cid)
        connectors[cid] = {"type": "rotary encoder", "pinlabels": ["A", "C", "B"]}
        cables[f"W_{cid}"] = {"wirecount": 3, "colors": ["YE", "BK", "GN"], "gauge": "0.14 mm2"}
        connections.append([{"Pico": [GP_TO_PICO[a], next(gnd), GP_TO_PICO[b]]}, {f"W_{cid}": [1, 2, 3]},
                            {cid: [1, 2, 3]}])
    return {"metadata": {"title": f"{hmap.name}: Pico"}, "connectors": connectors, "cables": cables,
            "connections": connections}


def _designator(cid: str) -> str:
    # WireViz reads "a.b" as "instance b of template a": a middle dot reads the same to a person.
    return cid.replace(".", "\u00b7")


def _wireviz_svg(harness: dict) -> str:
    from wireviz import wireviz

    svg = wireviz.parse(harness, return_types="svg")
    return normalise_svg(svg if isinstance(svg, str) else svg.decode("utf-8"))


def _yaml(harness: dict, hmap: HardwareMap) -> str:
    import yaml

    return (f"# Generated from {_src(hmap)} by `penguin-panel wiring`: WireViz input "
            f"(wireviz harness-x.yml draws it).\n" + yaml.safe_dump(harness, sort_keys=False, width=120))


# ---------------------------------------------------------------------------- schemdraw

def matrix_svg(hmap: HardwareMap) -> str | None:
    """The diode matrix: rows across, columns down, one switch and diode per cell."""
    cp = hmap.coprocessor
    cells = hmap.matrix_cells()
    if cp is None or not cells:
        return None
    import schemdraw
    import schemdraw.elements as elm

    nr, nc = len(cp.rows), len(cp.cols)
    dx, dy = 4.0, 3.2
    with schemdraw.Drawing(show=False, canvas="svg") as d:
        d.config(fontsize=9, unit=1.5, lw=1)
        for c in range(nc):
            x = 1.5 + c * dx
            d += elm.Line().at((x, 0.6)).to((x, -(nr - 1) * dy - 2.4))
            d += elm.Label().at((x, 1.3)).label(f"C{c} GP{cp.cols[c]}", fontsize=8)
        for r in range(nr):
            y = -r * dy
            d += elm.Line().at((0, y)).to((nc * dx + 0.5, y))
            d += elm.Label().at((0, y)).label(f"R{r} GP{cp.rows[r]}", loc="left", fontsize=8, ofst=(-0.2, 0))
            for c in range(nc):
                cid = cells.get((r, c))
                if cid is None:
                    continue
                x = 1.5 + c * dx
                y0 = y - 1.7
                d += elm.Dot(radius=0.06).at((x, y0))
                # Column -> switch -> diode -> row: anode at the switch, band at the row.
                sw = elm.Button().at((x, y0)).to((x + 1.6, y0))
                d += sw
                d += elm.Diode().at((x + 1.6, y0)).to((x + 1.6, y))
                d += elm.Dot(radius=0.06).at((x + 1.6, y))
                d += elm.Label().at((x + 0.8, y0 - 0.35)).label(cid, fontsize=7, loc="bottom")
    return normalise_svg(d.get_imagedata("svg").decode("utf-8"))


def analog_svg(hmap: HardwareMap) -> str | None:
    """Each slider as a divider between the ADC's reference and ground, wiper to its input."""
    sliders = sorted((cid, s) for cid, s in hmap.controls.items() if s.reads == "analog")
    if not sliders:
        return None
    import schemdraw
    import schemdraw.elements as elm

    with schemdraw.Drawing(show=False, canvas="svg") as d:
        d.config(fontsize=10, unit=2.5)
        for i, (cid, s) in enumerate(sliders):
            x = i * 11.0
            if s.on == "pico":
                top, bottom, inp = "Pico ADC_VREF (pin 35)", "Pico AGND (pin 33)", \
                    f"Pico GP{PICO_ADC_GP[s.channel]} / ADC{s.channel} (pin {GP_TO_PICO[PICO_ADC_GP[s.channel]]})"
            else:
                top, bottom, inp = "3V3 (MCP3008 VREF)", "GND (MCP3008 AGND)", f"MCP3008 CH{s.channel}"
            d += elm.Vdd().at((x, 0)).label(top, fontsize=8)
            pot = elm.Potentiometer().at((x, 0)).down().label(f"{cid}\n10 kΩ linear", loc="top", fontsize=9)
            d += pot
            d += elm.Ground().at(pot.end).label(bottom, loc="right", fontsize=8)
            w = elm.Line().at(pot.tap).right().length(1.5)
            d += w
            d += elm.Dot()
            d += elm.Capacitor().at(w.end).down().length(1.5).label("100 nF", loc="bottom", fontsize=8)
            d += elm.Ground()
            d += elm.Line().at(w.end).right().length(1.0)
            d += elm.Dot(open=True).label(inp, loc="right", fontsize=8)
    return normalise_svg(d.get_imagedata("svg").decode("utf-8"))


# ---------------------------------------------------------------------------- all of it

_COMMENT = re.compile(r"<!--.*?-->\s*", re.S)
_BLANK = re.compile(r"\n\s*\n")


def normalise_svg(svg: str) -> str:
    """Drop comments (tool versions, titles) and trailing blanks: what is left only changes
    when the drawing does."""
    svg = _COMMENT.sub("", svg)
    svg = _BLANK.sub("\n", svg)
    return svg.strip() + "\n"


def wiring_files(hmap: HardwareMap, layout: Layout) -> dict[str, str]:
    files = {"pinout.md": pinout_md(hmap, layout), "matrix.md": matrix_md(hmap)}
    pi = _pi_harness(hmap, layout)
    files["harness-pi.yml"] = _yaml(pi, hmap)
    files["harness-pi.svg"] = _wireviz_svg(pi)
    pico = _pico_harness(hmap)
    if pico is not None:
        files["harness-pico.yml"] = _yaml(pico, hmap)
        files["harness-pico.svg"] = _wireviz_svg(pico)
    m = matrix_svg(hmap)
    if m is not None:
        files["matrix.svg"] = m
    a = analog_svg(hmap)
    if a is not None:
        files["analog.svg"] = a
    return files


def write_wiring(files: dict[str, str], out: str | Path) -> list[Path]:
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name, text in files.items():
        p = out / name
        p.write_text(text, encoding="utf-8")
        written.append(p)
    return written


STALE, MISSING, NO_LONGER_MADE = "stale", "missing", "no longer made"


def stale_files(files: dict[str, str], out: str | Path) -> dict[str, str]:
    """The generated files that differ from (STALE) or are missing in `out` (MISSING), and
    files there that the map no longer makes (NO_LONGER_MADE): name -> which."""
    out = Path(out)
    stale = {}
    for name, text in files.items():
        p = out / name
        if not p.is_file():
            stale[name] = MISSING
            continue
        have = p.read_text(encoding="utf-8")
        if name.endswith(".svg"):
            have = normalise_svg(have)
        if have != text:
            stale[name] = STALE
    known = set(files)
    for p in sorted(out.glob("*")) if out.is_dir() else []:
        if p.suffix in (".md", ".svg", ".yml") and p.name not in known:
            stale[p.name] = NO_LONGER_MADE
    return stale
