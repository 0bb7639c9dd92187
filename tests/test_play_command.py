"""`penguin-panel play`: bad options and settings give one line naming what and where."""

from panel.tools.cli import main


def error_lines(capsys):
    err = capsys.readouterr().err.strip().splitlines()
    assert err and all(line.startswith("error: ") for line in err) and "Traceback" not in "\n".join(err)
    return err


def test_bad_settings_file_names_file_and_key(tmp_path, capsys):
    f = tmp_path / "settings.toml"
    f.write_text('[service]\nport = "eighty"\npin = "12"\ncolour = 1\n[match]\nturn_seconds = 2\n[extra]\n')
    assert main(["play", "--sim", "--settings", str(f)]) == 2
    err = "\n".join(error_lines(capsys))
    for key in ("service.port", "service.pin", "service.colour", "match.turn_seconds", "extra"):
        assert f"{f}: {key}" in err, key


def test_bad_kaboom_defaults_name_file_and_key(tmp_path, capsys):
    f = tmp_path / "settings.toml"
    f.write_text('[kaboom]\ndifficulty = "hard"\nmission = 99\nwalk_up = "yes"\nplayers = ["red"]\n')
    assert main(["play", "--sim", "--settings", str(f)]) == 2
    err = "\n".join(error_lines(capsys))
    for key in ("kaboom.difficulty", "kaboom.mission", "kaboom.walk_up", "kaboom.players"):
        assert f"{f}: {key}" in err, key


def test_missing_settings_file(tmp_path, capsys):
    assert main(["play", "--sim", "--settings", str(tmp_path / "none.toml")]) == 2
    assert "file not found" in error_lines(capsys)[0]


def test_a_built_cockpit_needs_its_hardware_map(capsys):
    assert main(["play"]) == 2
    assert "--hardware" in error_lines(capsys)[0]


