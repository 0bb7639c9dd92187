"""A whole turn played through the real Cockpit on the small build's MockPins: START with
bounce, three cards completed by a crew that moves the wired controls on their pins (the
MCP3008's sliders through its mock SPI chip) and clicks the cardboard ones on the screen,
a mistake, FLIP, the last five seconds and the time running out. Every input is logged
in a real SQLite file before it is judged; the pixels, the buzzer's notes and what a
page receives are asserted.

The loop runs on a virtual clock (aiotools.VirtualClock): asyncio's sleeps and timeouts
pass at once in order, so the turn's 30 seconds, the 50 ms frames and the debounce
windows happen at exact moments, whatever the machine's load.
"""

from __future__ import annotations

import asyncio

import pytest
from aiotools import VirtualClock

from panel.games.airlines.bot import BotCrew
from panel.core.events import InputEvent
from panel.hardware.leds import FakeStrip
from panel.hardware.map import AdcSource, EncoderSource, GpioSource, PinPairSource, load_map
from panel.games.airlines.show import AMBER, GREEN, OFF, RED, TEAM_COLOURS, WHITE
from panel.service.cockpit import Cockpit
from panel.service.hardware_io import HardwareIO
from panel.storage.store import Store
from mcp3008_chip import MockMCP3008
from pin_tools import Clock, factory, level, turn

PENGUINS, PUFFINS = TEAM_COLOURS[0], TEAM_COLOURS[1]
TEAMS = [{"name": "Penguins", "players": ["Ana", "Ben"]}, {"name": "Puffins", "players": ["Cy", "Di"]}]
# the small build's pins (panel/maps/small.toml) and pixels
FLIP, START, BUZZER = 5, 6, 12
RING, COUNTERS, MISTAKES, PROGRESS = range(0, 16), range(16, 20), range(20, 22), range(22, 27)
LED = {"cockpit.flip": 27, "cockpit.start": 28, "cross.up": 29, "cross.down": 30, "cross.left": 31,
       "cross.right": 32, "cross.red": 33, "cross.ok": 34}


class Page:
    """A page's socket as the cockpit sees one: it records every message."""

    view = "board"

    def __init__(self):
        self.messages: list[dict] = []

    def send(self, message: dict) -> None:
        self.messages.append(message)

    def events(self, kind: str | None = None) -> list[dict]:
        return [m["event"] for m in self.messages if m["type"] == "event" and kind in (None, m["event"]["type"])]


class VirtualTimeStore(Store):
    """The real store, its commits awaited by blocking the loop: on the virtual clock the
    loop must not wait for the writer's thread, since every turn of a waiting loop moves
    virtual time on to its next timer (a frame, a tick) while the real fsync runs."""

    async def flushed(self) -> None:
        self.sync()


