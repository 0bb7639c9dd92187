"""The co-processor through the service: the reference build's matrix and slider on an
emulated Pico over a real pty, read by the real SerialLink inside the cockpit, judged by
the engine, logged in a real SQLite file; a pulled cable pauses the turn."""

import asyncio
from pathlib import Path

import pytest

from panel.games.airlines.engine import Phase
from panel.firmware import protocol
from panel.hardware.map import load_map
from panel.core.layout_file import load_layout
from panel.link.emulator import FirmwareEmulator
from panel.core.errors import Refused
from play_helpers import board_cockpit
from teams import TEAMS
from waiting import describe, until

REFERENCE = Path(__file__).resolve().parent.parent / "panel" / "maps" / "reference.toml"


def test_board_presses_sliders_and_a_pulled_cable_reach_the_match(tmp_path):
    hmap = load_map(REFERENCE)
    cells = {control: cell for cell, control in hmap.matrix_cells().items()}
    layout = load_layout(expansion=True)

    async def scenario(emu):
        async with board_cockpit(tmp_path / "panel.db", emu, hmap, layout) as (cockpit, io, store):
            await cockpit.create_match({"teams": TEAMS, "seed": 3})
            await cockpit.action("start_turn", {})
            card = cockpit.match.snapshot()["card"]
            wrong = next(c for c in sorted(cells) if c.startswith("grid.") and c not in card.get("press", []))
            emu.press(*cells[wrong])
            await asyncio.to_thread(emu.wait_scans, 3)
            emu.release(*cells[wrong])
            assert await until(lambda: cockpit.match.snapshot()["mistakes"] == 1)
            assert cockpit.match.snapshot()["stuck"] == wrong

            # Half-way on the blue slider (calibrated 0.02..0.98 in the map): position "2".
            emu.set_adc(0, 32768)
            assert await until(lambda: cockpit.match.positions["slider.blue"] == "2")

            emu.unplug()
            assert await until(lambda: cockpit.match.phase is Phase.PAUSED)
            assert "link" in cockpit.match.snapshot()["paused_for"]
            assert cockpit.public_state()["link"]["connected"] is False
            try:  # the game master's Resume cannot lift it, and the page is told why
                await cockpit.action("resume", {})
                raise AssertionError("resume was accepted while the link is lost")
            except Refused as e:
                assert e.status == 409 and "link is lost" in str(e)
            emu.replug()
            assert await until(lambda: cockpit.match.phase is Phase.IN_TURN)
            status = cockpit.public_state()["link"]
            assert status["connected"] and status["reconnects"] == 1 and status["frames_rejected"] == 0
            logged = [(e.kind, e.data) for e in store.entries(cockpit.record.id)]
            assert ("input", {"control": wrong, "value": True}) in logged
            assert ("action", {"name": "pause", "params": {"reason": "link"}}) in logged
            assert ("action", {"name": "resume", "params": {"reason": "link"}}) in logged
        assert io.link is None

    with FirmwareEmulator(hmap.board().firmware_config) as emu:
        asyncio.run(scenario(emu))


TIMEOUT = 60  # seconds: a bound against a hang on a loaded machine, never a measurement


class Page:
    """A board page's socket as the cockpit sees one: keeps the last state, wakes waiters."""

    view = "board"

    def __init__(self):
        self.state: dict = {}
        self.changed = asyncio.Event()

    def send(self, message: dict) -> None:
        if message["type"] == "state":
            self.state = message["state"]
            self.changed.set()

    async def until(self, predicate) -> None:
        await until(lambda: predicate(self.state), changed=self.changed, guard=TIMEOUT,
                    what=lambda: f"{describe(predicate)}; the page's last state: {self.state}")


def paused_for_link(state) -> bool:
    return not state["link"]["connected"] and state["phase"] == "paused" and "link" in state["paused_for"]


def playing(state) -> bool:
    return state["link"]["connected"] and state["phase"] == "in_turn"


