#!/usr/bin/env python3
"""A café's history: what the SD card takes per hour of play, and what a month and a year
of stored play cost the service (start-up, the matches list, the debrief, memory, and the
longest the event loop stood still while serving them).

1. Writes per café hour. Café play (benchmarks/cafe.py: walk-up matches back to back, the
   crew at human pace, every input onto the real cockpit's queue as the panel's sources put
   them) runs in real time for --cafe-minutes against the real Cockpit and Store in a folder
   on a real file system; the bytes this process caused to be written to the block device
   (/proc/self/io write_bytes: the WAL, the checkpoints, the database) are counted and
   scaled to an hour. Side by side: the store as the service runs it (group commit within
   COMMIT_WITHIN) and the same store committing every entry as soon as it can
   (commit_within=0, what one fsync per entry was).

2. A month of café play (--month-matches, 2,689 by default: ~90 walk-up matches a day) is
   played through the real Cockpit and Store with the cockpit's clock moved by the driver,
   the matches' dates then spread over 30 days. A year is that month's matches stored twelve
   times over (the same logs, ids and dates shifted a month each time), as building it
   move by move would take an hour.

3. Each database is served by the real service (`penguin-panel play --sim`'s serve(), in a
   process of its own with a probe task on its event loop that sleeps 2 ms at a time and
   records how late it wakes: a stall of the loop shows there), and timed from outside over
   HTTP: start-up, the matches list (first page, a page deep in the year), the debrief of a
   long match (first from its log, then from its summary), the latest match's debrief, the
   join page's QR code, the tower's first card, a login; the resident memory after start
   and after all of that.

    .venv/bin/python benchmarks/history.py [--cafe-minutes 6] [--month-matches 2689] [--dir PATH]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from datetime import datetime, timedelta
from http.cookiejar import CookieJar
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.cafe import VirtualClock, play, play_fast  # noqa: E402
from benchmarks.stats import percentile  # noqa: E402

PIN = "2468"
STALL_MS = 5.0  # the target: no stall of the loop over this


# ---------------------------------------------------------------------------- helpers

def write_bytes() -> int:
    for line in Path("/proc/self/io").read_text().splitlines():
        if line.startswith("write_bytes:"):
            return int(line.split()[1])
    return 0


def fs_type(path: Path) -> str:
    """The file system a path is on (from /proc/mounts: the longest mount point above it)."""
    best, kind = "", "?"
    real = str(path.resolve())
    for line in Path("/proc/mounts").read_text().splitlines():
        _dev, mnt, typ = line.split()[:3]
        if (real == mnt or real.startswith(mnt.rstrip("/") + "/")) and len(mnt) > len(best):
            best, kind = mnt, typ
    return kind


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def mib(n: float) -> str:
    return f"{n / 2**20:.1f} MiB" if n >= 2**20 else f"{n / 1024:.1f} KiB"


# ---------------------------------------------------------------------------- 1. writes per café hour

def cafe_writes(folder: Path, minutes: float, commit_within: float | None) -> dict:
    from panel.service.cockpit import Cockpit
    from panel.storage.store import Store

    db = folder / f"cafe-{commit_within}.db"

    async def run() -> dict:
        kw = {} if commit_within is None else {"commit_within": commit_within}
        with Store(db, **kw) as store:
            cockpit = Cockpit(store, sim=True)
            await cockpit.start()
            await store.flushed()
            os.sync()
            before, commits = write_bytes(), store.commits
            made = await play(cockpit, minutes * 60)
            await cockpit.close()
            await store.flushed()
            # Counted when the pages are dirtied (/proc/self/io), so nothing waits for the
            # kernel's write-back; the checkpoint at close is left out (a café's service runs
            # all day: its checkpoints come every 1,000 pages of WAL and are in the count).
            written = write_bytes() - before
            entries = sum(store.last_seq(r.id) for r in store.matches())
        return {"bytes": written, "inputs": made, "entries": entries, "commits": store.commits - commits}

    return asyncio.run(run())


# ---------------------------------------------------------------------------- 2. a month, a year

def build_month(db: Path, matches: int) -> dict:
    from panel.service.cockpit import Cockpit
    from panel.server.security import Security
    from panel.storage.store import Store

    async def run() -> int:
        clock = VirtualClock()
        with Store(db) as store:
            Security(store).set_pin(PIN)
            cockpit = Cockpit(store, sim=True, clock=clock)
            await cockpit.start()
            made = await play_fast(cockpit, clock, matches)
            await cockpit.close()
        return made

    t0 = time.perf_counter()
    made = asyncio.run(run())
    seconds = time.perf_counter() - t0
    # The dates: spread over the last 30 days, oldest first, as a month of play left them.
    con = sqlite3.connect(db)
    ids = [r[0] for r in con.execute("SELECT id FROM matches ORDER BY id")]
    now = datetime.now().astimezone()
    step = timedelta(days=30) / max(1, len(ids))
    con.executemany("UPDATE matches SET created=? WHERE id=?",
                    [((now - timedelta(days=30) + i * step).strftime("%Y-%m-%dT%H:%M:%S%z"), mid)
                     for i, mid in enumerate(ids)])
    con.commit()
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    con.close()
    return {"inputs": made, "seconds": seconds, "matches": len(ids)}


def build_year(month: Path, year: Path) -> None:
    from panel.storage.store import Store

    with Store(year):
        pass  # the schema, as the service makes it
    con = sqlite3.connect(year)
    con.execute("ATTACH ? AS m", (str(month),))
    n = con.execute("SELECT MAX(id) FROM m.matches").fetchone()[0]
    rows = con.execute("SELECT id, created, settings_json, positions_json, status, code FROM m.matches").fetchall()
    for k in range(12):  # k = 11 is the month itself, with the match in play
        shift = timedelta(days=30 * (11 - k))
        con.executemany(
            "INSERT INTO matches(id, created, settings_json, positions_json, status, code) VALUES(?,?,?,?,?,?)",
            [(mid + k * n, (datetime.strptime(c, "%Y-%m-%dT%H:%M:%S%z") - shift).strftime("%Y-%m-%dT%H:%M:%S%z"),
              s, p, st if k == 11 or st != "active" else "finished", code) for mid, c, s, p, st, code in rows])
        con.execute("INSERT INTO inputs SELECT match_id + ?, seq, t, kind, json FROM m.inputs", (k * n,))
        con.commit()
    con.execute("INSERT OR REPLACE INTO settings SELECT key, value FROM m.settings")
    con.commit()
    con.execute("DETACH m")
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    con.close()


# ---------------------------------------------------------------------------- 3. the service, timed

def serve_with_probe(db: str, settings: str) -> None:
    """The real service on `db`, with a probe on its loop; on each line read from stdin it
    prints the longest stall since the previous line (and how many over STALL_MS)."""
    from panel.run import Options, resolve, serve
    from panel.server import event_loop

    async def main() -> None:
        loop = asyncio.get_running_loop()
        worst = {"max": 0.0, "over": 0}

        async def probe() -> None:
            period = 0.002
            while True:
                t0 = loop.time()
                await asyncio.sleep(period)
                lag = (loop.time() - t0 - period) * 1000
                worst["max"] = max(worst["max"], lag)
                worst["over"] += lag > STALL_MS

        def mark() -> None:
            print(json.dumps({"max_ms": round(worst["max"], 2), "over": worst["over"]}), flush=True)
            worst["max"], worst["over"] = 0.0, 0

        def read() -> None:
            for _ in sys.stdin:
                loop.call_soon_threadsafe(mark)

        threading.Thread(target=read, daemon=True).start()
        task = asyncio.create_task(probe())
        await serve(resolve(Options(sim=True, db=db, port=0, settings=settings)))
        task.cancel()

    event_loop.run(main())  # (the loop the service runs on)


class Served:
    def __init__(self, db: Path, settings: Path):
        t0 = time.perf_counter()
        self.p = subprocess.Popen([sys.executable, __file__, "--serve", str(db), str(settings)],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        for line in self.p.stdout:
            m = re.search(r"serving on (http://\S+?)/ .*ready in ([0-9.]+) s", line)
            if m:
                self.base, self.ready = m.group(1), float(m.group(2))
                break
        else:
            raise SystemExit(f"the service did not start on {db}")
        self.started = time.perf_counter() - t0
        jar = CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
        self.csrf = None

    def request(self, path: str, body: dict | None = None) -> tuple[float, bytes]:
        h = {"Content-Type": "application/json"} if body is not None else {}
        if self.csrf:
            h["X-CSRF-Token"] = self.csrf
        req = urllib.request.Request(self.base + path, data=json.dumps(body).encode() if body is not None else None,
                                     headers=h)
        t0 = time.perf_counter()
        with self.opener.open(req, timeout=120) as r:
            data = r.read()
        return time.perf_counter() - t0, data

    def stall(self) -> dict:
        self.p.stdin.write("mark\n")
        self.p.stdin.flush()
        return json.loads(self.p.stdout.readline())

    def timed(self, path: str, n: int = 1, body: dict | None = None) -> tuple[list[float], dict, bytes]:
        self.stall()
        times, data = [], b""
        for _ in range(n):
            dt, data = self.request(path, body)
            times.append(dt)
        return times, self.stall(), data

    def close(self) -> None:
        self.p.terminate()
        self.p.wait(30)


def longest_match(db: Path, below: int | None = None) -> int:
    con = sqlite3.connect(db)
    try:
        # the longest log among the first 200 matches: an old one, with no summary yet
        return con.execute("SELECT match_id FROM inputs WHERE match_id <= 200 GROUP BY match_id "
                           "ORDER BY COUNT(*) DESC LIMIT 1").fetchone()[0]
    finally:
        con.close()


def time_service(name: str, db: Path, settings: Path, n: int) -> list[str]:
    con = sqlite3.connect(db)
    matches, entries = con.execute("SELECT COUNT(*), (SELECT COUNT(*) FROM inputs) FROM matches").fetchone()
    middle = con.execute("SELECT id FROM matches ORDER BY id LIMIT 1 OFFSET ?", (matches // 2,)).fetchone()[0]
    con.close()
    long = longest_match(db)
    out = [f"{name}: {matches} matches, {entries} log entries, {mib(db.stat().st_size)} on disk"]
    s = Served(db, settings)
    try:
        rss_start = rss_mib(s.p.pid)
        out.append(f"  start-up: {s.started * 1000:.0f} ms to 'serving on' (the service's own count: "
                   f"{s.ready * 1000:.0f} ms); resident memory when ready {rss_start:.1f} MiB")
        rows = []

        def row(label: str, times: list[float], stall: dict, extra: str = "") -> None:
            p50, p99 = percentile(times, 50) * 1000, percentile(times, 99) * 1000
            flag = "" if stall["max_ms"] <= STALL_MS else f"  <-- over {STALL_MS:g} ms"
            rows.append(f"  {label:<44} n={len(times):<3} p50 {p50:8.2f} ms  p99 {p99:8.2f} ms   "
                        f"longest loop stall {stall['max_ms']:6.2f} ms{flag}{extra}")

        s.stall()
        time.sleep(2.0)
        row("nothing asked for 2 s (the machine's own noise)", [2.0], s.stall())
        times, stall, data = s.timed("/api/admin/login", 1, {"pin": PIN})
        s.csrf = json.loads(data)["csrf"]
        row("login (PIN check)", times, stall)
        times, stall, data = s.timed("/api/admin/matches", n)
        row("matches list, newest page", times, stall, f"  ({len(json.loads(data)['matches'])} matches)")
        times, stall, _ = s.timed(f"/api/admin/matches?before={middle}", n)
        row(f"matches list, a page before match {middle}", times, stall)
        times, stall, _ = s.timed(f"/api/admin/debrief?match={long}", 1)
        row(f"debrief of match {long} (longest), from its log", times, stall)
        times, stall, _ = s.timed(f"/api/admin/debrief?match={long}", n)
        row(f"debrief of match {long}, from its summary", times, stall)
        times, stall, _ = s.timed("/api/admin/debrief", 1)
        row("debrief of the latest match (in play)", times, stall)
        times, stall, _ = s.timed("/api/admin/debrief.csv?table=turns", n)
        row("debrief CSV of the latest match", times, stall)
        times, stall, data = s.timed("/api/join", 1)
        row("join code and QR code, first", times, stall)
        code = json.loads(data)["code"]
        times, stall, _ = s.timed("/api/join", n)
        row("join code and QR code, again", times, stall)
        times, stall, _ = s.timed(f"/api/tower?code={code}", 1)
        row("tower's card, first", times, stall)
        times, stall, _ = s.timed("/api/state", n)
        row("state", times, stall)
        times, stall, _ = s.timed("/api/layout", n)
        row("layout", times, stall)
        out += rows
        out.append(f"  resident memory after all of that: {rss_mib(s.p.pid):.1f} MiB (when ready {rss_start:.1f} MiB)")
    finally:
        s.close()
    return out


# ---------------------------------------------------------------------------- main

def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cafe-minutes", type=float, default=6.0, help="real-time café play per store setting (0: skip)")
    ap.add_argument("--month-matches", type=int, default=2689)
    ap.add_argument("--requests", type=int, default=20, help="requests per timed page")
    ap.add_argument("--dir", help="where the databases go (a real file system; default /var/tmp)")
    ap.add_argument("--keep", action="store_true", help="keep the databases")
    ap.add_argument("--serve", nargs=2, metavar=("DB", "SETTINGS"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.serve:
        serve_with_probe(*args.serve)
        return 0
    folder = Path(tempfile.mkdtemp(prefix="pp-history-", dir=args.dir or "/var/tmp"))
    settings = folder / "settings.toml"
    settings.write_text(f'[service]\npin = "{PIN}"\n')
    print(f"databases in {folder} ({fs_type(folder)})")
    try:
        if args.cafe_minutes > 0:
            from panel.storage.store import COMMIT_WITHIN

            print(f"\n1. device writes per café hour ({args.cafe_minutes:g} min of real-time café play each, "
                  "scaled to an hour; /proc/self/io write_bytes)")
            for label, within in ((f"group commit within {COMMIT_WITHIN:g} s (the service)", None),
                                  ("every entry committed at once", 0.0)):
                r = cafe_writes(folder, args.cafe_minutes, within)
                per_hour = 60 / args.cafe_minutes
                print(f"  {label:<40} {mib(r['bytes'] * per_hour)}/h  ({r['entries']} log entries, "
                      f"{r['commits']} commits: {r['bytes'] / max(1, r['entries']):.0f} B per entry, "
                      f"{r['commits'] * per_hour:.0f} commits/h)")
        month, year = folder / "month.db", folder / "year.db"
        print(f"\n2. building a month of café play ({args.month_matches} matches) through the real cockpit")
        b = build_month(month, args.month_matches)
        print(f"  {b['matches']} matches, {b['inputs']} inputs in {b['seconds']:.0f} s; {mib(month.stat().st_size)}")
        build_year(month, year)
        print(f"  a year: the month twelve times over, {mib(year.stat().st_size)}")
        print("\n3. the service on each (times over HTTP from another process; stalls from a probe on its loop)")
        for name, db in (("a month", month), ("a year", year)):
            for line in time_service(name, db, settings, args.requests):
                print(line)
    finally:
        if not args.keep:
            shutil.rmtree(folder, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
