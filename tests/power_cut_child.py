"""The cockpit of a small build, for the power-cut test (tests/test_service_crash.py).

    python tests/power_cut_child.py DB

The real Store and Cockpit with the small build's hardware map on gpiozero MockPins (a
FakeStrip for the pixels): a thread plays the panel as gpiozero's threads deliver its
edges on a Pi (START, then cross buttons, press and release), and the game master pauses
and resumes the turn now and then through the cockpit's own acknowledged call. Nothing
waits for the store but the game master's calls, so entries are decided (judged, lit)
well before they are committed: the parent kills this process at an arbitrary moment
with SIGKILL, which is what a power cut does to entries not yet committed (they were
never written: nothing of them is in the page cache to survive).

Printed, one line each, flushed:
  R <state>            the restored state after start (JSON), before anything is played
  D <match> <seq> <kind> <data>   an entry decided, printed before it is queued for the writer
  C <match> <seq>      entries of that match up to seq were committed (printed after the commit)
  A <match> <seq>      the game master's action at seq was acknowledged (after its call returned)
The parent sends a line on stdin to start the play.
"""

from __future__ import annotations

import asyncio
import json
import random
import sys
import threading
from pathlib import Path

from gpiozero.pins.mock import MockFactory, MockPWMPin

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from panel.hardware.leds import FakeStrip  # noqa: E402
from panel.hardware.map import load_map  # noqa: E402
from panel.core.errors import Refused  # noqa: E402
from panel.service.cockpit import SERVICE_FIELDS, Cockpit  # noqa: E402
from panel.service.hardware_io import HardwareIO  # noqa: E402
from panel.storage.store import Store  # noqa: E402

SMALL = ROOT / "panel" / "maps" / "small.toml"
START, CROSS = 6, (17, 27, 22, 23, 24, 25)  # the small build's START and cross buttons


def say(*parts) -> None:
    sys.stdout.write(" ".join(str(p) for p in parts) + "\n")
    sys.stdout.flush()


class TappedStore(Store):
    """The real store, saying what it was given and what it committed (instrumentation)."""

    def _queue_write(self, kind, *args, **how):
        if kind == "entry":
            mid, e = args
            say("D", mid, e.seq, e.kind, json.dumps(e.data, sort_keys=True))
            if e.kind == "action":
                self.last_action[mid] = e.seq
        return super()._queue_write(kind, *args, **how)

    def _commit(self, db, batch):
        super()._commit(db, batch)
        last = {}
        for w in batch:
            if w.kind == "entry":
                last[w.args[0]] = w.args[1].seq
        for mid, seq in last.items():
            say("C", mid, seq)


def crew(pins: MockFactory, stop: threading.Event, seed: int) -> None:
    """Presses as a crew does, from a thread of its own (gpiozero's callbacks run there)."""
    rng = random.Random(seed)
    while not stop.is_set():
        pin = pins.pin(START if rng.random() < 0.15 else rng.choice(CROSS))
        pin.drive_low()
        stop.wait(rng.uniform(0.015, 0.03))  # held longer than the debounce window
        pin.drive_high()
        stop.wait(rng.uniform(0.015, 0.04))


async def main(db: str) -> None:
    pins = MockFactory(pin_class=MockPWMPin)
    io = HardwareIO(load_map(SMALL), pin_factory=pins, strip=None)
    io.strip = FakeStrip(io.map.neopixel.count, keep=1)
    store = TappedStore(db)
    store.last_action = {}
    cockpit = Cockpit(store, sources=[io], effects=[io], defaults={"turn_seconds": 20})
    await cockpit.start()
    state = cockpit.public_state()
    say("R", json.dumps({k: v for k, v in state.items() if k not in SERVICE_FIELDS}, sort_keys=True),
        state["match_id"])
    loop = asyncio.get_running_loop()
    await loop.run_in_executor(None, sys.stdin.readline)
    stop = threading.Event()
    threading.Thread(target=crew, args=(pins, stop, int.from_bytes(db.encode()[-4:], "big")), daemon=True).start()
    rng = random.Random(7)
    while True:  # until killed
        await asyncio.sleep(rng.uniform(0.05, 0.3))
        if cockpit.match is None or not cockpit.active:
            continue
        name = "pause" if cockpit.match.phase.value == "in_turn" else "resume"
        try:
            await cockpit.action(name, {})
        except Refused:
            continue
        say("A", cockpit.record.id, store.last_action[cockpit.record.id])  # only this loop acts


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
