"""MkDocs hooks of the guide (mkdocs.yml `hooks`): the maker's and the firmware's pages live
beside what they describe (hardware/, firmware/, wiring/: a maker looks there, and
`penguin-panel wiring` writes there), so the site takes them from there instead of a copy
in docs/ that would drift. A link in them to a file the site does not carry (a map, a
folder, a source file) is shown as the file's path in the repository; a link to a page
must still resolve, so the strict build still fails on a broken one."""

from __future__ import annotations

import posixpath
import re
from pathlib import Path

from mkdocs.structure.files import File

ROOT = Path(__file__).resolve().parents[2]
# What the site takes from the repository, as repository paths (their site path is the same).
INCLUDED = ("hardware/*.md", "firmware/README.md", "firmware/PROTOCOL.md", "wiring/*/*.md", "wiring/*/*.svg")
LINK = re.compile(r"\[([^\]]*)\]\(([^)\s#]+)(#[^)]*)?\)")


def on_files(files, config):
    for pattern in INCLUDED:
        for path in sorted(ROOT.glob(pattern)):
            uri = path.relative_to(ROOT).as_posix()
            if files.get_file_from_path(uri) is None:
                files.append(File.generated(config, uri, abs_src_path=str(path)))
    return files


def on_page_markdown(markdown, page, config, files):
    if not page.file.src_uri.startswith(("hardware/", "firmware/", "wiring/")):
        return markdown

    def link(m: re.Match) -> str:
        text, target, anchor = m.group(1), m.group(2), m.group(3) or ""
        if "://" in target or target.endswith(".md"):
            return m.group(0)
        repo_path = posixpath.normpath(posixpath.join(posixpath.dirname(page.file.src_uri), target))
        if files.get_file_from_path(repo_path) is not None:
            return m.group(0)
        return text if text.startswith("`") else f"{text} (`{repo_path}`)"

    return LINK.sub(link, markdown)
