"""Box-and-arrow diagrams drawn with matplotlib, so they render offline with Korean labels.

A diagram is a set of boxes placed on a grid and arrows between them. Coordinates
are grid units: ``(col, row)`` with row 0 at the top.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from .plot import COLUMN_WIDTH_IN, setup_korean_font

PALETTE = {
    "default": "#eef2f7", "host": "#fde9d9", "device": "#e3f1e0", "chip": "#dfe9f8",
    "warn": "#fbe3e4", "ok": "#e3f1e0", "note": "#f5f5f5", "decision": "#fff4cc",
}


@dataclass
class Box:
    """A labelled box centred at grid position (col, row); ``width``/``height`` in grid units."""

    key: str
    text: str
    col: float
    row: float
    width: float = 2.2
    height: float = 0.8
    color: str = "default"


@dataclass
class Arrow:
    """An arrow from box ``src`` to box ``dst`` with an optional label; ``both`` draws a two-way arrow."""

    src: str
    dst: str
    label: str = ""
    both: bool = False
    style: str = "-"


@dataclass
class Diagram:
    """Boxes and arrows; :meth:`draw` returns a matplotlib figure."""

    boxes: list[Box] = field(default_factory=list)
    arrows: list[Arrow] = field(default_factory=list)
    title: str = ""

    def box(self, key: str, text: str, col: float, row: float, **kw) -> "Diagram":
        if any(b.key == key for b in self.boxes):
            raise ValueError(f"key {key!r} is used twice")
        self.boxes.append(Box(key, text, col, row, **kw))
        return self

    def arrow(self, src: str, dst: str, label: str = "", **kw) -> "Diagram":
        known = {b.key for b in self.boxes}
        for name, k in (("src", src), ("dst", dst)):
            if k not in known:
                raise KeyError(f"{name} {k!r} is not a box; boxes: {sorted(known)}")
        self.arrows.append(Arrow(src, dst, label, **kw))
        return self

    def draw(self, scale: float = 1.0, fontsize: float = 10, max_width: float = COLUMN_WIDTH_IN):
        """Draw the diagram and return the figure.

        Args:
            scale: multiplies the figure size (inches per grid unit).
            fontsize: box text size in points at ``scale``.
            max_width: widest figure in inches; a wider drawing is shrunk as a whole (boxes, text
                and arrows together), so the site shows it at its natural size instead of the
                browser scaling the picture down.
        """
        import matplotlib.pyplot as plt
        from matplotlib.patches import FancyArrowPatch, FancyBboxPatch

        if not self.boxes:
            raise ValueError("the diagram has no boxes")
        setup_korean_font()
        xs = [b.col for b in self.boxes]
        ys = [b.row for b in self.boxes]
        pad_x = max(b.width for b in self.boxes) / 2 + 0.3
        pad_y = max(b.height for b in self.boxes) / 2 + 0.3
        x0, x1 = min(xs) - pad_x, max(xs) + pad_x
        y0, y1 = min(ys) - pad_y, max(ys) + pad_y
        width = (x1 - x0) * 1.25 * scale
        if max_width <= 0:
            raise ValueError(f"max_width must be > 0 inches, got {max_width}")
        shrink = min(1.0, max_width / width)
        scale, fontsize = scale * shrink, fontsize * shrink
        fig, ax = plt.subplots(figsize=((x1 - x0) * 1.25 * scale, (y1 - y0) * 1.1 * scale + (0.4 if self.title else 0)))
        ax.set_xlim(x0, x1)
        ax.set_ylim(y1, y0)  # row 0 at the top
        ax.axis("off")
        by_key = {b.key: b for b in self.boxes}
        for b in self.boxes:
            ax.add_patch(FancyBboxPatch((b.col - b.width / 2, b.row - b.height / 2), b.width, b.height,
                                        boxstyle="round,pad=0.02,rounding_size=0.12", lw=1.2, ec="#44546a",
                                        fc=PALETTE.get(b.color, b.color)))
            ax.text(b.col, b.row, b.text, ha="center", va="center", fontsize=fontsize, wrap=True)
        for a in self.arrows:
            s, d = by_key[a.src], by_key[a.dst]
            p0, p1 = _edge_point(s, d), _edge_point(d, s)
            ax.add_patch(FancyArrowPatch(p0, p1, arrowstyle="<|-|>" if a.both else "-|>", mutation_scale=14 * max(shrink, 0.6),
                                         lw=1.3, color="#44546a", linestyle=a.style, shrinkA=2, shrinkB=2))
            if a.label:
                mx, my = (p0[0] + p1[0]) / 2, (p0[1] + p1[1]) / 2
                ax.text(mx, my, a.label, ha="center", va="center", fontsize=fontsize * 0.85, color="#1f3864",
                        bbox=dict(boxstyle="round,pad=0.15", fc="white", ec="none", alpha=0.9))
        if self.title:
            ax.set_title(self.title, fontsize=fontsize * 1.15)
        fig.tight_layout()
        return fig


def _edge_point(a: Box, b: Box) -> tuple[float, float]:
    """Point on the border of box ``a`` along the line towards the centre of box ``b``."""
    dx, dy = b.col - a.col, b.row - a.row
    if dx == 0 and dy == 0:
        return a.col, a.row
    sx = (a.width / 2) / abs(dx) if dx else float("inf")
    sy = (a.height / 2) / abs(dy) if dy else float("inf")
    t = min(sx, sy)
    return a.col + dx * t, a.row + dy * t


def chain(labels: Sequence[str], vertical: bool = False, title: str = "", color: str = "default",
          arrow_labels: Sequence[str] = ()) -> Diagram:
    """A straight sequence of boxes joined by arrows (a flow of steps)."""
    d = Diagram(title=title)
    for i, text in enumerate(labels):
        d.box(f"s{i}", text, 0 if vertical else i * 2.8, i * 1.3 if vertical else 0, color=color)
    for i in range(len(labels) - 1):
        d.arrow(f"s{i}", f"s{i + 1}", arrow_labels[i] if i < len(arrow_labels) else "")
    return d
