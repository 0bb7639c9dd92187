"""A debrief's tables as text: Markdown for the terminal, CSV for a spreadsheet (every game's
tables are lists of rows with named columns)."""

from __future__ import annotations

import csv
import io
from typing import Any


def markdown_table(rows: list[dict[str, Any]]) -> str:
    if not rows:
        return "(none)\n"
    cols = list(rows[0])
    out = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for r in rows:
        out.append("| " + " | ".join("" if r[c] is None else str(r[c]) for c in cols) + " |")
    return "\n".join(out) + "\n"


def csv_text(rows: list[dict[str, Any]], columns: tuple[str, ...]) -> str:
    """One table as CSV. A text cell a spreadsheet would read as a formula (a team named
    "=HYPERLINK(...)") gets a leading apostrophe, the usual guard against CSV injection."""
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\r\n")
    w.writerow(columns)
    for r in rows:
        w.writerow(["" if r.get(c) is None else _cell(r.get(c)) for c in columns])
    return out.getvalue()


def _cell(v: Any) -> Any:
    if isinstance(v, str) and v[:1] in ("=", "+", "-", "@", "\t", "\r"):
        return "'" + v
    return v
