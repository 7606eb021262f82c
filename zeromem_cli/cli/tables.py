"""Tables a person reads on a terminal (list, search, history, trash): fitted to its width,
times in its local zone, long text cut with a marker.

- **Content stays visible.** One column is the content; it gets at least half of the width
  (``CONTENT_SHARE``, never under ``CONTENT_MIN`` characters). When the other columns leave
  less, they are dropped, least useful first (each column says when: ``drop``), and the
  content takes their room. At 40 columns a list shows id, category and content.
- **Long text is cut** in the table only: at ``CUT_CHARS`` characters or ``CUT_LINES`` lines,
  ending with ``… [+N chars]``; tags after ``CUT_TAGS``. Plain and JSON output stay whole
  (``show ID`` or ``--format plain`` gives all of it).
- **Times are local** (the machine's zone, ``TZ``), to the minute, and the header names the
  zone: ``updated (CET)``. Plain and JSON keep UTC ISO-8601.

rich is imported here only, when a table is drawn.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any, NamedTuple

CONTENT_SHARE = 0.5
CONTENT_MIN = 16
CUT_CHARS = 400
CUT_LINES = 8
CUT_TAGS = 8
# What rich puts between two columns without edges: padding on each side and a rule.
GAP = 3


class Column(NamedTuple):
    """A table column: ``drop`` 0 is always kept (id, content); otherwise the column with the
    highest ``drop`` goes first when the terminal is too narrow."""

    name: str
    drop: int = 0
    style: str | None = None
    justify: str = "left"
    content: bool = False
    wrap: bool = False  # may wrap (tags); the content always may


def cut(text: str) -> str:
    """Long memory text for a table cell, with a marker saying how much was left out."""
    lines = text.split("\n")
    short = "\n".join(lines[:CUT_LINES]) if len(lines) > CUT_LINES else text
    short = short[:CUT_CHARS]
    if len(short) == len(text):
        return text
    return f"{short.rstrip()}… [+{len(text) - len(short)} chars]"


def tag_list(tags: Sequence[str]) -> str:
    """Tags for a cell: the first ``CUT_TAGS``, then how many more."""
    shown = ", ".join(tags[:CUT_TAGS])
    return shown + (f", … [+{len(tags) - CUT_TAGS}]" if len(tags) > CUT_TAGS else "")


def zone() -> str:
    """This machine's zone as the header says it (``CET``, ``UTC``, ``+08``)."""
    return datetime.now().astimezone().strftime("%Z") or "local"


def local_time(iso: str | None) -> str:
    """A stored UTC time in the local zone, to the minute (``2026-12-01 09:30``)."""
    if not iso:
        return ""
    from zeromem_cli.times import from_iso

    try:
        return from_iso(iso).astimezone().strftime("%Y-%m-%d %H:%M")
    except (ValueError, OverflowError, OSError):  # not a time zeromem wrote: as stored
        return iso[:16].replace("T", " ")


def local_moment(iso: str) -> str:
    """A stored UTC time in the local zone, to the second, with the zone
    (``2026-12-01 09:30:05 CET``): the key/value view of one memory."""
    from zeromem_cli.times import from_iso

    try:
        return from_iso(iso).astimezone().strftime("%Y-%m-%d %H:%M:%S %Z").rstrip()
    except (ValueError, OverflowError, OSError):  # not a time zeromem wrote: as stored
        return iso


def fit(columns: Sequence[Column], rows: Sequence[Sequence[str]], width: int) -> list[int]:
    """The indexes of the columns to draw at ``width``: all, unless the content would get
    less than its share; then the most droppable ones go until it fits (or none is left)."""
    from rich.cells import cell_len

    def need(index: int) -> int:
        cells = [row[index] for row in rows]
        longest = max((cell_len(line) for c in cells for line in c.split("\n")), default=0)
        return max(cell_len(columns[index].name), longest)

    content = next(i for i, c in enumerate(columns) if c.content)
    wanted = max(CONTENT_MIN, int(width * CONTENT_SHARE))
    wanted = min(wanted, need(content))  # short content needs no more than itself
    keep = list(range(len(columns)))
    widths = {i: need(i) for i in keep if i != content}
    droppable = sorted((i for i in keep if columns[i].drop), key=lambda i: -columns[i].drop)
    while droppable:
        used = sum(widths[i] for i in keep if i != content) + GAP * (len(keep) - 1)
        if width - used >= wanted:
            break
        keep.remove(droppable.pop(0))
    return keep


def draw(columns: Sequence[Column], rows: Sequence[Sequence[str]], console: Any) -> None:
    """Print ``rows`` under ``columns``, fitted to the console's width. Cells are data, never
    rich markup ('[red]' prints as written)."""
    from rich.table import Table
    from rich.text import Text

    keep = fit(columns, rows, console.width)
    table = Table(show_edge=False, pad_edge=False, header_style="bold")
    for index in keep:
        column = columns[index]
        table.add_column(
            column.name,
            style=column.style,
            justify=column.justify,  # type: ignore[arg-type]
            no_wrap=not (column.content or column.wrap),
            overflow="fold",
            ratio=1 if column.content else None,
            min_width=CONTENT_MIN if column.content else None,
        )
    for row in rows:
        table.add_row(*(Text(row[index]) for index in keep))
    console.print(table)
