"""The guide at /help/ (panel/server/pages.py): the built site's pages and assets from the
running cockpit, a folder's index.html and never a listing, nothing outside the guide's
folder, caching that shows a new install's guide at once, one clear line when the guide is
missing. (The guide from an installed wheel, with no network: tests/test_wheel.py.)"""

from __future__ import annotations

import urllib.error
import urllib.request

import pytest

from service_helpers import ServiceThread


def fetch(url: str):
    """(status, headers, body) without following redirects."""
    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *a, **kw):
            return None

    try:
        with urllib.request.build_opener(NoRedirect).open(url, timeout=20) as r:
            return r.status, r.headers, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers, e.read()


@pytest.fixture
def guide(tmp_path):
    """A site laid out as MkDocs builds the guide (use_directory_urls: false)."""
    site = tmp_path / "help"
    (site / "assets" / "stylesheets").mkdir(parents=True)
    (site / "reference").mkdir()
    (site / "search").mkdir()
    (site / "index.html").write_text('<link href="assets/stylesheets/main.1a2b.min.css"><h1>the guide</h1>')
    (site / "cafes.html").write_text("<h1>for cafes</h1>")
    (site / "assets" / "stylesheets" / "main.1a2b.min.css").write_text("body{}")
    (site / "reference" / "commands.html").write_text("<h1>commands</h1>")
    (site / "search" / "search_index.json").write_text("{}")
    (tmp_path / "secret.txt").write_text("not the guide's")
    (site / "linked.txt").symlink_to(tmp_path / "secret.txt")
    return site


def test_the_guide_index_a_page_and_its_assets(tmp_path, guide):
    with ServiceThread(tmp_path / "p.db", help_dir=guide) as s:
        status, headers, body = fetch(s.base + "/help/")
        assert (status, body) == (200, (guide / "index.html").read_bytes())
        assert headers["Content-Type"].startswith("text/html") and headers["Cache-Control"] == "no-cache"
        status, headers, body = fetch(s.base + "/help/assets/stylesheets/main.1a2b.min.css")
        assert (status, body) == (200, b"body{}") and headers["Cache-Control"] == "public, max-age=86400"
        assert fetch(s.base + "/help/reference/commands.html")[2] == b"<h1>commands</h1>"
        status, headers, _ = fetch(s.base + "/help/search/search_index.json")
        assert status == 200 and headers["Cache-Control"] == "no-cache"
        # /help without its slash: the guide's relative links need /help/
        status, headers, _ = fetch(s.base + "/help")
        assert status == 308 and headers["Location"] == "/help/"


def test_no_listing_and_nothing_outside_the_guide(tmp_path, guide):
    with ServiceThread(tmp_path / "p.db", help_dir=guide) as s:
        for path in ("assets/", "assets/stylesheets", "reference/", "nosuch.html", "../secret.txt",
                     "%2e%2e/secret.txt", "linked.txt", "/etc/passwd", "x%00y"):
            status, headers, body = fetch(s.base + "/help/" + path)
            assert status == 404, (path, status, body[:200])
            assert headers["Content-Type"].startswith("application/json") and b"not the guide" not in body
        assert b"the guide has no page nosuch.html" in fetch(s.base + "/help/nosuch.html")[2]


def test_a_guide_not_built_is_said_in_one_line(tmp_path):
    with ServiceThread(tmp_path / "p.db", help_dir=tmp_path / "nothing") as s:
        status, _, body = fetch(s.base + "/help/")
    assert status == 404 and b"the guide is not built into this install" in body
