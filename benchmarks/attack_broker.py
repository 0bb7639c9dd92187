"""The broker's attacks of issue 24 (a section for benchmarks/attacks.py; on its own:
.venv/bin/python -m benchmarks.attack_broker [--results 3000] [--big-mb 100]).

A real Mosquitto configured as `penguin-panel broker-config` writes it (the tests' broker,
tests/mosquitto.py), real cockpits (Cockpit + Bridge, sim, their own SQLite files) and the
real venue follower (Venue, its own SQLite file), in this process.

1. Client-id takeover: c2 connects five times under the bridge's id `penguin-panel-c1`,
   and a stranger under the venue's id while the venue is away: how often c1 was knocked
   off, and whether the venue's session kept what came meanwhile.
2. A flood of results: a cockpit finishes N matches while the venue is away (its queue at
   the broker: Mosquitto's 1,000), then the venue comes back: results counted, lost, and
   how long until every one is counted.
3. An oversized message: Home Assistant's account publishes a retained message of B MB on
   homeassistant/status, which every cockpit reads: whether the broker took it, what was
   retained, and this process's peak memory.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import resource
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

import aiomqtt

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from mosquitto import STRANGER, Mosquitto  # noqa: E402  (the tests' broker: the generated config)
from play_helpers import mistake, new_match  # noqa: E402

from panel.mqtt.bridge import Bridge  # noqa: E402
from panel.mqtt.broker import HA_USER  # noqa: E402
from panel.service.cockpit import Cockpit  # noqa: E402
from panel.storage.store import Store  # noqa: E402
from panel.venue.store import VenueStore  # noqa: E402
from panel.venue.venue import Venue  # noqa: E402


async def _until(predicate: Callable[[], bool], seconds: float) -> bool:
    end = time.monotonic() + seconds
    while not predicate():
        if time.monotonic() > end:
            return False
        await asyncio.sleep(0.02)
    return True


@contextlib.asynccontextmanager
async def _cockpit(broker: Mosquitto, tmp: Path, cid: str):
    with Store(tmp / f"{cid}.db") as store:
        cockpit = Cockpit(store, sim=True)
        await cockpit.start()
        bridge = Bridge(cockpit, broker.bridge(cid), backoff=(0.05, 0.5))
        await bridge.start()
        await bridge.connected.wait()
        try:
            yield cockpit, bridge
        finally:
            await bridge.close()
            await cockpit.close()


@contextlib.asynccontextmanager
async def _venue(broker: Mosquitto, db: Path):
    with VenueStore(db) as store:
        venue = Venue(store, broker.broker("venue"), backoff=(0.05, 0.5))
        await venue.start()
        await venue.connected.wait()
        try:
            yield venue
        finally:
            await venue.close()


async def _finish(cockpit) -> int:
    await new_match(cockpit)
    await cockpit.action("start_turn", {})
    await mistake(cockpit)
    await cockpit.action("end", {})
    return cockpit.record.id


def _client(broker: Mosquitto, user: str, identifier: str, **kw) -> aiomqtt.Client:
    return aiomqtt.Client("127.0.0.1", broker.port, username=user, password=broker.passwords[user],
                          identifier=identifier, **kw)


async def takeover(broker: Mosquitto, tmp: Path, say) -> dict:
    async with _cockpit(broker, tmp, "c1") as (cockpit, bridge):
        async with _venue(broker, tmp / "venue.db") as venue:
            venue_id = venue.client_id
        for _ in range(5):
            try:
                async with _client(broker, "c2", "penguin-panel-c1"):
                    await asyncio.sleep(0.1)
            except aiomqtt.MqttError:
                pass
        try:
            async with _client(broker, STRANGER, venue_id, clean_session=True):
                pass
        except aiomqtt.MqttError:
            pass
        done = await _finish(cockpit)
        await _until(lambda: bridge._sent_id >= done, 10)
        await asyncio.sleep(0.5)  # a flap shows as a reconnection within the bridge's backoff
        flaps = bridge.connections - 1
        async with _venue(broker, tmp / "venue.db") as venue:
            got = await _until(lambda: venue.counted >= 1, 10)
    say(f"1. client-id takeover: 5 connections of c2 as penguin-panel-c1: c1 knocked off {flaps} times; "
        f"a stranger as the venue's id while it was away: the result finished meanwhile "
        f"{'counted' if got else 'LOST'}")
    return {"flaps": flaps, "result_kept": got}


async def flood(broker: Mosquitto, tmp: Path, n: int, say) -> dict:
    async with _cockpit(broker, tmp, "c1") as (cockpit, bridge):
        async with _venue(broker, tmp / "flood.db"):
            pass  # its persistent session now exists at the broker, and it is away
        started = time.monotonic()
        done = [await _finish(cockpit) for _ in range(n)]
        played = time.monotonic() - started
        back = time.monotonic()
        async with _venue(broker, tmp / "flood.db") as venue:
            await _until(lambda: venue.counted >= n, max(120.0, n * 0.2))
            took = time.monotonic() - back
            counted = len(venue.store.counted())
    lost = n - counted
    say(f"2. flood: {n} results finished while the venue was away (played in {played:.0f} s): {counted} counted, "
        f"{lost} lost, all counted {took:.1f} s after the venue came back")
    return {"results": n, "counted": counted, "lost": lost, "seconds": round(took, 1), "last": done[-1]}


async def oversized(broker: Mosquitto, tmp: Path, megabytes: int, say) -> dict:
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    async with _cockpit(broker, tmp, "c2") as (cockpit, bridge):
        refused = False
        try:
            async with _client(broker, HA_USER, "ha", timeout=30) as c:
                await c.publish("homeassistant/status", b"x" * (megabytes * 1024 * 1024), qos=1, retain=True)
        except aiomqtt.MqttError:
            refused = True
        got = []
        async with _client(broker, HA_USER, "ha-read") as c:
            await c.subscribe("homeassistant/status", qos=1)
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(15.0):  # a retained message comes at once (100 MB: seconds)
                    async for m in c.messages:
                        got.append(len(m.payload))
                        break
        reconnected = bridge.connections - 1
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    say(f"3. oversized: a {megabytes} MB retained message on homeassistant/status: "
        f"{'refused by the broker (publisher disconnected)' if refused else 'taken by the broker'}; "
        f"retained now: {got[0] if got else 0} bytes; the cockpit reconnected {reconnected} times; "
        f"peak memory of this process {before // 1024} MB before, {peak // 1024} MB after (the sender's own "
        f"copy included)")
    return {"refused": refused, "retained_bytes": got[0] if got else 0, "peak_mb": peak // 1024}


SECTIONS = ("takeover", "flood", "oversized")


async def run(*, results: int = 3000, big_mb: int = 100, only: tuple[str, ...] = SECTIONS, say=print) -> dict:
    """The broker attacks (all, or `only` these), each on a broker of its own; the figures
    (also said, one line each)."""
    tmp = Path(tempfile.mkdtemp(prefix="pp-broker-attacks-"))
    attacks = {"takeover": lambda b, d: takeover(b, d, say), "flood": lambda b, d: flood(b, d, results, say),
               "oversized": lambda b, d: oversized(b, d, big_mb, say)}
    out = {}
    for name in only:
        (tmp / name).mkdir()
        with Mosquitto(tmp / name / "broker", cockpits=["c1", "c2"]) as broker:
            out[name] = await attacks[name](broker, tmp / name)
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--results", type=int, default=3000)
    ap.add_argument("--big-mb", type=int, default=100)
    ap.add_argument("--only", choices=SECTIONS, action="append")
    args = ap.parse_args()
    asyncio.run(run(results=args.results, big_mb=args.big_mb, only=tuple(args.only or SECTIONS)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
