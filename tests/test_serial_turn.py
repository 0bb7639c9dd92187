"""A whole turn played through the emulated board -> pty -> SerialLink -> the real Cockpit
(its SQLite log, its engine, a connected page), the way the service wires it: the crew
walks up and presses START on the board's matrix, completes five cards (keys on the
board, tokens on the screen: the Pi's own pins are not part of this test), and the cable
is pulled out in the middle while a key is held."""

import asyncio

from panel.games.airlines.bot import BotCrew
from panel.hardware.map import MAPS_DIR, load_map
from panel.core.layout_file import load_layout
from panel.link.emulator import FirmwareEmulator
from play_helpers import board_cockpit
from waiting import describe, until

TIMEOUT = 30  # seconds: a bound for a loaded machine, never a measurement


class Page:
    """A page's socket as the cockpit sees one; wakes whoever waits for a message."""

    view = "board"

    def __init__(self):
        self.events: list[dict] = []
        self.changed = asyncio.Event()

    def send(self, message: dict) -> None:
        if message["type"] == "event":
            self.events.append(message["event"])
        self.changed.set()

    def count(self, kind: str) -> int:
        return sum(1 for e in self.events if e["type"] == kind)

    async def until(self, predicate) -> None:
        await until(predicate, changed=self.changed, guard=TIMEOUT,
                    what=lambda: f"{describe(predicate)}; the page's events: {[e['type'] for e in self.events]}")


async def tap(emu, cell) -> None:
    emu.press(*cell)
    await asyncio.to_thread(emu.wait_scans, 3)
    emu.release(*cell)
    await asyncio.to_thread(emu.wait_scans, 8)


async def play_turn(tmp_path, emu, hmap):
    layout = load_layout(expansion=True)
    cells = {control: cell for cell, control in hmap.matrix_cells().items()}
    page = Page()
    # The turn's clock is not what this test is about: on a loaded machine five cards
    # through the emulated board can take longer than the default 30 s turn.
    defaults = {"turn_seconds": 600}
    # The emulated board shares a busy machine: it must not pass for a silent board (the
    # pulled cable is noticed at once anyway, by the port's read failing).
    async with board_cockpit(tmp_path / "panel.db", emu, hmap, layout, page=page,
                             link_options={"silence_timeout": 60.0, "handshake_timeout": 30.0},
                             defaults=defaults) as (cockpit, io, store):
        # The board's sliders are reported once their first reading has settled: the crew
        # walks up after that (as people do), or the settling would land in the turn and
        # undo a slider the crew has just set on the screen.
        sliders = [c for c in io.devices if c in layout.tokens and c.startswith("slider.")]
        await page.until(lambda: all(io.devices[c].value is not None for c in sliders))
        await tap(emu, cells["cockpit.start"])         # walk-up: a match is set up, its turn starts
        await page.until(lambda: page.count("card_drawn") == 1)
        for n in range(5):
            card = cockpit.match.snapshot(cockpit.now())["card"]
            for e in BotCrew(cockpit.match, accuracy=1.0).inputs_for_card(card, 0.0):
                if e.control in cells:
                    if e.value is True:
                        await tap(emu, cells[e.control])
                else:
                    await cockpit.input(e.control, e.value)  # a token, moved on the screen
            await page.until(lambda: page.count("card_completed") == n + 1)
            if n == 1:
                # The cable comes out mid-turn: the turn pauses. While it is out the crew
                # leans on a key that is on no card of this test and keeps it held: the
                # snapshot reports it when the board is back, while the turn is still
                # paused, so it is never judged as a press (it would be a mistake).
                emu.unplug()
                await page.until(lambda: page.count("paused") == 1)
                now_drawn = str(cockpit.match.snapshot(cockpit.now())["card"])  # the card the crew plays next
                held = next(c for c in sorted(cells) if c.startswith("grid.") and c not in now_drawn)
                emu.press(*cells[held])
                emu.replug()
                await page.until(lambda: page.count("resumed") == 1)
                # Let go, and seen let go by the board's scan before anything else is
                # pressed (a later card may ask for this key: a finger needs longer than
                # one scan to lift and press again).
                emu.release(*cells[held])
                await asyncio.to_thread(emu.wait_scans, 8)
        await page.until(lambda: page.count("turn_ended") == 1)
        logged = [(e.kind, e.data) for e in store.entries(cockpit.record.id)]
        return page, io.status(), logged, cockpit.match.snapshot(cockpit.now())


def test_a_whole_turn_through_the_emulated_board(tmp_path):
    m = tmp_path / "map.toml"
    # START on a free cell of the board's matrix instead of its Pi GPIO.
    m.write_text((MAPS_DIR / "reference.toml").read_text().replace("start = { gpio = 3 }", "start = { matrix = [7, 9] }"))
    hmap = load_map(m)
    with FirmwareEmulator(hmap.board().firmware_config) as emu:
        page, status, logged, snap = asyncio.run(play_turn(tmp_path, emu, hmap))
    types = [e["type"] for e in page.events]
    assert types.count("card_completed") == 5 and types.count("mistake") == 0
    ended = next(e for e in page.events if e["type"] == "turn_ended")
    assert ended["reason"] == "five_cards" and ended["points"] >= 5
    assert types.index("paused") < types.index("resumed") < types.index("turn_ended")
    assert ("input", {"control": "cockpit.start", "value": True}) in logged
    assert ("action", {"name": "pause", "params": {"reason": "link"}}) in logged
    assert ("action", {"name": "resume", "params": {"reason": "link"}}) in logged
    assert status["connected"] and status["reconnects"] == 1 and status["frames_rejected"] == 0, status["last_rejected"]
    assert max(snap["scores"].values()) >= 5
