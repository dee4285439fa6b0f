"""xpucalc.render.table: the Markdown and HTML of a table, read back exactly."""
from __future__ import annotations

import pytest

from xpucalc.render.table import Table


def test_table_renders_and_checks_width():
    t = Table(["a", "b"], caption="캡션")
    t.add(1, "x|y")
    md = t.to_markdown()
    assert "| 1 | x\\|y |" in md and "**캡션**" in md
    html = t.to_html()
    assert "<td>x|y</td>" in html and "overflow-x:auto" in html
    assert t.column("a") == ["1"]
    with pytest.raises(ValueError, match="cells"):
        t.add(1)
    with pytest.raises(ValueError, match="rows"):
        Table(["a"], rows=[["1", "2"]])


def test_table_markdown_and_html_exact():
    t = Table(["a", "b"], caption="c|d", notes=["출처 <x>"])
    t.add(1, "x|y\nz")
    assert t.to_markdown() == "**c\\|d**\n\n| a | b |\n|---|---|\n| 1 | x\\|y z |\n\n- 출처 <x>"
    assert str(t) == t.to_markdown() == t._repr_markdown_()
    assert Table(["h"]).to_markdown() == "| h |\n|---|"
    html = t.to_html()
    assert "<caption>c|d</caption>" in html and "<li>출처 &lt;x&gt;</li>" in html
    assert "<ul class='xpucalc-notes'><li>" in html            # the site's CSS styles the notes by this class
    assert "<thead><tr><th>a</th><th>b</th></tr></thead>" in html
    assert t._repr_html_() == html
    assert "<caption>" not in Table(["h"]).to_html() and "<ul" not in Table(["h"]).to_html()
    with pytest.raises(KeyError, match="header 'z' not in"):
        t.column("z")
    with pytest.raises(ValueError, match=r"^rows\[1\] has 1 cells but there are 2 headers"):
        Table(["a", "b"], rows=[["1", "2"], ["3"]])


def test_html_structure_exactly():
    t = Table(["a", "b"], caption="c", notes=["n1", "n2"])
    t.add(1, 2)
    t.add(3, 4)
    got = _html_structure(t.to_html())
    assert got["rows"] == [["a", "b"], ["1", "2"], ["3", "4"]]
    assert got["caption"] == ["c"] and got["notes"] == ["n1", "n2"]
    assert got["shown"] == ["c"]                    # the copy shown above the scroll box (phones)
    assert got["stray"] == []                       # no text outside cells, caption and notes
    assert "overflow-x:auto" in t.to_html()
    bare = _html_structure(Table(["a"]).to_html())
    assert bare == {"rows": [["a"]], "caption": [], "notes": [], "stray": [], "shown": []}


def _html_structure(markup: str) -> dict[str, list]:
    """Rows of cell texts, caption text, note items and any text outside them (a second reading of the HTML)."""
    from html.parser import HTMLParser

    out: dict[str, list] = {"rows": [], "caption": [], "notes": [], "stray": [], "shown": []}

    class P(HTMLParser):
        where: list[str] = []

        def handle_starttag(self, tag, attrs):
            if tag == "tr":
                out["rows"].append([])
            if tag in ("td", "th", "caption", "li", "p"):
                self.where.append(tag)
            if tag == "p":  # the caption shown above the scroll box
                out["shown"].append("")

        def handle_endtag(self, tag):
            if tag in ("td", "th", "caption", "li", "p") and self.where:
                self.where.pop()

        def handle_data(self, data):
            w = self.where[-1] if self.where else None
            if w in ("td", "th"):
                out["rows"][-1].append(data)
            elif w == "caption":
                out["caption"].append(data)
            elif w == "li":
                out["notes"].append(data)
            elif w == "p":
                out["shown"][-1] += data
            elif w is None and data.strip():
                out["stray"].append(data)

    P().feed(markup)
    return out


def test_a_code_cell_is_shown_as_code():
    from xpucalc.render.table import Code

    t = Table(["입력 오류", "고치는 법"])
    t.add(Code("model"), "카탈로그 키 <a|b>를 씁니다")
    assert "<td><code>model</code></td><td>카탈로그 키 &lt;a|b&gt;를 씁니다</td>" in t.to_html()
    assert "| `model` | 카탈로그 키 <a\\|b>를 씁니다 |" in t.to_markdown()
    assert t.column("입력 오류") == ["model"] and isinstance(t.rows[0][0], Code)
