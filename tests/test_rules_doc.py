"""The house rules are written down in the repository (docs/rules.md, docs/kaboom.md for
Penguin Kaboom and docs/ultimatum.md for Penguin Ultimatum), and every rule number the code,
the tests and the documents quote points at a rule that is there ("Kaboom rule N" at
docs/kaboom.md's, "Ultimatum rule N" at docs/ultimatum.md's)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT / "docs" / "rules.md"
KABOOM_RULES = ROOT / "docs" / "kaboom.md"
ULTIMATUM_RULES = ROOT / "docs" / "ultimatum.md"
TEXT = (".py", ".js", ".html", ".css", ".md", ".toml", ".yml", ".txt", ".service")
SKIP = {".git", ".venv", "__pycache__", "node_modules", "build", "dist"}
# "rule 7", "Rule 7:", "rules 8 and 22", "rules 11, 15 and 17"; not "Kaboom rule 7" nor "Ultimatum rule 7"
QUOTED = re.compile(r"(?<!Kaboom )(?<!Ultimatum )\b[Rr]ules? (\d+(?:(?:, | and )\d+)*)")
KABOOM_QUOTED = re.compile(r"\bKaboom [Rr]ules? (\d+(?:(?:, | and )\d+)*)")
ULTIMATUM_QUOTED = re.compile(r"\bUltimatum [Rr]ules? (\d+(?:(?:, | and )\d+)*)")


def project_files() -> list[Path]:
    out = []
    for path in ROOT.rglob("*"):
        rel = path.relative_to(ROOT)
        if any(part in SKIP or part.endswith(".egg-info") for part in rel.parts):
            continue
        if path.is_file() and (path.suffix in TEXT or path.name == "README.md"):
            out.append(path)
    return out


def numbered_rules(doc: Path = RULES) -> list[int]:
    return [int(m.group(1)) for m in re.finditer(r"^(\d+)\. \*\*", doc.read_text(), re.M)]


def quoted_in(paths: list[Path], pattern: re.Pattern) -> dict[int, list[str]]:
    quoted: dict[int, list[str]] = {}
    for path in paths:
        for i, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
            for m in pattern.finditer(line):
                for n in re.findall(r"\d+", m.group(1)):
                    quoted.setdefault(int(n), []).append(f"{path.relative_to(ROOT)}:{i}")
    return quoted


def test_the_rules_are_numbered_one_by_one():
    numbers = numbered_rules()
    assert numbers == list(range(1, len(numbers) + 1)) and len(numbers) >= 20


def test_every_rule_number_quoted_exists():
    rules = set(numbered_rules())
    # docs/kaboom.md's and docs/ultimatum.md's own "rule N" are their rules (checked below)
    quoted = quoted_in([p for p in project_files() if p not in (KABOOM_RULES, ULTIMATUM_RULES)], QUOTED)
    missing = {n: where for n, where in quoted.items() if n not in rules}
    assert not missing, f"rule numbers quoted but not in docs/rules.md: {missing}"
    # The engine, its tests and the guide's page on the games do quote them (the check above checked something).
    places = {w.split(":")[0] for where in quoted.values() for w in where}
    assert {"panel/games/airlines/engine/match.py", "tests/test_engine_match.py", "docs/games.md"} <= places


def test_every_kaboom_rule_quoted_exists():
    rules = numbered_rules(KABOOM_RULES)
    assert rules == list(range(1, len(rules) + 1)) and len(rules) >= 10
    quoted = quoted_in(project_files(), KABOOM_QUOTED)
    quoted_there = quoted_in([KABOOM_RULES], QUOTED)  # the document's references to itself
    missing = {n: where for n, where in {**quoted, **quoted_there}.items() if n not in rules}
    assert not missing, f"Kaboom rule numbers quoted but not in docs/kaboom.md: {missing}"
    places = {w.split(":")[0] for where in quoted.values() for w in where}
    assert "panel/games/kaboom/engine.py" in places


def test_every_ultimatum_rule_quoted_exists():
    rules = numbered_rules(ULTIMATUM_RULES)
    assert rules == list(range(1, len(rules) + 1)) and len(rules) >= 10
    quoted = quoted_in(project_files(), ULTIMATUM_QUOTED)
    quoted_there = quoted_in([ULTIMATUM_RULES], QUOTED)  # the document's references to itself
    missing = {n: where for n, where in {**quoted, **quoted_there}.items() if n not in rules}
    assert not missing, f"Ultimatum rule numbers quoted but not in docs/ultimatum.md: {missing}"
    places = {w.split(":")[0] for where in quoted.values() for w in where}
    assert {"panel/games/ultimatum/engine.py", "panel/games/ultimatum/scoring.py"} <= places


def test_the_readme_links_the_rules():
    assert "(docs/rules.md)" in (ROOT / "README.md").read_text()


def test_nothing_points_outside_the_repository_for_its_rules():
    """The design notes the project began from are not part of it: no file names them."""
    outside = re.compile("DESIGN" + r"\.md|\.\./" + "shared")
    found = [f"{p.relative_to(ROOT)}:{i}" for p in project_files()
             for i, line in enumerate(p.read_text(encoding="utf-8", errors="replace").splitlines(), 1)
             if outside.search(line)]
    assert found == []