@pytest.mark.slow  # a soak: six link losses, each noticed after the silence timeout
def test_unplugs_hangs_and_garbage_pause_the_turn_and_lose_no_move(tmp_path, caplog):
    """The soak's co-processor faults, a few of each (benchmarks/soak.py runs them all day):
    the cable pulled, the board hung with its port open, the board hung while garbage and
    frames with 330-digit numbers keep arriving. Each time the page is told the link is
    lost and the turn pauses; once the board is back the turn resumes; every move of the
    board's slider the page showed is in the log, in order; odd frames from a working board
    are counted and change nothing; no traceback is logged."""
    hmap = load_map(REFERENCE)
    layout = load_layout(expansion=True)
    positions = layout.control("slider.red").positions
    u16 = {p: int(hmap.controls["slider.red"].reading_at(positions, p) * 65535) for p in positions}
    red = next(ch for ch, control in hmap.board().adc.items() if control == "slider.red")

    async def scenario(emu):
        page = Page()
        async with board_cockpit(tmp_path / "panel.db", emu, hmap, layout, link_options={"silence_timeout": 2.0},
                                 page=page) as (cockpit, io, store):
            await cockpit.create_match({"teams": TEAMS, "seed": 3, "turn_seconds": 600})
            await cockpit.action("start_turn", {})
            moved = []

            async def move(n):
                to = positions[(positions.index(cockpit.match.positions["slider.red"]) + n) % len(positions)]
                emu.set_adc(red, u16[to])
                await page.until(lambda s: s["positions"]["slider.red"] == to)
                moved.append(to)

            async def garbage(until_silent):
                while not until_silent.is_set():
                    emu.send_raw(b"\x00\xffnot a frame\n" + protocol.encode(9, "BEAT", ["t=" + "9" * 330]))
                    await asyncio.sleep(0.05)  # a stream of bytes, not a barrier

            for cycle in range(2):
                for fault in ("unplug", "hang", "garbage"):
                    await move(1 + cycle)
                    silent = asyncio.Event()
                    if fault == "unplug":
                        emu.unplug()
                    else:
                        emu.hang()
                        if fault == "garbage":
                            spray = asyncio.create_task(garbage(silent))
                    await page.until(paused_for_link)
                    silent.set()
                    if fault == "garbage":
                        await spray
                    if fault == "unplug":
                        emu.replug()
                    else:
                        emu.reset()  # the board's watchdog
                    await page.until(playing)
            # A working board's odd frames (a number of 330 digits, a torn line) are
            # counted and dropped: the link stays up and the next move arrives.
            before = io.status()["frames_rejected"]
            emu.send_raw(protocol.encode(7, "DOWN", ["0", "0", "t=" + "9" * 400]) + b"@@@ torn\n")
            assert await io.sync()
            assert io.status()["frames_rejected"] >= before + 2 and io.status()["connected"]
            await move(1)
            status = io.status()
            assert status["disconnects"] >= 6 and status["link_errors"] == 0
            logged = [(e.kind, e.data) for e in store.entries(cockpit.record.id)]
            it = iter(d["value"] for k, d in logged if k == "input" and d["control"] == "slider.red")
            assert all(any(p == q for q in it) for p in moved), (moved, logged)
            pauses = logged.count(("action", {"name": "pause", "params": {"reason": "link"}}))
            resumes = logged.count(("action", {"name": "resume", "params": {"reason": "link"}}))
            assert pauses == resumes >= 6
            assert cockpit.match.phase is Phase.IN_TURN

    with FirmwareEmulator(hmap.board().firmware_config, watchdog=False) as emu:
        asyncio.run(scenario(emu))
    assert "Traceback" not in caplog.text and not any(r.exc_info for r in caplog.records)


def test_a_turn_started_while_the_link_is_lost_waits_for_the_panel(tmp_path):
    """START on the Pi's own pins while the co-processor's cable is out: the turn does not
    run with half the panel dead; it is paused for the link at once, and runs when the
    board is back."""
    hmap = load_map(REFERENCE)
    layout = load_layout(expansion=True)

    async def scenario(emu):
        page = Page()
        async with board_cockpit(tmp_path / "panel.db", emu, hmap, layout, page=page) as (cockpit, io, store):
            await cockpit.create_match({"teams": TEAMS, "seed": 3, "turn_seconds": 600})
            emu.unplug()
            await page.until(lambda s: not s["link"]["connected"])
            await cockpit.action("start_turn", {})
            assert paused_for_link(cockpit.public_state())
            emu.replug()
            await page.until(playing)
            logged = [(e.kind, e.data["name"], e.data["params"].get("reason")) for e in store.entries(cockpit.record.id)
                      if e.kind == "action"]
            assert logged[-3:] == [("action", "start_turn", None), ("action", "pause", "link"),
                                   ("action", "resume", "link")]

    with FirmwareEmulator(hmap.board().firmware_config) as emu:
        asyncio.run(scenario(emu))


def test_a_turn_resumed_after_a_restart_while_the_link_is_lost_waits_for_the_panel(tmp_path):
    """The cockpit restarts while the board's cable is out (a power blip, the cable pulled
    meanwhile): the running turn comes back paused for the restart and, with no link loss
    ever seen by this cockpit, for the link too. The game master's Resume lifts the
    restart's pause only: the turn waits for the panel instead of running with half of it
    dead, and runs when the board is back."""
    hmap = load_map(REFERENCE)
    layout = load_layout(expansion=True)
    db = tmp_path / "panel.db"

    async def first(emu):
        async with board_cockpit(db, emu, hmap, layout) as (cockpit, io, store):
            await cockpit.create_match({"teams": TEAMS, "seed": 3, "turn_seconds": 600})
            await cockpit.action("start_turn", {})
            assert cockpit.match.phase is Phase.IN_TURN

    async def after_restart(emu):
        page = Page()
        async with board_cockpit(db, emu, hmap, layout, page=page, connected=False) as (cockpit, io, store):
            assert sorted(cockpit.match.snapshot()["paused_for"]) == ["link", "restart"]
            await page.until(lambda s: not s["link"]["connected"])
            await cockpit.action("resume", {"reason": "restart"})
            assert paused_for_link(cockpit.public_state())
            emu.replug()
            await page.until(playing)
            logged = [(e.data["name"], e.data["params"].get("reason")) for e in store.entries(cockpit.record.id)
                      if e.kind == "action"]
            assert logged[-4:] == [("pause", "restart"), ("pause", "link"), ("resume", "restart"), ("resume", "link")]

    with FirmwareEmulator(hmap.board().firmware_config) as emu:
        asyncio.run(first(emu))
        emu.unplug()
        asyncio.run(after_restart(emu))
