# The board's wiring and timing, kept in config.json on the board. The Pi writes it from
# the hardware map (`penguin-panel firmware install`, or the CFG command over the link),
# so nobody edits firmware code to change the wiring. Shared by the board and the Pi:
# both validate with the same function. MicroPython-compatible subset only.

MAX_ROWS = 8
MAX_COLS = 12
GPIO_PINS = 30       # RP2040: GP0..GP29
ADC_PINS = (26, 27, 28)  # GP29 reads VSYS/3 on a Pico, not a panel control

DEFAULTS = {
    "rows": [],             # GPIO numbers driven low one at a time (open drain)
    "cols": [],             # GPIO numbers read with pull-ups; diodes point column -> row
    "adc": [],              # GPIO numbers of ADC inputs (26, 27, 28)
    "encoders": [],         # [[pin_a, pin_b], ...] quadrature, pull-ups
    "encoder_div": 4,       # quadrature steps per detent reported as one position
    "diodes": True,         # False: keys that could be ghosts are held back (see PROTOCOL.md)
    "scan_hz": 1000,        # matrix scans per second
    "release_ms": 5,        # a key must read open this long before it is released
    "settle_us": 10,        # wait after driving a row before reading the columns
    "adc_oversample": 16,   # readings averaged per sample
    "adc_deadband": 8,      # change (of 0..4095) needed before a new value is reported
    "heartbeat_ms": 250,    # BEAT interval; the Pi calls the board silent after 1 s
    "wdt_ms": 2000,         # watchdog: a hung board resets itself after this
}

_LIMITS = {
    "encoder_div": (1, 16), "scan_hz": (100, 5000), "release_ms": (1, 100),
    "settle_us": (0, 200), "adc_oversample": (1, 64), "adc_deadband": (1, 512),
    "heartbeat_ms": (50, 5000), "wdt_ms": (100, 8000),  # RP2040 watchdog max ~8.3 s
}


def _is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def validate(cfg):
    """Problems with a config dict, as 'key: reason' strings (empty list if none)."""
    problems = []
    if not isinstance(cfg, dict):
        return ["config: must be a JSON object"]
    for key in cfg:
        if key not in DEFAULTS:
            problems.append(key + ": unknown setting")
    used = {}

    def pin(key, p, allowed=None):
        if not _is_int(p) or p < 0 or p >= GPIO_PINS:
            problems.append(key + ": " + repr(p) + " is not a GPIO number 0-29")
            return
        if allowed is not None and p not in allowed:
            problems.append(key + ": GP" + str(p) + " has no ADC (use 26, 27 or 28)")
            return
        if p in used:
            problems.append(key + ": GP" + str(p) + " is already used by " + used[p])
            return
        used[p] = key

    for key, most, allowed in (("rows", MAX_ROWS, None), ("cols", MAX_COLS, None), ("adc", 3, ADC_PINS)):
        v = cfg.get(key, DEFAULTS[key])
        if not isinstance(v, list):
            problems.append(key + ": must be a list of GPIO numbers")
            continue
        if len(v) > most:
            problems.append(key + ": at most " + str(most) + ", got " + str(len(v)))
        for p in v:
            pin(key, p, allowed)
    rows = cfg.get("rows", [])
    cols = cfg.get("cols", [])
    if isinstance(rows, list) and isinstance(cols, list) and (len(rows) == 0) != (len(cols) == 0):
        problems.append("rows: a matrix needs both rows and cols")
    enc = cfg.get("encoders", [])
    if not isinstance(enc, list):
        problems.append("encoders: must be a list of [pin_a, pin_b] pairs")
    else:
        for e in enc:
            if not isinstance(e, list) or len(e) != 2:
                problems.append("encoders: " + repr(e) + " is not a [pin_a, pin_b] pair")
                continue
            pin("encoders", e[0])
            pin("encoders", e[1])
    if not isinstance(cfg.get("diodes", True), bool):
        problems.append("diodes: must be true or false")
    for key in _LIMITS:
        if key in cfg:
            v = cfg[key]
            lo, hi = _LIMITS[key]
            if not _is_int(v) or v < lo or v > hi:
                problems.append(key + ": must be a whole number from " + str(lo) + " to " + str(hi))
    hb = cfg.get("heartbeat_ms", DEFAULTS["heartbeat_ms"])
    wdt = cfg.get("wdt_ms", DEFAULTS["wdt_ms"])
    if _is_int(hb) and _is_int(wdt) and wdt <= hb:
        problems.append("wdt_ms: must be longer than heartbeat_ms")
    return problems


def complete(cfg):
    """cfg with every default filled in (cfg itself is not changed)."""
    out = {}
    for k in DEFAULTS:
        v = cfg.get(k, DEFAULTS[k]) if cfg else DEFAULTS[k]
        out[k] = list(v) if isinstance(v, list) else v
    return out


def canonical(v):
    """JSON text with sorted keys and no spaces. MicroPython's json.dumps cannot sort
    keys, and both ends must produce the same bytes to compare configs by checksum."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if _is_int(v):
        return str(v)
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(v, (list, tuple)):
        return "[" + ",".join([canonical(x) for x in v]) + "]"
    if isinstance(v, dict):
        return "{" + ",".join([canonical(str(k)) + ":" + canonical(v[k]) for k in sorted(v)]) + "}"
    if v is None:
        return "null"
    raise ValueError("cannot write " + repr(v))
