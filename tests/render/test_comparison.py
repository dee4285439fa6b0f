"""xpucalc.render.comparison: the 11-item comparison table, its empty cells and its errors."""
import pytest

from xpucalc import evidence
from xpucalc.render.comparison import ITEMS, ComparisonTable


def test_comparison_table_eleven_items():
    assert [i for i, *_ in ITEMS] == list(range(1, 12))
    ct = ComparisonTable(["H100 SXM", "TPU v5e"])
    ct.set(5, "H100 SXM", "칩 1개 (SXM)", evidence.DOCUMENTED)
    ct.mark(10, "TPU v5e", evidence.NOT_MEASURED, "전력계 없음")
    t = ct.to_table()
    assert len(t.rows) == 11
    assert t.rows[4][2] == "칩 1개 (SXM) [문서 확인]"
    assert t.rows[9][3] == "아직 미측정 (전력계 없음)"
    # 22 cells, one filled with a number -> 21 without one
    assert len(ct.missing()) == 21
    assert len(ComparisonTable.template().rows) == 11
    with pytest.raises(ValueError, match="item"):
        ct.set(12, "H100 SXM", "x", evidence.DOCUMENTED)
    with pytest.raises(KeyError, match="column"):
        ct.set(1, "B200", "x", evidence.DOCUMENTED)
    with pytest.raises(ValueError, match="vocabulary"):
        ct.set(1, "TPU v5e", "x", "대충")


def test_missing_lists_every_empty_label_and_only_those():
    a, b = "A", "B"
    ct = ComparisonTable([a, b])
    for item, *_ in ITEMS:
        for d in (a, b):
            ct.set(item, d, f"값 {item}", evidence.DOCUMENTED)
    assert ct.missing() == []
    ct.mark(3, a, evidence.NOT_PUBLISHED, "공개 문서 없음")
    ct.mark(7, b, evidence.NOT_VERIFIED)
    ct.set(10, a, "", evidence.NOT_MEASURED)
    ct.set(11, b, "계산함", evidence.COMPUTED)     # filled with a number: not missing
    # in item order, then column order
    assert ct.missing() == [(3, a), (7, b), (10, a)]
    assert ct.get(3, a).text == "미공개 (공개 문서 없음)"
    assert ct.get(7, b).text == "이번 조사에서 미확인"
    assert ct.get(10, a).text == "아직 미측정"     # an empty text takes the label
    row3, row11 = ct.to_table().rows[2], ct.to_table().rows[10]
    assert row3 == ["3", "정밀도", "미공개 (공개 문서 없음)", "값 3 [문서 확인]"]
    assert row11 == ["11", "증거 상태", "값 11 [문서 확인]", "계산함 [분석 계산]"]


def test_comparison_table_errors_and_basis_column():
    with pytest.raises(ValueError, match=r"^devices must name at least one column"):
        ComparisonTable([])
    with pytest.raises(ValueError, match=r"^devices has duplicates"):
        ComparisonTable(["A", "A"])
    ct = ComparisonTable(["A"], caption="표")
    for bad in (0, 12, True, "1"):
        with pytest.raises(ValueError, match=r"^item must be a number from 1 to 11"):
            ct.get(bad, "A")
    with pytest.raises(KeyError, match="is not a column"):
        ct.get(1, "B")
    with pytest.raises(ValueError, match=r"^label must be one of"):
        ct.mark(1, "A", evidence.DOCUMENTED)
    t = ct.to_table(with_basis=True)
    assert t.headers == ["번호", "비교 항목", "공통 기준", "A"] and t.caption == "표"
    assert t.rows[3] == ["4", "배치", "M = 128과 M = 1을 따로", "아직 미측정"]
    assert len(ct.missing()) == 11
    assert "<caption>표</caption>" in ct._repr_html_()
    tpl = ComparisonTable.template()
    assert tpl.headers[2] == "모두가 공통으로 고정할 기준"
    assert tpl.rows[8][:2] == ["9", "시간 경계"]


def test_template_exactly():
    tpl = ComparisonTable.template()
    assert tpl.headers == ["번호", "비교 항목", "모두가 공통으로 고정할 기준", "장치별로 조사·기록할 내용"]
    assert tpl.rows[3] == ["4", "배치", "M = 128과 M = 1을 따로", "배치마다 지연시간(ms/batch)과 처리량(samples/s)"]