def test_a_database_that_cannot_be_opened(tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("")
    assert main(["play", "--sim", "--db", str(blocker / "panel.db"), "--port", "0"]) == 2
    assert "cannot open the database" in error_lines(capsys)[0]


def test_bad_hardware_map(tmp_path, capsys):
    m = tmp_path / "map.toml"
    m.write_text("this is = = not toml")
    assert main(["play", "--hardware", str(m), "--db", str(tmp_path / "p.db"), "--port", "0"]) == 2
    assert str(m) in error_lines(capsys)[0]


def test_a_misspelled_control_in_the_map_stops_the_start_as_hardware_check_says(tmp_path, capsys):
    """A control the layout does not have would be a dead button: the start stops with the
    checker's own line, before the database is opened or a pin touched."""
    from panel.hardware.map import MAPS_DIR

    m = tmp_path / "map.toml"
    m.write_text((MAPS_DIR / "small.toml").read_text().replace("big = {", "huge = {"))
    assert main(["hardware", "check", str(m)]) == 2
    checker = [line for line in capsys.readouterr().err.splitlines() if line.startswith("error: ")]
    assert checker == [f"error: {m}: controls.lever.huge: unknown control id 'lever.huge' "
                       f"(not in layout 'Penguin Airlines')"]
    db = tmp_path / "p.db"
    assert main(["play", "--hardware", str(m), "--db", str(db), "--port", "0"]) == 2
    assert error_lines(capsys) == checker
    assert not db.exists()


def test_sigterm_closes_open_pages_and_stops(tmp_path):
    """A page's live socket must not hold the stop (systemd restarts wait for it)."""
    import asyncio
    import re
    import signal
    import subprocess
    import sys

    import aiohttp

    p = subprocess.Popen([sys.executable, "-m", "panel", "play", "--sim", "--port", "0", "--db",
                          str(tmp_path / "p.db")], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        base = None
        for line in p.stdout:
            m = re.search(r"serving on (http://\S+?)/ ", line)
            if m:
                base = m.group(1)
                break
        assert base, "the service did not start"

        async def watch():
            async with aiohttp.ClientSession() as session:
                async with session.ws_connect(f"{base}/ws?view=board", headers={"Origin": base}) as ws:
                    assert (await ws.receive_json())["type"] == "language"  # the pages' language, then
                    assert (await ws.receive_json())["type"] == "state"  # the state
                    p.send_signal(signal.SIGTERM)
                    while True:
                        msg = await ws.receive()
                        if msg.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED, aiohttp.WSMsgType.CLOSING):
                            return ws.close_code

        code = asyncio.run(watch())
        assert code == aiohttp.WSCloseCode.GOING_AWAY
        assert p.wait(timeout=30) == 0  # a bound far above the normal stop, only against a hang
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()


def _entries(db):
    from panel.storage.store import Store

    with Store(db) as store:
        record = store.latest_match()
        return [(e.kind, e.data) for e in store.entries(record.id)]


def test_a_second_play_on_the_same_database_stops_at_once_and_writes_nothing(tmp_path):
    """Two real services. The second on the same database exits with one line naming the
    first; the second on the same port stops before it reads its own database. Neither
    writes anything (a restore would log a pause into the running match's log)."""
    import signal
    import subprocess
    import sys

    from service_helpers import PIN, Client, start_play

    settings = tmp_path / "settings.toml"
    settings.write_text(f'[service]\npin = "{PIN}"\n')
    db = tmp_path / "panel.db"
    first, base = start_play(db, "--settings", str(settings))
    others = []
    try:
        assert base
        gm = Client(base)
        gm.login()
        gm.new_match()
        assert gm.act("start_turn")[0] == 200  # a turn runs: a restore would log a pause
        before = _entries(db)

        second = subprocess.run([sys.executable, "-m", "panel", "play", "--sim", "--port", "0", "--db", str(db)],
                                capture_output=True, text=True, timeout=120)
        assert second.returncode == 2
        err = second.stderr.strip().splitlines()
        assert len(err) == 1 and "Traceback" not in second.stderr, second.stderr
        assert f"pid {first.pid}" in err[0] and f"serving {base}/" in err[0] and str(db) in err[0]
        assert "serving on" not in second.stdout
        assert _entries(db) == before
        status, body = gm.post("/api/sim/input", {"control": "grid.r1c1", "value": True})
        assert status == 200 and body["logged"]  # the running match goes on

        # The same port, another database: stopped at the port, before reading that database.
        first.send_signal(signal.SIGKILL)  # leaves db with a turn running, as a power cut would
        first.wait()
        before = _entries(db)
        third, base3 = start_play(tmp_path / "other.db")
        others.append(third)
        assert base3
        port = base3.rsplit(":", 1)[1]
        fourth = subprocess.run([sys.executable, "-m", "panel", "play", "--sim", "--port", port, "--db", str(db)],
                                capture_output=True, text=True, timeout=120)
        assert fourth.returncode == 2
        err = fourth.stderr.strip().splitlines()
        assert len(err) == 1 and "--port" in err[0] and "cannot listen" in err[0], fourth.stderr
        assert _entries(db) == before  # no pause logged by a restore that should not have run
    finally:
        for p in [first, *others]:
            if p.poll() is None:
                p.kill()
                p.wait()
            p.stdout.close()


def test_the_maps_warnings_are_logged_at_start(caplog):
    """A control left unwired is no error: the start goes on and says so in the log."""
    import logging

    from panel.run import Options, hardware_io, resolve

    r = resolve(Options(hardware="small"))
    assert r.hardware_map.name == "Small build"
    with caplog.at_level(logging.WARNING, logger="penguin-panel"):
        sources, effects = hardware_io(r)
    unmapped = [rec.getMessage() for rec in caplog.records if "not wired (unmapped)" in rec.getMessage()]
    assert len(unmapped) == len(r.map_warnings) > 0
    assert unmapped[0].startswith(f"warning: {r.hardware_map.source}: controls.")
    assert [type(s).__name__ for s in sources] == ["HardwareIO"] and effects == sources
