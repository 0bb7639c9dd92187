"""Crash test: the real service, SIGKILLed at random moments of a scripted match.

`python -m panel play --sim` runs as a subprocess on one SQLite file. A driver plays a
match over HTTP (set-up, turns, presses, token moves, mistakes, challenges, pauses) and
the process is killed with SIGKILL at a random moment, 50 times. After every kill:
- the database opens and `PRAGMA integrity_check` says ok;
- everything the service acknowledged (each input and action that got its 200) is in
  the log, in order: nothing completed before the kill is lost;
- restarted, the service's state equals an in-process replay of the log, and a turn
  that was running has come back paused.
"""

import json
import random
import signal
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from panel.service.cockpit import SERVICE_FIELDS
from panel.service.replay import replay
from panel.storage.store import Store
from service_helpers import PIN, Client, start_play
from teams import TEAMS

KILLS = 50
VOLATILE = SERVICE_FIELDS  # the service's additions, not the match's state


def start(db, settings, log):
    p, base = start_play(db, "--settings", str(settings), stderr=log)
    if base is None:
        pytest.fail(f"the service did not start (exit {p.returncode}); see {log.name}")
    return p, base


def logged_sequence(db, match_id):
    with Store(db) as store:
        out = []
        for e in store.entries(match_id):
            if e.kind == "input":
                out.append(("input", e.data["control"], e.data["value"]))
            elif e.kind == "action" and not (e.data["name"] == "pause" and e.data["params"].get("reason") == "restart"):
                out.append(("action", e.data["name"]))
        return out


def is_subsequence(small, big):
    it = iter(big)
    return all(any(x == y for y in it) for x in small)


def replayed_state(db):
    with Store(db) as store:
        record = store.latest_match()
        if record is None:
            return None, None
        entries = store.entries(record.id)
        match, last = replay(record, entries)
        snap = match.snapshot(last)
        snap.pop("card")
        return record.id, snap


class Driver:
    """Plays the match the way a game master and a crew would, recording every request
    the service acknowledged, until the service goes away."""

    def __init__(self, base, rng):
        self.c = Client(base)
        self.rng = rng
        self.acked: dict[int, list] = {}  # match id -> acknowledged inputs and actions, in order
        self.error: BaseException | None = None

    def ack(self, match_id, item):
        self.acked.setdefault(match_id, []).append(item)

    def run(self, stop):
        try:
            self.c.login(PIN)
            while not stop.is_set():
                self.step()
        except (OSError, ConnectionError):
            pass  # killed under us: that is the point
        except BaseException as e:  # a wrong answer: the test reports it
            self.error = e

    def act(self, match_id, name, **params):
        status, body = self.c.act(name, **params)
        if status == 200 and name not in ("abandon",):
            self.ack(match_id, ("action", name))
        return status

    def step(self):
        state = self.c.state()
        mid = state["match_id"]
        if mid is None or state["status"] != "active" or state["phase"] == "finished":
            status, body = self.c.post("/api/admin/match", {
                "mode": "competitive", "teams": TEAMS, "turn_seconds": 5, "time_counters": 2,
                "target_points": 4, "settle_ms": 100, "seed": self.rng.randrange(1000)})
            assert status == 200, body
            return
        phase = state["phase"]
        if phase == "between_turns":
            self.act(mid, "start_turn")
        elif phase == "paused":
            if state["challenge"]:
                self.act(mid, "rule", upheld=self.rng.random() < 0.5)
            else:
                self.act(mid, "resume")
        elif phase == "in_turn":
            roll = self.rng.random()
            if roll < 0.04:
                self.act(mid, "pause")
            elif roll < 0.08:
                other = next(t["name"] for t in TEAMS if t["name"] != state["team"])
                self.act(mid, "challenge", team=other, card="current")
            elif roll < 0.10 and state["counters_held"]:
                self.act(mid, "flip")
            else:
                self.play_card(mid)

    def press(self, mid, control, value):
        status, body = self.c.post("/api/sim/input", {"control": control, "value": value})
        if status == 200 and body["logged"]:
            self.ack(mid, ("input", control, value))

    def play_card(self, mid):
        status, admin = self.c.get("/api/admin/status")
        code = admin["match"]["code"]
        status, tower = self.c.get(f"/api/tower?code={code}")
        card = tower.get("card") if status == 200 else None
        if card is None:
            return
        if self.rng.random() < 0.1:  # a slip
            self.press(mid, self.rng.choice(["grid.r1c1", "grid.r2c2", "cross.red"]), True)
        if card["kind"] == "simple":
            for b in card.get("press", []):
                self.press(mid, b, True)
                self.press(mid, b, False)
            for tok, pos in card.get("set", {}).items():
                self.press(mid, tok, pos)
        else:
            status, layout = self.c.get("/api/layout")
            section = next(s for s in layout["sections"] if s["id"] == card.get("section")) if card.get(
                "section") else next(s for s in layout["sections"] if s["kind"] == "keypad")
            by_role = {c["role"]: c["id"] for c in layout["controls"] if c["id"] in section["controls"] and c["role"]}
            for step in card.get("steps") or list(card.get("word", "")):
                self.press(mid, by_role.get(step, section["controls"][0]), True)
            self.press(mid, by_role.get("ok", section["controls"][-1]), True)


