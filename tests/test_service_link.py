"""The co-processor through the service: the reference build's matrix and slider on an
emulated Pico over a real pty, read by the real SerialLink inside the cockpit, judged by
the engine, logged in a real SQLite file; a pulled cable pauses the turn."""

import asyncio
from pathlib import Path

from panel.engine import Phase
from panel.hardware.map import load_map
from panel.layout import load_layout
from panel.link.emulator import FirmwareEmulator
from panel.link.from_map import link_for_map
from panel.service.cockpit import Cockpit, Refused
from panel.service.link_io import LinkIO
from panel.service.store import Store

REFERENCE = Path(__file__).resolve().parent.parent / "panel" / "maps" / "reference.toml"
TEAMS = [{"name": "Gulls", "players": ["Ana", "Bo"]}, {"name": "Puffins", "players": ["Cy", "Di"]}]


async def until(predicate, steps=1000):
    for _ in range(steps):  # bounded by steps, not by the wall clock
        if predicate():
            return True
        await asyncio.sleep(0.01)
    return predicate()


def test_board_presses_sliders_and_a_pulled_cable_reach_the_match(tmp_path):
    hmap = load_map(REFERENCE)
    cells = {control: cell for cell, control in hmap.matrix_cells().items()}
    layout = load_layout(expansion=True)

    async def scenario(emu):
        def factory(m, **kw):
            return link_for_map(m, finder=lambda: [emu.port] if emu.port else [], **kw)

        io = LinkIO(hmap, layout, link_factory=factory)
        with Store(tmp_path / "panel.db") as store:
            cockpit = Cockpit(store, sources=[io])
            await cockpit.start()
            try:
                assert await until(lambda: io.status()["connected"])
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
            finally:
                await cockpit.close()
        assert io.link is None

    with FirmwareEmulator(hmap.board().firmware_config) as emu:
        asyncio.run(scenario(emu))
