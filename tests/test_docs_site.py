"""The guide (docs/, mkdocs.yml): its strict build passes with nothing loaded from another
host, and its reference pages are what the code declares (commands, options, settings
keys), both ways."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from panel.tools import reference
from panel.tools.cli import main

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = ROOT / "docs" / "reference"
# What a page loads: scripts, style sheets, images, icons, frames, and CSS's url() and @import.
LOADS = re.compile(r"<(?:script|img|iframe|source)\b[^>]*\bsrc=\"([^\"]+)\"|<link\b[^>]*\bhref=\"([^\"]+)\""
                   r"|url\(['\"]?([^)'\"]+)|@import\s+['\"]([^'\"]+)")


def build_site(out: Path, config: Path = ROOT / "mkdocs.yml") -> subprocess.CompletedProcess:
    # not -q: MkDocs' strict mode counts only the warnings it logs
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    return subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(config), "-d", str(out)],
                          cwd=ROOT, capture_output=True, text=True, env=env)


@pytest.mark.slow  # a whole site built (about 10 s)
def test_the_strict_build_passes_and_loads_nothing_from_another_host(tmp_path):
    r = build_site(tmp_path / "site")
    assert r.returncode == 0, r.stderr[-3000:]
    pages = list((tmp_path / "site").rglob("*.html"))
    assert (tmp_path / "site" / "index.html").is_file() and len(pages) > 20
    outside = {}
    for path in [*pages, *(tmp_path / "site").rglob("*.css")]:
        for m in LOADS.finditer(path.read_text(encoding="utf-8", errors="replace")):
            url = next(g for g in m.groups() if g)
            if re.match(r"(https?:)?//", url):
                outside.setdefault(url, path.name)
    assert not outside, f"the guide loads these from another host: {outside}"
    # the search works offline: its index is a file of the site
    assert (tmp_path / "site" / "search" / "search_index.json").is_file()


@pytest.mark.slow
def test_a_broken_link_fails_the_build(tmp_path):
    """The same site from a copy of docs/ with one link to a page that is not there."""
    import yaml

    shutil.copytree(ROOT / "docs", tmp_path / "docs")
    page = tmp_path / "docs" / "educators.md"
    page.write_text(page.read_text() + "\n[nowhere](no-such-page.md)\n")
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text())
    config["docs_dir"] = str(tmp_path / "docs")
    config["hooks"] = [str(ROOT / h) for h in config["hooks"]]
    (tmp_path / "mkdocs.yml").write_text(yaml.safe_dump(config))
    r = build_site(tmp_path / "site", tmp_path / "mkdocs.yml")
    assert r.returncode != 0 and "no-such-page.md" in r.stderr


def test_the_reference_is_up_to_date(capsys):
    assert main(["docs", "reference", "--out", str(REFERENCE), "--check"]) == 0, capsys.readouterr().err


def documented_commands() -> set[str]:
    """The commands and options the committed page names: its headings and its options' rows."""
    names, command = set(), None
    for line in (REFERENCE / "commands.md").read_text().splitlines():
        if m := re.match(r"## `penguin-panel (.+)`$", line):
            command = m.group(1)
            names.add(command)
        elif command and (m := re.match(r"\| (`-.*?) \|", line)):
            names.update(f"{command} {o}" for o in re.findall(r"`(-[-\w]+)", m.group(1)))
    return names


def test_every_command_and_option_is_in_the_reference_and_nothing_else():
    code, page = reference.command_names(), documented_commands()
    assert {"play", "play --sim", "wiring --check", "docs reference --out"} <= code
    assert not code - page, f"in the code, not in docs/reference/commands.md: {sorted(code - page)}"
    assert not page - code, f"in docs/reference/commands.md, not in the code: {sorted(page - code)}"


def documented_keys() -> set[str]:
    keys, title = set(), None
    for line in (REFERENCE / "settings.md").read_text().splitlines():
        if line.startswith("## "):
            title = line[3:]
        elif title and (m := re.match(r"\| `(?:\[([\w-]+)\] )?(\w+)` \|", line)):
            table = m.group(1) or ("kaboom-scenario" if "Kaboom scenario" in title else "")
            keys.add(f"{title}: {table}.{m.group(2)}")
    return keys


def test_every_settings_key_is_in_the_reference_and_nothing_else():
    code, page = reference.settings_keys(), documented_keys()
    assert "The cockpit's settings file: service.keep_logs_days" in code
    assert "The cockpit's settings file: mqtt.cockpit_id" in code
    assert not code - page, f"in the code, not in docs/reference/settings.md: {sorted(code - page)}"
    assert not page - code, f"in docs/reference/settings.md, not in the code: {sorted(page - code)}"


def test_a_key_without_a_meaning_stops_the_reference(monkeypatch):
    monkeypatch.delitem(reference.MEANINGS, "service.port")
    with pytest.raises(ValueError, match="service.port: no meaning"):
        reference.reference_files()
    monkeypatch.setitem(reference.MEANINGS, "service.no_such_key", "x")
    assert any("service.no_such_key" in p for p in reference.undescribed())


def test_a_new_option_makes_the_reference_stale(monkeypatch, capsys):
    from panel.tools.commands import venue

    register = venue.register

    def more(sub):
        register(sub)
        sub.choices["venue"].add_argument("--louder", action="store_true", help="a new option")

    monkeypatch.setattr(venue, "register", more)
    assert "venue --louder" in reference.command_names()
    assert main(["docs", "reference", "--out", str(REFERENCE), "--check"]) == 1
    assert "commands.md is stale" in capsys.readouterr().err
