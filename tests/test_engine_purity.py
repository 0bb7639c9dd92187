"""The engines are pure: the import contracts of pyproject.toml ([tool.importlinter]) hold
on the real import graph, so an engine that starts importing a file reader (a TOML loader,
the layout, deck or mapping readers, os, pathlib, io) fails the build."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ENGINES = ["panel.games.airlines.engine", "panel.games.kaboom.engine", "panel.games.ultimatum.engine",
           "panel.games.pengo_jump.engine"]


def contracts() -> dict[str, dict]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    return {c["id"]: c for c in config["contracts"]}


def test_the_contracts_name_both_engines_and_the_file_readers():
    c = contracts()
    assert c["engines-read-no-file"]["source_modules"] == ENGINES
    assert {"tomllib", "panel.core.layout_file", "panel.games.airlines.deck_file",
            "panel.games.kaboom.mapping_file"} <= set(c["engines-read-no-file"]["forbidden_modules"])
    assert set(c["engines-touch-no-files"]["forbidden_modules"]) == {"os", "pathlib", "io"}


def test_the_engines_import_nothing_that_reads_a_file():
    # In a process of its own, as CI runs it: import-linter configures logging for the
    # whole process (dictConfig), which would silence the loggers of the tests after it.
    run = ("import sys; from importlinter.cli import lint_imports; "
           f"sys.exit(lint_imports(config_filename={str(ROOT / 'pyproject.toml')!r}, no_cache=True, "
           f"limit_to_contracts={('engines-read-no-file', 'engines-touch-no-files')!r}))")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    r = subprocess.run([sys.executable, "-c", run], cwd=ROOT, env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "2 kept, 0 broken" in r.stdout
