"""xpucalc.render.dot: DOT text from nodes and edges, SVG from Graphviz, text size at the natural size."""
from __future__ import annotations

import re
import shutil

import pytest

from xpucalc.render.dot import FONT, Graph, natural_size_px, natural_text_px

needs_dot = pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot is not installed")


def _flow() -> Graph:
    g = Graph(fontsize=12)
    g.node("q", '모델이 "한 장"에\n들어가나?', "decision").node("yes", "DDP", "ok").node("no", "TP", "ok")
    g.edge("q", "yes", "예").edge("q", "no", "아니오", direction="back")
    return g


def test_source_quotes_labels_and_keeps_korean_line_breaks():
    src = _flow().source()
    assert r'label="모델이 \"한 장\"에\n들어가나?"' in src  # quotes escaped, the line break is DOT's \n
    assert '"q" -> "no" [style="solid", label="아니오", dir="back"];' in src
    assert 'fillcolor="#fff4cc"' in src  # the "decision" colour of the palette
    assert "rankdir=TB" in src and "fontsize=12" in src
    assert "fontsize=10.8" in src  # edge labels at 90 % of the box text: 12 x 0.9
    titled = Graph(title="위로 갈수록 빠르다").node("a", "가").source()
    assert 'labelloc=t; label="위로 갈수록 빠르다";' in titled and "labelloc" not in src


def test_rank_inside_a_cluster_is_declared_inside_it():
    g = Graph().node("a", "가").node("b", "나").node("c", "다")
    g.cluster("묶음", ["a", "b"]).rank(["a", "b"]).rank(["b", "c"])
    src = g.source()
    inside = src[src.index("subgraph cluster_0"):src.index("  }\n")]
    assert '{ rank=same; "a"; "b"; }' in inside
    assert '{ rank=same; "b"; "c"; }' not in inside and '{ rank=same; "b"; "c"; }' in src


def test_bad_graphs_name_the_problem():
    g = Graph().node("a", "가")
    with pytest.raises(ValueError, match="twice"):
        g.node("a", "again")
    with pytest.raises(KeyError, match="dst 'b'"):
        g.edge("a", "b")
    with pytest.raises(KeyError, match=r"\['z'\]"):
        g.cluster("묶음", ["a", "z"])
    with pytest.raises(KeyError, match="unknown"):
        g.rank(["z"])
    with pytest.raises(ValueError, match="direction"):
        g.edge("a", "a", direction="up")
    with pytest.raises(ValueError, match="rankdir"):
        Graph(rankdir="XY").node("a", "가").source()
    with pytest.raises(ValueError, match="no nodes"):
        Graph().source()


@needs_dot
def test_svg_has_korean_text_in_the_korean_font_and_its_natural_text_size():
    svg = _flow().svg()
    assert svg.startswith("<svg")
    assert "들어가나?" in svg and "아니오" in svg
    assert set(re.findall(r'font-family="([^",]+)', svg)) == {FONT}
    # Edge labels are the smallest text: 12 pt x 0.9 = 10.8 pt; Graphviz's user unit is 1 pt and a
    # point is 4/3 CSS px at the natural size, so 10.8 x 4/3 = 14.4 px, less the < 1 % that Graphviz
    # loses by rounding the <svg> width to whole points while the viewBox keeps the fraction.
    assert natural_text_px(svg) == pytest.approx(14.4, rel=0.01)
    w, h = natural_size_px(svg)
    assert 100 < w < 400 and 100 < h < 400  # three small boxes, two rows


def test_natural_size_reads_points_and_a_viewbox_scale():
    # A picture 300 pt wide whose drawing is 600 units wide: text of 20 units is 10 pt = 13.33 px.
    svg = '<svg width="300pt" height="150pt" viewBox="0.00 0.00 600.00 300.00"><text font-size="20.00">가</text></svg>'
    assert natural_size_px(svg) == pytest.approx((400.0, 200.0))
    assert natural_text_px(svg) == pytest.approx(20 * 0.5 * 4 / 3)
    with pytest.raises(ValueError, match="no text"):
        natural_text_px('<svg width="1pt" height="1pt"></svg>')
    with pytest.raises(ValueError, match="Graphviz"):
        natural_size_px("<svg></svg>")
