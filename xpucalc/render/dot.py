"""Box-and-arrow diagrams laid out by Graphviz (``dot``) and drawn as SVG with Korean labels.

A :class:`Graph` holds nodes, edges and optional clusters (a titled frame around some nodes);
:meth:`Graph.source` writes the DOT text, :meth:`Graph.svg` runs Graphviz's ``dot`` on it and
returns the SVG, which a notebook cell shows as a figure (``IPython.display.SVG``). Graphviz
places the boxes and routes the arrows itself, so a page says *what* is connected, not where
each box sits.

Sizes: ``fontsize`` is in points, as in Graphviz; a picture's natural width in CSS pixels is
its width in points × 4/3. :func:`natural_text_px` gives the smallest text of a drawn SVG in
CSS pixels at its natural size, so a page or a test can check it against the 9 px floor.

Needs the ``dot`` program (Debian: ``apt-get install graphviz``) and a Korean font that
fontconfig finds (Debian: ``fonts-noto-cjk``); :meth:`Graph.svg` raises ``RuntimeError``
naming the missing piece instead of drawing boxes of tofu.
"""
from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass, field

FONT = "Noto Sans CJK KR"
# The SVG names the same family list; a reader without Noto gets a Korean system font of similar width.
FONT_FAMILIES = "Noto Sans CJK KR,Apple SD Gothic Neo,Malgun Gothic,sans-serif"
PALETTE = {
    "default": "#eef2f7", "host": "#fde9d9", "device": "#e3f1e0", "chip": "#dfe9f8",
    "warn": "#fbe3e4", "ok": "#e3f1e0", "note": "#f5f5f5", "decision": "#fff4cc",
}
LINE = "#44546a"


def _quote(text: str) -> str:
    """A DOT string literal; ``\\n`` in ``text`` becomes a centred line break."""
    body = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{body}"'


@dataclass
class Graph:
    """Nodes, edges and clusters of one diagram.

    Attributes:
        rankdir: ``"TB"`` (top to bottom, fits a narrow column and a phone) or ``"LR"``.
        fontsize: text size of the boxes in points (edge labels are 90 % of it).
        nodesep: horizontal gap between boxes, inches.
        ranksep: vertical gap between ranks, inches.
        title: optional line drawn above the diagram (the page's caption is the figure's title;
            use this for a reading hint such as "위로 갈수록 빠르고 작다").
    """

    rankdir: str = "TB"
    fontsize: float = 13.0
    nodesep: float = 0.25
    ranksep: float = 0.35
    nodes: dict[str, dict[str, str]] = field(default_factory=dict)
    edges: list[tuple[str, str, dict[str, str]]] = field(default_factory=list)
    clusters: list[tuple[str, list[str]]] = field(default_factory=list)
    same_rank: list[list[str]] = field(default_factory=list)
    title: str = ""

    def node(self, key: str, text: str, color: str = "default", shape: str = "box") -> "Graph":
        """Add a box; ``color`` is a name in ``PALETTE`` or a colour, ``shape`` a Graphviz shape."""
        if key in self.nodes:
            raise ValueError(f"node key {key!r} is used twice; give each node its own key")
        self.nodes[key] = {"label": text, "fillcolor": PALETTE.get(color, color), "shape": shape}
        return self

    def edge(self, src: str, dst: str, label: str = "", style: str = "solid", direction: str = "forward",
             constraint: bool = True) -> "Graph":
        """Add a line from ``src`` to ``dst``.

        Args:
            src, dst: node keys; the layout treats ``src`` as the earlier node (above it in ``TB``,
                left of it on one rank).
            label: text beside the line.
            style: ``"solid"``, ``"dashed"``, ``"dotted"`` or ``"invis"`` (an invisible line that
                only steers the layout).
            direction: where the arrow head is: ``"forward"`` (at ``dst``), ``"back"`` (at ``src``:
                an arrow drawn against the layout's order, e.g. the edge closing a ring),
                ``"both"`` or ``"none"``.
            constraint: False keeps the edge out of the ranking.
        """
        for name, key in (("src", src), ("dst", dst)):
            if key not in self.nodes:
                raise KeyError(f"{name} {key!r} is not a node; nodes: {sorted(self.nodes)}")
        if direction not in ("forward", "back", "both", "none"):
            raise ValueError(f"direction must be forward, back, both or none, got {direction!r}")
        attrs = {"style": style}
        if label:
            attrs["label"] = label
        if direction != "forward":
            attrs["dir"] = direction
        if not constraint:
            attrs["constraint"] = "false"
        self.edges.append((src, dst, attrs))
        return self

    def cluster(self, title: str, keys: list[str]) -> "Graph":
        """Frame the nodes ``keys`` with ``title`` above them."""
        missing = [k for k in keys if k not in self.nodes]
        if missing:
            raise KeyError(f"cluster {title!r} names unknown nodes {missing}; add them with node() first")
        self.clusters.append((title, list(keys)))
        return self

    def rank(self, keys: list[str]) -> "Graph":
        """Put the nodes ``keys`` on one rank (one row when ``rankdir`` is ``"TB"``)."""
        missing = [k for k in keys if k not in self.nodes]
        if missing:
            raise KeyError(f"rank() names unknown nodes {missing}")
        self.same_rank.append(list(keys))
        return self

    def source(self) -> str:
        """The DOT text of the diagram."""
        if self.rankdir not in ("TB", "LR", "BT", "RL"):
            raise ValueError(f"rankdir must be TB, LR, BT or RL, got {self.rankdir!r}")
        if not self.nodes:
            raise ValueError("the graph has no nodes; add some with node()")
        fs, efs = f"{self.fontsize:g}", f"{self.fontsize * 0.9:g}"
        lines = [
            "digraph G {",
            f'  graph [rankdir={self.rankdir}, nodesep={self.nodesep:g}, ranksep={self.ranksep:g}, '
            f'fontname={_quote(FONT_FAMILIES)}, fontsize={fs}, bgcolor="white", pad=0.1];',
            f'  node [fontname={_quote(FONT_FAMILIES)}, fontsize={fs}, style="rounded,filled", color="{LINE}", '
            f'penwidth=1.2, margin="0.12,0.06"];',
            f'  edge [fontname={_quote(FONT_FAMILIES)}, fontsize={efs}, color="{LINE}", fontcolor="#1f3864", '
            f'arrowsize=0.8];',
        ]
        if self.title:
            lines.append(f"  labelloc=t; label={_quote(self.title)};")
        in_cluster = {k for _, keys in self.clusters for k in keys}

        def node_line(key: str) -> str:
            a = self.nodes[key]
            return (f'{_quote(key)} [label={_quote(a["label"])}, shape={a["shape"]}, '
                    f'fillcolor="{a["fillcolor"]}"];')

        def rank_line(keys: list[str]) -> str:
            return "{ rank=same; " + " ".join(_quote(k) + ";" for k in keys) + " }"

        placed: set[int] = set()
        for i, (title, keys) in enumerate(self.clusters):
            lines.append(f'  subgraph cluster_{i} {{ label={_quote(title)}; labeljust=l; style="rounded"; color="#9aa5b1";')
            lines += [f"    {node_line(k)}" for k in keys]
            for j, same in enumerate(self.same_rank):  # a row inside the frame must be declared inside it
                if set(same) <= set(keys):
                    lines.append(f"    {rank_line(same)}")
                    placed.add(j)
            lines.append("  }")
        lines += [f"  {node_line(k)}" for k in self.nodes if k not in in_cluster]
        lines += [f"  {rank_line(same)}" for j, same in enumerate(self.same_rank) if j not in placed]
        for src, dst, attrs in self.edges:
            body = ", ".join(f"{k}={_quote(v)}" for k, v in attrs.items())
            lines.append(f"  {_quote(src)} -> {_quote(dst)} [{body}];")
        lines.append("}")
        return "\n".join(lines) + "\n"

    def svg(self) -> str:
        """Lay the diagram out with ``dot`` and return the SVG text.

        Raises:
            RuntimeError: ``dot`` is not installed, the Korean font is missing, or Graphviz
                reported a problem (its message is included).
        """
        return render_svg(self.source())