@pytest.mark.slow
def test_sigkill_at_random_moments_then_replay_agrees(tmp_path):
    rng = random.Random(20261129)
    db = tmp_path / "panel.db"
    settings = tmp_path / "settings.toml"
    settings.write_text(f'[service]\npin = "{PIN}"\n')
    log = open(tmp_path / "service.log", "w")
    acked: dict[int, list] = {}
    paused_after_restart = 0
    compared = 0
    try:
        for kill in range(KILLS + 1):
            p, base = start(db, settings, log)
            try:
                # The restarted service shows exactly what a replay of the log gives.
                client = Client(base)
                for attempt in range(5):
                    before = _log_size(db)
                    state = client.state()
                    mid, expected = replayed_state(db)
                    if _log_size(db) == before:
                        break
                assert state["match_id"] == mid
                assert state["status"] != "active" or not state["finished"]
                if mid is not None:
                    got = {k: v for k, v in state.items() if k not in VOLATILE}
                    assert got == expected, f"after kill {kill}: service and replay differ"
                    assert state["phase"] != "in_turn"  # a turn in progress comes back paused
                    paused_after_restart += "restart" in state.get("paused_for", [])
                    compared += 1
                if kill == KILLS:
                    break
                driver = Driver(base, rng)
                stop = threading.Event()
                t = threading.Thread(target=driver.run, args=(stop,), daemon=True)
                t.start()
                stop.wait(rng.uniform(0.05, 1.2))
            finally:
                p.send_signal(signal.SIGKILL)
                p.wait()
                p.stdout.close()
            stop.set()
            t.join(20)
            assert not t.is_alive()
            if driver.error is not None:
                raise driver.error
            for m, items in driver.acked.items():
                acked.setdefault(m, []).extend(items)
            # The database always opens, whole.
            con = sqlite3.connect(db)
            assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
            con.close()
            # Nothing the service acknowledged before the kill is lost.
            for m, items in acked.items():
                assert is_subsequence(items, logged_sequence(db, m)), f"kill {kill}: match {m} lost inputs"
    finally:
        log.close()
    assert compared >= KILLS // 2  # most kills landed in a match
    assert paused_after_restart >= 5  # and many in the middle of a turn
    assert len(acked) >= 3  # several matches were played to their end
    assert sum(len(v) for v in acked.values()) > KILLS  # the driver really played


def _log_size(db):
    con = sqlite3.connect(db)
    try:
        return con.execute("SELECT COUNT(*) FROM inputs").fetchone()[0]
    except sqlite3.OperationalError:
        return 0
    finally:
        con.close()


