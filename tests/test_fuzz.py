"""Fuzzing every parser: layout, hardware map, deck, scenario, settings file, serial frames,
JSON bodies (targets in fuzz_targets.py). Each must answer any bytes with success or its
own one-line error, never another exception.

Three layers, all bounded so the whole run stays in CI's budget:
- Hypothesis, in every test run: the project's own well-formed files mutated (bytes
  inserted, cut, swapped, and tokens known to hurt parsers spliced in: 5,000 digits, deep
  brackets, NaN, NUL ...), plus raw bytes; a failing input is saved as a regression case;
- the saved regression cases (tests/data/fuzz/<target>/) and the seeds, replayed;
- atheris (libFuzzer, coverage-guided) where it is installed (x86-64), a fixed number of
  runs per target from a fixed seed (tests/fuzz_atheris.py; longer runs by hand).
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fuzz_targets import CORPUS, TARGETS, save_crash, saved_crashes, seeds

EXAMPLES = int(os.environ.get("PENGUIN_FUZZ_EXAMPLES", "150"))
ATHERIS_RUNS = int(os.environ.get("PENGUIN_FUZZ_RUNS", "3000"))

# What has hurt parsers before: huge numbers, deep nesting, odd floats, bytes that are not
# text, quotes and brackets that open and never close, TOML's own syntax.
TOKENS = [b"9" * 5000, b"[" * 3000, b"{" * 3000, b"1e999", b"-0", b"nan", b"inf", b"-inf", b"NaN", b"\x00",
          b"\xff\xfe", b"\xc3\x28", b'"', b"'", b"'''", b'"""', b"\\u0000", b"=", b"==", b"[[", b"]]", b"{}",
          b"[]", b"true", b"false", b"1979-05-27T07:32:00Z", b"-1", b"0x7fffffff", b"1_000", b"#", b"\r",
          b"\n", b"\n[x]\n", b"\n[[cards]]\n", b"\n[[input]]\n", b"a.b.c = 1\n", b" " * 200, b"@", b" #",
          b"t=" + b"9" * 400, b"t=-1", b"=", b",", b".", b"-", b"18446744073709551616", b'{"a":' * 200]


@st.composite
def mutated(draw, originals: list[bytes]):
    data = bytearray(draw(st.sampled_from(originals)))
    for _ in range(draw(st.integers(1, 8))):
        at = draw(st.integers(0, len(data)))
        op = draw(st.sampled_from(["insert", "token", "cut", "flip", "repeat"]))
        if op == "insert":
            data[at:at] = draw(st.binary(min_size=1, max_size=16))
        elif op == "token":
            data[at:at] = draw(st.sampled_from(TOKENS))
        elif op == "cut":
            del data[at:at + draw(st.integers(1, 64))]
        elif op == "flip" and at < len(data):
            data[at] = draw(st.integers(0, 255))
        elif op == "repeat":
            end = min(len(data), at + draw(st.integers(1, 80)))
            data[at:at] = data[at:end] * draw(st.integers(1, 40))
    return bytes(data)


def inputs(target: str):
    base = seeds(target)
    return st.one_of(mutated(base), st.binary(max_size=512), st.sampled_from(TOKENS))


def run(target: str, data: bytes) -> None:
    """The target on `data`; a crash is kept as a regression case before it is reported."""
    try:
        TARGETS[target](data)
    except Exception:
        path = save_crash(target, data)
        raise AssertionError(f"{target} crashed on an input kept in {path.relative_to(CORPUS.parent.parent)}")


@pytest.mark.parametrize("target", sorted(TARGETS))
def test_no_input_crashes_a_parser(target):
    @settings(max_examples=EXAMPLES, deadline=None, database=None, derandomize=not os.environ.get("PENGUIN_FUZZ_EXAMPLES"),
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(data=inputs(target))
    def fuzz(data):
        run(target, data)

    fuzz()


def test_the_seeds_and_every_saved_crash_replay_clean():
    """Every crash once found stays fixed; the seeds themselves parse."""
    replayed = 0
    for target in sorted(TARGETS):
        assert seeds(target), f"{target}: no seed (a file of the project moved?)"
        for data in seeds(target):
            TARGETS[target](data)
            replayed += 1
        for path in saved_crashes(target):
            TARGETS[target](path.read_bytes())
            replayed += 1
    assert replayed >= len(TARGETS)


@pytest.mark.skipif(importlib.util.find_spec("atheris") is None,
                    reason="atheris is installed with the dev extra on x86-64 only (its wheels)")
@pytest.mark.slow  # a coverage-guided search, a fixed number of runs per parser (the Hypothesis layer above is fast)
@pytest.mark.parametrize("target", sorted(TARGETS))
def test_coverage_guided_fuzzing_finds_no_crash(target, tmp_path):
    """libFuzzer's coverage-guided search from the seeds, a fixed number of runs: exit 0,
    or the crash it found saved under tests/data/fuzz/<target>/ and reported."""
    CORPUS.joinpath(target).mkdir(parents=True, exist_ok=True)
    r = subprocess.run([sys.executable, os.path.join(os.path.dirname(__file__), "fuzz_atheris.py"), target,
                        f"-runs={ATHERIS_RUNS}", "-seed=20261130", "-max_len=65536", "-rss_limit_mb=1024",
                        f"-artifact_prefix={CORPUS / target}/", str(tmp_path)],
                       capture_output=True, text=True, timeout=900,
                       env={**os.environ, "PENGUIN_FUZZ_TMP": str(tmp_path)})
    assert r.returncode == 0, f"{target}: atheris found a crash (kept in tests/data/fuzz/{target}/):\n" + \
        "\n".join(r.stderr.splitlines()[-40:])
