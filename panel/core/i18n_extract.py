"""Babel's extractors for what is not Python (babel.cfg): the pages' HTML and the layout
files' words. Only `pybabel extract` uses them; kept out of panel.core.i18n so that what
says a Text (the engines) imports no file reader.
"""

from __future__ import annotations

import html.parser
from typing import Iterator

from panel.core.i18n import CONTROL_NAME, MODULE, MODULE_NAME, SECTION, SHAPE


def extract_html(fileobj, keywords, comment_tags, options) -> Iterator[tuple[int, str, str, list[str]]]:
    """Babel extractor for the pages' HTML (babel.cfg): the text of each element marked
    `data-t`, whitespace collapsed as common.js does, and each attribute `data-t-attrs` names."""
    found: list[tuple[int, str, str, list[str]]] = []

    class Parser(html.parser.HTMLParser):
        def __init__(self) -> None:
            super().__init__(convert_charrefs=True)
            self.open: list[tuple[str, int, list[str]]] = []  # marked elements being read

        def handle_starttag(self, tag, attrs) -> None:
            a = dict(attrs)
            if self.open:
                raise ValueError(f"{getattr(fileobj, 'name', 'page')}:{self.getpos()[0]}: <{tag}> inside an "
                                 f"element marked data-t: a message is plain text (mark the pieces instead)")
            for name in (a.get("data-t-attrs") or "").split():
                if a.get(name):
                    found.append((self.getpos()[0], "gettext", a[name], []))
            if "data-t" in a and tag not in ("input", "img", "br", "meta", "link"):
                self.open.append((tag, self.getpos()[0], []))

        def handle_data(self, data) -> None:
            if self.open:
                self.open[-1][2].append(data)

        def handle_endtag(self, tag) -> None:
            if self.open and self.open[-1][0] == tag:
                _, line, parts = self.open.pop()
                text = " ".join("".join(parts).split())
                if text:
                    found.append((line, "gettext", text, []))

    parser = Parser()
    parser.feed(fileobj.read().decode(options.get("encoding", "utf-8")))
    parser.close()
    return iter(found)




def extract_layout(fileobj, keywords, comment_tags, options) -> Iterator[tuple[int, str, tuple[str, str], list[str]]]:
    """Babel extractor for the layout files (babel.cfg): the words Layout.plain_name says."""
    import tomllib

    raw = tomllib.loads(fileobj.read().decode(options.get("encoding", "utf-8")))
    colours = set()
    found: list[tuple[str, str]] = []
    for module in raw.get("modules", []):
        found += [(MODULE, module["name"]), (MODULE_NAME, module["name"])]
        for section in module.get("sections", []):
            if section.get("kind") == "buttons":
                found.append((SECTION, section["id"].replace("_", " ")))
            for b in section.get("buttons", []):
                found.append((SHAPE, str(b.get("shape", "")).split("-")[0]))
            for t in section.get("tokens", []):
                c = t.get("colour")
                colours.update(c.values() if isinstance(c, dict) else [c])
                found.append((CONTROL_NAME, t["name"]))
    for ctx, word in dict.fromkeys(found):
        if word and not word.isdigit() and not (ctx == CONTROL_NAME and word in colours):
            yield 1, "pgettext", (ctx, word), []
