"""Tests say where they run: a test that starts Chromium is marked `browser`, so the fast
set (`-m "not slow and not browser and not kit"`) never starts it.

Which tests start Chromium is read from the test modules' source: a name imported from
Playwright, the path of Debian's Chromium, or anything of the tests' own (a helper, a
class, a fixture, imported from another test module or defined beside the test) that
uses one of those. Which tests are marked is what pytest collects.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from functools import cache
from pathlib import Path

import pytest

# This module reads the browser tests' sources and plants unmarked ones to catch, so it
# names Chromium and Playwright throughout: it runs with the browser tests (CI runs them
# all), where a test that names the browser belongs.
pytestmark = pytest.mark.browser

from conftest import COLLECTED

TESTS = Path(__file__).resolve().parent
# The program's path as a string (a docstring's "Chromium" or a profile folder named chromium is not one).
CHROMIUM_PATH = re.compile(r"^/\S*/chromium(-browser)?$")


def _functions(tree: ast.Module) -> dict[str, ast.AST]:
    """The module's own top-level names (functions, classes, assignments) and their code."""
    own: dict[str, ast.AST] = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            own[node.name] = node
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                if isinstance(target, ast.Name):
                    own[target.id] = node
    return own


def _names(node: ast.AST) -> set[str]:
    """The names a piece of code reads, its parameters (a fixture is asked for by name) included."""
    found = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
    for n in ast.walk(node):
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            found |= {a.arg for a in n.args.args + n.args.kwonlyargs}
    return found


def _names_the_program(node: ast.AST) -> bool:
    return any(isinstance(n, ast.Constant) and isinstance(n.value, str) and CHROMIUM_PATH.search(n.value)
               for n in ast.walk(node))


@cache
def chromium_names(path: Path) -> frozenset[str]:
    """The names in the module at `path` that start or drive Chromium."""
    tree = ast.parse(path.read_text(), str(path))
    starts: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.Import):
            starts |= {(a.asname or a.name).split(".")[0] for a in node.names if a.name.startswith("playwright")}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module.startswith("playwright"):
                starts |= {a.asname or a.name for a in node.names}
            elif (TESTS / f"{node.module}.py").exists():  # a helper or another test module
                theirs = chromium_names(TESTS / f"{node.module}.py")
                starts |= {a.asname or a.name for a in node.names if a.name in theirs}
    own = {name: _names(code) for name, code in _functions(tree).items()}
    starts |= {name for name, code in _functions(tree).items() if _names_the_program(code)}
    while True:  # until nothing more is found: a helper that uses a helper that starts Chromium
        more = {name for name, reads in own.items() if name not in starts and reads & starts}
        if not more:
            return frozenset(starts)
        starts |= more


def chromium_tests_of(path: Path) -> set[str]:
    """The test functions of the module at `path` (by name) that start Chromium."""
    starts = chromium_names(path)
    return {name for name in starts if name.startswith("test")}


def unmarked(paths: list[Path], collected: list[pytest.Item] | None = None) -> set[str]:
    """The tests ("module.py::name") pytest collects from `paths` that are not marked
    `browser`: read from this run's own items when it collected those modules (the whole
    suite, the fast set: `-m` leaves tests out after collecting them), else collected again."""
    if collected is not None and set(paths) <= {item.path for item in collected}:
        return {f"{item.path.name}::{item.name.split('[')[0]}" for item in collected
                if item.path in paths and item.get_closest_marker("browser") is None}
    # One -q (the project's addopts left out): one line per test.
    r = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-o", "addopts=", "-p", "no:cacheprovider",
                        "-m", "not browser", *map(str, paths)], capture_output=True, text=True, cwd=TESTS)
    assert r.returncode in (0, 5), r.stdout + r.stderr  # 5: every test deselected
    ids = (line.split("[")[0].split("::") for line in r.stdout.splitlines() if "::" in line)
    return {f"{Path(path).name}::{name}" for path, name, *_ in ids}


def unmarked_chromium_tests(paths: list[Path], not_marked: set[str] | None = None) -> list[str]:
    starting = {f"{p.name}::{name}" for p in paths for name in chromium_tests_of(p)}
    return sorted(starting & (unmarked(paths) if not_marked is None else not_marked))


def test_every_test_that_starts_chromium_is_marked_browser(request):
    modules = [p for p in sorted(TESTS.glob("test_*.py")) if chromium_tests_of(p)]
    # The reading finds the browser tests it must (a check that finds nothing proves nothing).
    assert {"test_browser.py", "test_browser_kaboom.py", "test_kiosk.py", "test_venue_browser.py"} <= \
        {p.name for p in modules}
    assert "test_the_kiosk_command_shows_the_board" in chromium_tests_of(TESTS / "test_kiosk.py")
    assert "test_print_shows_the_command_the_unit_runs" not in chromium_tests_of(TESTS / "test_kiosk.py")
    not_marked = unmarked(modules, request.config.stash.get(COLLECTED, None))
    assert "test_kiosk.py::test_print_shows_the_command_the_unit_runs" in not_marked  # collected and read
    assert unmarked_chromium_tests(modules, not_marked) == []


def test_an_unmarked_chromium_test_is_found(tmp_path, monkeypatch):
    """The check itself: a module whose tests start Chromium through Playwright, through a
    fixture of another test module and through the program's path, none of them marked,
    and one test beside them that starts nothing."""
    monkeypatch.setattr(sys.modules[__name__], "TESTS", tmp_path)
    (tmp_path / "conftest.py").write_text("")
    (tmp_path / "test_other.py").write_text(
        "import pytest\nfrom playwright.sync_api import sync_playwright\n\n"
        "@pytest.fixture\ndef page():\n    with sync_playwright() as p:\n        yield p\n")
    (tmp_path / "test_new.py").write_text(
        "import subprocess\nfrom playwright.sync_api import sync_playwright\nfrom test_other import page\n\n"
        "def launch():\n    with sync_playwright() as p:\n        p.chromium.launch()\n\n"
        "def test_through_playwright():\n    launch()\n\n"
        "def test_through_a_fixture(page):\n    pass\n\n"
        "def test_through_the_program():\n    subprocess.run(['/usr/bin/chromium', '--version'])\n\n"
        "def test_of_a_folder(tmp_path):\n    assert (tmp_path / 'chromium').name\n\n"
        "def test_of_nothing():\n    assert 'Chromium' != 'chromium --help'\n")
    chromium_names.cache_clear()
    try:
        assert unmarked_chromium_tests([tmp_path / "test_new.py"]) == [
            "test_new.py::test_through_a_fixture", "test_new.py::test_through_playwright",
            "test_new.py::test_through_the_program"]
    finally:
        chromium_names.cache_clear()