POWER_CUTS = 20
CHILD = Path(__file__).resolve().parent / "power_cut_child.py"


@pytest.mark.slow
def test_a_power_cut_loses_only_the_end_of_the_log_and_nothing_acknowledged(tmp_path):
    """The store's writer killed between decide and commit, 20 times: the cockpit of a small
    build (tests/power_cut_child.py) plays from its MockPins, the press judged and lit before
    its entry is committed, and is SIGKILLed after a random number of decisions. What it had
    not committed was never written (a power cut takes the same). After every cut:
    - the database opens and `PRAGMA integrity_check` says ok;
    - every match's log is exactly the beginning of what the cockpit decided, in order:
      what is lost is the end of the log, never an entry in the middle, nothing invented;
    - nothing the writer reported committed and no acknowledged game master action is lost;
    - restarted, the cockpit's state equals a replay of the log.
    Over the run, some cuts must have landed between decide and commit (entries lost), or
    the test did not test what it says."""
    rng = random.Random(20261201)
    db = tmp_path / "panel.db"
    decided: dict[int, list] = {}  # match -> (seq, kind, data) the cockpit decided, in order
    cuts_with_loss = lost = acknowledged = 0
    for cut in range(POWER_CUTS + 1):
        p = subprocess.Popen([sys.executable, str(CHILD), str(db)], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        got = []  # what it said (a restart's pause is decided before its state is shown)
        try:
            for line in p.stdout:
                if line.startswith("R "):
                    break
                got.append(line)
            else:
                pytest.fail(f"the power-cut child did not start (exit {p.wait()})")
            state_json, mid = line.rstrip("\n").split(" ", 1)[1].rsplit(" ", 1)
            if mid != "None":
                expected_mid, expected = replayed_state(db)
                assert int(mid) == expected_mid
                assert json.loads(state_json) == expected, f"after cut {cut}: restart and replay differ"
            if cut == POWER_CUTS:
                break
            p.stdin.write("go\n")
            p.stdin.flush()
            target, seen = rng.randrange(5, 120), 0
            for line in p.stdout:  # an exact signal: the cockpit's own decisions, counted
                got.append(line)
                seen += line.startswith("D ")
                if seen >= target:
                    break
        finally:
            p.kill()
            rest = p.communicate()[0] or ""  # what it printed before it died
        if cut == POWER_CUTS:
            break
        committed: dict[int, int] = {}
        acked: dict[int, int] = {}
        for parts in (line.rstrip("\n").split(" ", 4) for line in [*got, *rest.splitlines()]):
            kind, m, seq = parts[0], int(parts[1]), int(parts[2])
            if kind == "D":
                decided.setdefault(m, []).append((seq, parts[3], json.loads(parts[4])))
            elif kind == "C":
                committed[m] = max(committed.get(m, 0), seq)
            elif kind == "A":
                acked[m] = max(acked.get(m, 0), seq)
                acknowledged += 1
        con = sqlite3.connect(db)
        assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        con.close()
        loss = 0
        with Store(db) as store:
            for m, made in decided.items():
                logged = [(e.seq, e.kind, e.data) for e in store.entries(m)]
                assert logged == made[:len(logged)], f"cut {cut}: match {m}'s log is not the beginning of what was decided"
                last = logged[-1][0] if logged else 0
                assert committed.get(m, 0) <= last, f"cut {cut}: match {m} lost committed entries"
                assert acked.get(m, 0) <= last, f"cut {cut}: match {m} lost an acknowledged action"
                loss += len(made) - len(logged)
                decided[m] = logged  # the next run continues from the log
        lost += loss
        cuts_with_loss += loss > 0
    assert cuts_with_loss >= POWER_CUTS // 4, "few cuts fell between decide and commit: the test tested little"
    assert acknowledged >= POWER_CUTS // 2  # the game master's acknowledged actions were in the play
    assert sum(len(v) for v in decided.values()) > POWER_CUTS * 5  # and the crew really played

