"""A tiny table that renders to Markdown and HTML (notebooks show the HTML)."""
from __future__ import annotations

import html
from dataclasses import dataclass, field


class Code(str):
    """A cell shown as code (an argument name, a catalog key): ``<code>`` in HTML, backticks in Markdown."""


@dataclass
class Table:
    """Rows of strings under a header; displayed as HTML in notebooks.

    Args:
        headers: column titles.
        rows: one list of cell strings per row, as long as ``headers``.
        caption: optional caption shown above the table.
        notes: optional lines shown under the table (sources, footnotes).
    """

    headers: list[str]
    rows: list[list[str]] = field(default_factory=list)
    caption: str = ""
    notes: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        for i, row in enumerate(self.rows):
            if len(row) != len(self.headers):
                raise ValueError(f"rows[{i}] has {len(row)} cells but there are {len(self.headers)} headers")

    def add(self, *cells: object) -> None:
        """Append a row; each cell is converted with ``str`` (a :class:`Code` cell stays code)."""
        if len(cells) != len(self.headers):
            raise ValueError(f"cells has {len(cells)} values but there are {len(self.headers)} headers")
        self.rows.append([c if isinstance(c, Code) else str(c) for c in cells])

    def column(self, header: str) -> list[str]:
        """All cells of the column titled ``header``."""
        if header not in self.headers:
            raise KeyError(f"header {header!r} not in {self.headers}")
        i = self.headers.index(header)
        return [r[i] for r in self.rows]

    def to_markdown(self) -> str:
        """GitHub-style Markdown table (pipes in cells are escaped)."""
        def esc(s: str) -> str:
            text = str(s).replace("|", "\\|").replace("\n", " ")
            return f"`{text}`" if isinstance(s, Code) else text
        lines = []
        if self.caption:
            lines += [f"**{esc(self.caption)}**", ""]
        lines.append("| " + " | ".join(esc(h) for h in self.headers) + " |")
        lines.append("|" + "---|" * len(self.headers))
        lines += ["| " + " | ".join(esc(c) for c in row) + " |" for row in self.rows]
        lines += [""] + [f"- {esc(n)}" for n in self.notes] if self.notes else []
        return "\n".join(lines)

    def to_html(self) -> str:
        """HTML table inside a horizontally scrolling box (wide tables stay readable on phones)."""
        e = html.escape
        head = "".join(f"<th>{e(h)}</th>" for h in self.headers)
        def cell(c: str) -> str:
            return f"<code>{e(str(c))}</code>" if isinstance(c, Code) else e(str(c))
        body = "".join("<tr>" + "".join(f"<td>{cell(c)}</td>" for c in row) + "</tr>" for row in self.rows)
        # The visible caption sits above the scroll box, so a phone reader sees it while scrolling the
        # table sideways; the <caption> inside stays for screen readers (hidden on screen by the site CSS).
        cap = f"<caption>{e(self.caption)}</caption>" if self.caption else ""
        shown = f"<p class='xpucalc-caption' aria-hidden='true'>{e(self.caption)}</p>" if self.caption else ""
        notes = ("<ul class='xpucalc-notes'>" + "".join(f"<li>{e(n)}</li>" for n in self.notes) + "</ul>") if self.notes else ""
        return (f"<div class='xpucalc-block'>{shown}<div class='xpucalc-table' style='overflow-x:auto'><table class='table'>{cap}"
                f"<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>{notes}</div>")

    def _repr_html_(self) -> str:
        return self.to_html()

    def _repr_markdown_(self) -> str:
        return self.to_markdown()

    def __str__(self) -> str:
        return self.to_markdown()
