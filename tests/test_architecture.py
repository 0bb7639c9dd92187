"""The import contract (pyproject.toml, [tool.importlinter]): arrows only point down.

    panel.tools
    panel.run | panel.venue                      the composition roots
    panel.web | panel.mqtt | panel.storage       the cockpit's adapters
    panel.service                                the cockpit's core
    panel.server | panel.hardware | panel.link   the kits
    panel.games                                  each game's package
    panel.firmware | panel.core                  the shared vocabulary

import-linter reads every import of every module (those inside functions too) and fails
the build on an arrow running back up; the venue, the cockpit's core and the games have
forbidden lists of their own. The checks below run it on this checkout, and show that it
does fail on a broken contract, and check at run time that the venue's process and the
cockpit's core load none of what they must not.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def lint_imports(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    return subprocess.run([sys.executable, "-c", "import sys; from importlinter.cli import lint_imports_command; "
                           "sys.exit(lint_imports_command())", "--no-cache", "--no-logo", *args],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)


def test_the_import_contract_holds():
    result = lint_imports()
    assert result.returncode == 0, f"an import breaks the contract in pyproject.toml:\n{result.stdout}{result.stderr}"
    assert "0 broken" in result.stdout, result.stdout


def test_an_arrow_running_back_up_fails_the_check(tmp_path):
    """The same tool on the same code with the layers upside down: every real arrow now
    points up, and the check says which (so a passing check means something)."""
    config = tmp_path / "upside-down.toml"
    config.write_text('[tool.importlinter]\nroot_package = "panel"\n\n'
                      '[[tool.importlinter.contracts]]\nname = "upside down"\ntype = "layers"\n'
                      'layers = ["panel.core", "panel.games"]\n')
    result = lint_imports(str(config))
    assert result.returncode == 1, result.stdout + result.stderr
    assert "upside down BROKEN" in result.stdout
    assert "panel.games is not allowed to import panel.core" in result.stdout
    assert "- panel.games.airlines.engine.match -> panel.core.events" in result.stdout


def loaded_by(*modules: str) -> set[str]:
    """The modules a fresh interpreter has loaded once it imported `modules`."""
    code = f"import json, sys\nfor m in {list(modules)!r}: __import__(m)\nprint(json.dumps(sorted(sys.modules)))"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True,
                         timeout=60, check=True).stdout
    return set(json.loads(out))


def test_the_venue_process_loads_nothing_of_the_cockpits_service():
    loaded = loaded_by("panel.venue.run")
    assert "panel.venue.app" in loaded and "panel.server.peers" in loaded  # it did load the venue and the kit
    cockpits = sorted(m for m in loaded if m.split(".")[:2] in (["panel", "service"], ["panel", "web"])
                      or m in ("panel.run", "panel.mqtt.bridge", "panel.storage.store"))
    assert cockpits == []


def test_the_cockpits_core_loads_no_web_server_database_or_broker():
    loaded = loaded_by("panel.service.cockpit", "panel.service.history", "panel.service.replay")
    adapters = sorted(m for m in loaded if m.split(".")[0] in ("aiohttp", "aiomqtt", "sqlite3")
                      or m.split(".")[:2] in (["panel", "web"], ["panel", "mqtt"], ["panel", "storage"]))
    assert adapters == []