class Cafe:
    """The small build on mock pins, the cockpit owning the match, and the crew's hands."""

    def __init__(self, tmp_path, *, store: Store | None = None, strip: FakeStrip | None = None):
        self.pins = factory()
        self.chip = MockMCP3008(pin_factory=self.pins)
        loop = asyncio.get_running_loop()
        hmap = load_map("small")
        strip = strip or FakeStrip(hmap.neopixel.count)
        self.io = HardwareIO(hmap, pin_factory=self.pins, strip=strip, clock=loop.time)
        self.store = store or VirtualTimeStore(tmp_path / "panel.db")
        self.cockpit = Cockpit(self.store, sources=[self.io], effects=[self.io], clock=loop.time)
        self.page = Page()

    async def __aenter__(self) -> "Cafe":
        await self.cockpit.start()
        self.cockpit.subscribe(self.page)
        await self.cockpit.create_match({"teams": TEAMS, "turn_seconds": 30, "seed": 1})
        return self

    async def __aexit__(self, *exc) -> None:
        await self.cockpit.close()
        self.store.close()
        self.chip.close()
        self.pins.reset()

    @property
    def strip(self) -> FakeStrip:
        return self.io.effects.strip

    @property
    def notes(self) -> list[float]:
        return self.pins.pin(BUZZER).notes

    def now(self) -> float:
        return self.cockpit.now()

    async def at(self, t: float) -> None:
        """Let match time run to `t`."""
        await asyncio.sleep(max(0.0, t - self.now()))

    async def contact(self, pin: int, closed: bool, bounces=(0.001, 0.003)) -> None:
        """A contact moved by a hand: the first edge now, then it bounces and settles."""
        p, start = self.pins.pin(pin), self.now()
        level(p, closed)
        for k, dt in enumerate(bounces):
            await self.at(start + dt)
            level(p, closed if k % 2 else not closed)

    async def press(self, pin: int, hold: float = 0.15) -> None:
        await self.contact(pin, True, (0.001, 0.003, 0.006, 0.008))
        await asyncio.sleep(hold)
        await self.contact(pin, False, (0.002, 0.004))
        await asyncio.sleep(0.05)

    async def do(self, e: InputEvent) -> None:
        """One input of the crew: a wired control moved on its pins, or an unwired one
        clicked on the screen (the small build leaves most of the panel cardboard)."""
        await self.at(e.t)
        cid, hmap = e.control, self.io.map
        if cid not in self.io.inputs:
            await self.cockpit.input(cid, e.value)
            return
        s, c = hmap.controls[cid], self.io.layout.control(cid)
        if isinstance(s, GpioSource):
            await self.contact(s.pin, e.value is True or e.value == (s.positions_of(c) or ("", ""))[1])
        elif isinstance(s, PinPairSource):
            for k, pin in enumerate(s.pins):
                level(self.pins.pin(pin), s.closed_position(k, c) == e.value)
        elif isinstance(s, EncoderSource):
            detents = (c.positions.index(e.value) - c.positions.index(self.io.inputs[cid].value)) * s.steps_per_position
            turn(self.pins.pin(s.pins[0]), self.pins.pin(s.pins[1]), Clock(), detents, at=0.0)
        elif isinstance(s, AdcSource):
            lo, hi = s.calibration
            self.chip.values[s.channel] = lo + (hi - lo) * (c.positions.index(e.value) + 0.5) / len(c.positions)

    async def play_card(self) -> None:
        card = self.cockpit.match.snapshot(self.now())["card"]
        done = len(self.page.events("card_completed"))
        for e in BotCrew(self.cockpit.match, accuracy=1.0, seed=1, pace=0.3).inputs_for_card(card, self.now()):
            await self.do(e)
        await asyncio.sleep(1.0)  # a slider settles (150 ms), then a token holds (500 ms)
        assert len(self.page.events("card_completed")) == done + 1, card

    def wired_button_off(self, card: dict) -> str:
        """A wired cross button whose press is a mistake on this card."""
        bad = set(card.get("press", [])) if card["kind"] == "simple" else \
            set(self.io.layout.sections[card["section"]].controls) if card.get("section") else set()
        return next(b for b in ("cross.left", "cross.up", "cross.down", "cross.right", "cross.red")
                    if b not in bad)


def px(frame, pixels):
    return [frame[i] for i in pixels]


def test_a_whole_turn_through_the_pins_and_the_cockpit(tmp_path):
    async def scenario():
        with VirtualClock().patch_loop():
            async with Cafe(tmp_path) as c:
                await c.at(1.0)
                f = c.strip.last
                assert px(f, RING) == [tuple(round(x * 0.15) for x in PENGUINS)] * 16   # dim team colour
                assert f[LED["cockpit.start"]] == GREEN

                # START (with chatter): one turn, judged at the first edge; a flash and a chirp
                await c.at(2.0)
                await c.press(START)
                assert [e["type"] for e in c.page.events()] == ["turn_started", "card_drawn"]
                assert c.page.events("turn_started")[0]["t"] == pytest.approx(2.0)
                assert px(c.strip.frames[-1], RING) == [PENGUINS] * 16
                assert c.notes == [880.0, 1318.5]
                await c.at(3.5)
                f = c.strip.last
                assert px(f, RING)[:15] == [PENGUINS] * 15 and f[LED["cockpit.start"]] == OFF

                # card 1: the crew carries it out; a counter, the progress pixel flashes
                await c.play_card()
                assert len(c.page.events("counter_granted")) == 1
                assert c.notes[-2:] == [1318.5, 1760.0]
                assert px(c.strip.last, COUNTERS) == [AMBER, OFF, OFF, OFF]
                assert c.strip.last[LED["cockpit.flip"]] == AMBER         # a counter to spend
                await asyncio.sleep(0.5)
                assert px(c.strip.last, PROGRESS) == [GREEN, OFF, OFF, OFF, OFF]

                # card 2, then a wrong wired button: a mistake, that button stuck and red
                await c.play_card()
                card = c.cockpit.match.snapshot(c.now())["card"]
                wrong = c.wired_button_off(card)
                await c.press(c.io.map.controls[wrong].pin)
                mistakes = c.page.events("mistake")
                assert len(mistakes) == 1 and mistakes[0]["control"] == wrong
                await asyncio.sleep(0.6)
                assert c.notes[-2:] == [329.6, 246.9]
                await asyncio.sleep(1.0)                                  # after the mistake cue: steady
                assert px(c.strip.last, MISTAKES) == [RED, OFF]
                assert c.strip.last[LED[wrong]] == RED
                await c.play_card()
                assert px(c.strip.last, PROGRESS) == [GREEN, GREEN, GREEN, OFF, OFF]

                # FLIP: a counter spent, the timer full again
                await asyncio.sleep(1.0)
                flipped = c.now()                                         # judged at the first edge
                await c.contact(FLIP, True)
                assert len(c.page.events("counter_spent")) == 1
                await c.contact(FLIP, False)
                assert c.cockpit.match.snapshot(flipped + 0.2)["time_left"] == pytest.approx(30 - 0.2)

                # the last five seconds: a tick each second, the ring blinking red with it
                await c.at(flipped + 25.2)                                # 4.8 s left: on
                lit = px(c.strip.last, RING)
                assert lit[0] == RED and all(p[1] == 0 and p[2] == 0 for p in lit)
                await c.at(flipped + 25.7)                                # 4.3 s left: off
                assert px(c.strip.last, RING) == [OFF] * 16
                await c.at(flipped + 29.99)
                assert [s for _, s in c.io.effects.sounds].count("tick") == 5

                # time runs out: the turn ends with its sound and white flashes; the next team waits
                await c.at(flipped + 30.1)
                ended = c.page.events("turn_ended")
                assert len(ended) == 1 and ended[0]["t"] == pytest.approx(flipped + 30)
                assert ended[0]["reason"] == "time" and ended[0]["points"] == 3
                assert px(c.strip.last, RING) == [WHITE] * 16
                await c.at(flipped + 31.0)
                assert c.notes[-3:] == [1760.0, 1318.5, 880.0]
                await c.at(flipped + 32.0)
                f = c.strip.last
                assert f[LED["cockpit.start"]] == GREEN
                assert px(f, RING) == [tuple(round(x * 0.15) for x in PUFFINS)] * 16
                assert c.cockpit.match.scores["Penguins"] == 3
                buzzer = c.pins.pin(BUZZER)
                assert buzzer.frequency is None or buzzer.state == 0    # nothing left sounding

                # the log is the truth: every press and move is in it, the flip by its pin
                logged = [(e.kind, e.data) for e in c.store.entries(c.cockpit.record.id)]
                assert ("input", {"control": "cockpit.start", "value": True}) in logged
                assert ("input", {"control": "cockpit.flip", "value": True}) in logged
                assert ("input", {"control": wrong, "value": True}) in logged

    asyncio.run(scenario())


