"""The event loop the cockpit's and the venue's processes run on: uvloop's where it is
installed (it is a dependency wherever it has a build), asyncio's own otherwise."""

import asyncio
import importlib.util
import logging
import sys

import pytest

import panel.run
import panel.venue.run
from panel.server import event_loop


async def the_loop() -> str:
    await asyncio.sleep(0)  # (a turn of the loop: the coroutine really runs on it)
    return event_loop.kind(asyncio.get_running_loop())


def test_a_server_runs_on_uvloop_where_it_is_installed(caplog):
    pytest.importorskip("uvloop", reason="uvloop has no build for this platform")
    with caplog.at_level(logging.INFO, logger="penguin-panel"):
        assert event_loop.run(the_loop()) == "uvloop"
    assert "uvloop is not installed" not in caplog.text


def test_without_uvloop_it_runs_on_asyncios_own_loop_and_says_so_once(monkeypatch, caplog):
    monkeypatch.setitem(sys.modules, "uvloop", None)  # (an import of it fails, as where it has no build)
    with caplog.at_level(logging.INFO, logger="penguin-panel"):
        assert event_loop.run(the_loop()) == "asyncio"
    said = [r.getMessage() for r in caplog.records if "uvloop" in r.getMessage()]
    assert said == ["uvloop is not installed: the event loop is asyncio's own (each press costs more CPU)"]


def test_the_loop_is_closed_after_and_the_coroutines_value_returned():
    loops = []

    async def keep() -> int:
        loops.append(asyncio.get_running_loop())
        return 7

    assert event_loop.run(keep()) == 7
    assert loops[0].is_closed()


@pytest.mark.parametrize("server", [panel.run, panel.venue.run], ids=["the cockpit", "the venue"])
def test_each_server_serves_on_that_loop(monkeypatch, server):
    ran = []

    async def serve(opts, **_):
        ran.append((opts, await the_loop()))

    monkeypatch.setattr(server, "serve", serve)
    if hasattr(server, "resolve"):
        monkeypatch.setattr(server, "resolve", lambda opts: opts)
    monkeypatch.setattr(logging, "basicConfig", lambda **kw: None)  # (the test's own logging kept)
    assert server.run("options") == 0
    expected = "uvloop" if importlib.util.find_spec("uvloop") else "asyncio"
    assert ran == [("options", expected)]
