"""A whole turn played through the emulated board -> pty -> SerialLink -> asyncio loop ->
engine, the way the service wires it: the crew starts the turn with the panel's START
key, completes five cards on the grid, and the cable is pulled out in the middle."""

import asyncio

from panel.cards import Card
from panel.engine import Match, MatchSettings, Team
from panel.layout import load_layout
from panel.link import SerialLink, link_action
from panel.link.emulator import FirmwareEmulator

# 4 x 4 matrix: the 12 grid buttons on rows 0-2, START and FLIP on row 3.
CFG = {"rows": [2, 3, 4, 5], "cols": [10, 11, 12, 13]}
MATRIX = {(r - 1, c - 1): f"grid.r{r}c{c}" for r in (1, 2, 3) for c in (1, 2, 3, 4)}
MATRIX[(3, 0)] = "cockpit.start"
MATRIX[(3, 1)] = "cockpit.flip"
CELL = {v: k for k, v in MATRIX.items()}
CARDS = [Card("simple", press=(a, b)) for a, b in [("grid.r1c1", "grid.r2c2"), ("grid.r1c3", "grid.r3c4"),
                                                  ("grid.r2c1", "grid.r1c2"), ("grid.r3c3", "grid.r2c4"),
                                                  ("grid.r3c1", "grid.r1c4"), ("grid.r2c3", "grid.r3c2")]]


class Service:
    """The service's wiring in miniature: one asyncio loop owns the engine."""

    def __init__(self, emu):
        self.loop = asyncio.get_running_loop()
        self.queue: asyncio.Queue = asyncio.Queue()
        settings = MatchSettings(mode="competitive", teams=[Team("Ice", ["ann", "bob"]), Team("Snow", ["cid", "dee"])],
                                 turn_seconds=60, seed=1)
        self.match = Match(settings, load_layout(), cards=CARDS, shuffle=False)
        self.game: list = []
        self.statuses: list = []
        self.changed = asyncio.Event()
        put = lambda item: self.loop.call_soon_threadsafe(self.queue.put_nowait, item)  # noqa: E731
        self.link = SerialLink(MATRIX, finder=lambda: [emu.port] if emu.port else [], on_event=put, on_status=put)

    async def run(self):
        while True:
            item = await self.queue.get()
            if isinstance(item, dict):
                self.statuses.append(item)
                events = self.match.handle(link_action(item, self.loop.time()))
            else:
                events = self.match.handle(item)
            self.game += events
            self.changed.set()

    async def until(self, pred, timeout=15):
        async def wait():
            while not pred():
                self.changed.clear()
                await self.changed.wait()
        await asyncio.wait_for(wait(), timeout)

    def count(self, kind):
        return sum(1 for e in self.game if e.type == kind)


async def tap(emu, svc, control):
    emu.press(*CELL[control])
    await asyncio.to_thread(emu.wait_scans, 3)
    emu.release(*CELL[control])
    await asyncio.to_thread(emu.wait_scans, 8)


async def play_turn(emu):
    svc = Service(emu)
    runner = asyncio.create_task(svc.run())
    with svc.link:
        await svc.until(lambda: any(s["state"] == "connected" for s in svc.statuses))
        await tap(emu, svc, "cockpit.start")
        await svc.until(lambda: svc.count("card_drawn") == 1)
        for n in range(5):
            card = svc.match.snapshot()["card"]
            for control in card["press"]:
                await tap(emu, svc, control)
            await svc.until(lambda: svc.count("card_completed") == n + 1)
            if n == 1:
                # The cable comes out mid-turn: the turn pauses. While it is out the crew
                # leans on a button that is not on the card and keeps it held: the snapshot
                # reports it when the board is back, while the turn is still paused, so it
                # is never judged as a press (it would be a mistake).
                emu.unplug()
                await svc.until(lambda: svc.count("paused") == 1)
                emu.press(*CELL["grid.r3c4"])
                emu.replug()
                await svc.until(lambda: svc.count("resumed") == 1)
                emu.release(*CELL["grid.r3c4"])
        await svc.until(lambda: svc.count("turn_ended") == 1)
        runner.cancel()
        return svc


def test_a_whole_turn_through_the_emulated_board():
    with FirmwareEmulator(CFG) as emu:
        svc = asyncio.run(play_turn(emu))
    types = [e.type for e in svc.game]
    assert types.count("card_completed") == 5 and types.count("mistake") == 0
    ended = next(e for e in svc.game if e.type == "turn_ended")
    assert ended.details["reason"] == "five_cards"
    assert ended.details["points"] >= 5
    assert types.index("paused") < types.index("resumed") < types.index("turn_ended")
    assert [s["state"] for s in svc.statuses] == ["connected", "disconnected", "connected"]
    assert svc.statuses[-1]["reconnects"] == 1 and svc.statuses[-1]["frames_rejected"] == 0
    assert svc.match.snapshot()["scores"]["Ice"] >= 5