class Told(list):
    """In order: each write queued in the store (and whether the writer was told of it
    then), the writer told later, each LED frame written."""


class WatchedStore(VirtualTimeStore):
    def __init__(self, path, told: Told):
        super().__init__(path)
        self.told = told

    def _queue_write(self, kind, *args, wake=True, **how):
        self.told.append(f"{kind} queued" + (", writer told" if wake else ""))
        return super()._queue_write(kind, *args, wake=wake, **how)

    def wake_writer(self):
        if self._wake_owed:
            self.told.append("writer told")
        super().wake_writer()


class WatchedStrip(FakeStrip):
    def __init__(self, count, told: Told):
        super().__init__(count)
        self.told = told

    def write(self, frame):
        super().write(frame)
        self.told.append("frame")


def test_a_press_s_entry_goes_to_the_store_once_its_light_is_out(tmp_path):
    """START is judged (its light shows the turn started) before its log entry is handed
    to the store and the store's writer thread woken for it: neither is part of the
    press's answer. The entry is in the log once the press is taken."""
    async def scenario():
        told = Told()
        with VirtualClock().patch_loop():
            store = WatchedStore(tmp_path / "panel.db", told)
            async with Cafe(tmp_path, store=store, strip=WatchedStrip(load_map("small").neopixel.count, told)) as c:
                await c.at(1.0)
                store.sync()  # the match's set-up committed: the writer sleeps until told
                told.clear()
                level(c.pins.pin(START), True)
                assert c.page.events("turn_started")  # judged on the edge's own turn of the loop
                assert px(c.strip.last, RING) == [PENGUINS] * 16
                assert told[:3] == ["frame", "entry queued", "writer told"], told
                assert ("input", {"control": "cockpit.start", "value": True}) in \
                    [(e.kind, e.data) for e in store.entries(c.cockpit.record.id)]

    asyncio.run(scenario())


def test_nothing_is_judged_between_turns_but_the_panel_is_live(tmp_path):
    async def scenario():
        with VirtualClock().patch_loop():
            async with Cafe(tmp_path) as c:
                await c.at(1.0)
                await c.press(c.io.map.controls["cross.left"].pin)
                await c.contact(c.io.map.controls["switch.left"].pin, True)
                await c.at(2.0)
                assert c.page.events() == []
                assert c.cockpit.match.snapshot(c.now())["positions"]["switch.left"] == "up"
                logged = [(e.kind, e.data) for e in c.store.entries(c.cockpit.record.id)]
                assert ("input", {"control": "switch.left", "value": "up"}) in logged

    asyncio.run(scenario())