def render_svg(source: str) -> str:
    """Run ``dot -Tsvg`` on DOT ``source`` and return the SVG text (see :meth:`Graph.svg`)."""
    exe = shutil.which("dot")
    if exe is None:
        raise RuntimeError("Graphviz's `dot` is not installed; install it with `apt-get install graphviz`")
    fonts = subprocess.run(["fc-list", f":family={FONT}"], capture_output=True, text=True, check=False).stdout
    if not fonts.strip():
        raise RuntimeError(f"the font {FONT!r} is missing; install it with `apt-get install fonts-noto-cjk`")
    done = subprocess.run([exe, "-Tsvg"], input=source, capture_output=True, text=True, check=False)
    if done.returncode != 0 or done.stderr.strip():
        raise RuntimeError(f"dot failed (exit {done.returncode}): {done.stderr.strip()}")
    svg = done.stdout
    return svg[svg.index("<svg"):]  # drop the XML prolog and doctype: the page embeds the element itself


def natural_size_px(svg: str) -> tuple[float, float]:
    """(width, height) of a Graphviz SVG at its natural size, CSS pixels (1 pt = 4/3 px)."""
    m = re.search(r'<svg[^>]*\bwidth="([\d.]+)pt"[^>]*\bheight="([\d.]+)pt"', svg)
    if m is None:
        raise ValueError("not a Graphviz SVG: no width/height in points on the <svg> element")
    return float(m.group(1)) * 4 / 3, float(m.group(2)) * 4 / 3


def natural_text_px(svg: str) -> float:
    """Smallest text of a Graphviz SVG at its natural size, CSS pixels.

    Graphviz writes ``font-size`` in points of its own coordinate system, which the ``<svg>``
    element maps 1:1 onto its width in points; at the natural size a point is 4/3 CSS pixels.
    Multiply by (shown width ÷ natural width) for the size a reader sees.
    """
    sizes = [float(s) for s in re.findall(r'font-size="([\d.]+)"', svg)]
    if not sizes:
        raise ValueError("the SVG has no text")
    m = re.search(r'viewBox="[\d.-]+ [\d.-]+ ([\d.]+) [\d.]+"', svg)
    w_pt = natural_size_px(svg)[0] * 3 / 4
    scale = w_pt / float(m.group(1)) if m else 1.0
    return min(sizes) * scale * 4 / 3


def phone_text_px(svg: str, column_px: float | None = None) -> float:
    """Smallest text of a Graphviz SVG in CSS px as a phone shows it: scaled down to the column
    (``xpucalc.render.plot.PHONE_COLUMN_PX``, 342 px at a 390 px viewport) when wider, else at its natural size."""
    if column_px is None:
        from .plot import PHONE_COLUMN_PX as column_px
    width = natural_size_px(svg)[0]
    return natural_text_px(svg) * min(1.0, column_px / width)
