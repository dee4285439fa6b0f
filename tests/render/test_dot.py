"""xpucalc.render.dot: DOT text from nodes and edges, SVG from Graphviz, text size at the natural size."""
from __future__ import annotations

import re
import shutil

import pytest

from xpucalc.render.dot import FONT, Graph, natural_size_px, natural_text_px, phone_text_px

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


def test_phone_text_px_scales_a_wide_picture_to_the_column():
    # 400 pt wide = 533.3 px natural; text 12 units in a 1:1 viewBox = 12 pt = 16 px; on a 342 px column the
    # picture is shown at 342 / 533.3 = 0.641 of its size: 16 x 0.641 = 10.26 px
    wide = '<svg width="400pt" height="100pt" viewBox="0.00 0.00 400.00 100.00"><text font-size="12.00">가</text></svg>'
    assert phone_text_px(wide) == pytest.approx(16 * 342 / (400 * 4 / 3))
    # a picture narrower than the column is shown at its natural size
    narrow = wide.replace('width="400pt"', 'width="200pt"').replace("400.00 100.00", "200.00 100.00")
    assert phone_text_px(narrow) == pytest.approx(16.0)


@needs_dot
def test_diagrams_stay_legible_on_a_phone():
    # a small flow keeps its natural size; ten boxes on one row do not: Graphviz makes it wider than the
    # phone's column and the text shrinks under 9 px (a chapter must stack such rows top to bottom)
    assert phone_text_px(_flow().svg()) >= 9.0
    row = Graph(rankdir="LR", fontsize=12)
    for i in range(10):
        row.node(f"n{i}", f"단계 {i}")
        if i:
            row.edge(f"n{i - 1}", f"n{i}", "다음")
    assert phone_text_px(row.svg()) < 9.0
