"""Core calculators against values worked by hand, at the boundaries where a wrong comparison shows.

Every expected value below is derived in the comment next to it from the inputs, never from
xpucalc's own output. The cases are chosen so that a plausible slip (``<`` for ``<=``, ``max``
for ``min``, a forgotten term or factor) changes the result: e.g. the crossover pairs have
different peak x bandwidth products, the MFU cases use more than one device.
"""
from __future__ import annotations

import math

import pytest

import xpucalc as xc
from xpucalc import evidence, units
from xpucalc._check import fraction, non_negative, positive, positive_int
from xpucalc.render.comparison import ITEMS, ComparisonTable
from xpucalc.render.table import Table

T = 1e12


# --- crossover ------------------------------------------------------------------------------------
@pytest.mark.parametrize("a, b", [
    # A dominates on both numbers, and 200x2 != 100x1: a crossover computed as max/max (=100) or
    # min/min (=100) would be a number, but the roofs never cross.
    ((200 * T, 2 * T), (100 * T, 1 * T)),
    ((100 * T, 1 * T), (200 * T, 2 * T)),
    # equal peak, different bandwidth: the product (dp x dbw) is exactly 0, still no crossing
    ((100 * T, 1 * T), (100 * T, 3 * T)),
    # equal bandwidth, different peak
    ((300 * T, 2 * T), (100 * T, 2 * T)),
    # identical devices
    ((100 * T, 1 * T), (100 * T, 1 * T)),
])
def test_crossover_is_none_when_one_device_is_never_below(a, b):
    assert xc.crossover(xc.Device("a", *a), xc.Device("b", *b)) is None


@pytest.mark.parametrize("a, b, expected", [
    # A: 400 TFLOP/s, 1 TB/s; B: 100 TFLOP/s, 2 TB/s. A's slope (1 TB/s x I) meets B's flat roof
    # (100 TFLOP/s) at I = 100 / 1 = 100. (max/max would give 400/2 = 200, min/max 100/2 = 50.)
    ((400 * T, 1 * T), (100 * T, 2 * T), 100.0),
    ((100 * T, 2 * T), (400 * T, 1 * T), 100.0),
    # A: 50 TFLOP/s, 4 TB/s; B: 500 TFLOP/s, 0.5 TB/s: B's slope 0.5 x I = 50 -> I = 100;
    # max/max = 125, max/min = 1000.
    ((50 * T, 4 * T), (500 * T, 0.5 * T), 100.0),
    # A: 989 TFLOP/s, 3.35 TB/s (H100 SXM BF16); B: 197 TFLOP/s, 0.819 TB/s (TPU v5e): A is better on
    # both -> None, although 989/3.35 = 295 and 197/0.819 = 241 are both finite.
    ((989 * T, 3.35 * T), (197 * T, 0.819 * T), None),
])
def test_crossover_value(a, b, expected):
    da, db = xc.Device("a", *a), xc.Device("b", *b)
    x = xc.crossover(da, db)
    if expected is None:
        assert x is None
        return
    assert x == pytest.approx(expected)
    # both roofs are at the flat roof of the lower-peak device there: 100 TFLOP/s and 50 TFLOP/s
    assert xc.attainable(x, da) == pytest.approx(xc.attainable(x, db))


def test_ridge_point_by_hand():
    assert xc.ridge_point(xc.Device("h", 989.4 * T, 3.35 * T)) == pytest.approx(295.34, abs=0.01)  # 989.4/3.35
    with pytest.raises(ValueError, match=r"^device must be a Device"):
        xc.ridge_point("h100")
    with pytest.raises(ValueError, match=r"^device_a must be a Device"):
        xc.crossover(None, xc.Device("b", 1, 1))


# --- roofline at the ridge and off it -------------------------------------------------------------
def test_roofline_exact_tie_is_compute_bound():
    # 100 TFLOP/s, 1 TB/s: 1e11 FLOP and 1e9 bytes take 1 ms each -> tie, reported as compute ("연산")
    d = xc.Device("d", 100 * T, 1 * T)
    r = xc.roofline(xc.Workload("tie", 1e11, 1e9), d)
    assert r.compute_time == r.memory_time == pytest.approx(1e-3)
    assert (r.bound, r.bound_ko) == ("compute", "연산")
    assert r.attainable == pytest.approx(100 * T)  # I = 100 = ridge: both roofs give 100 TFLOP/s


def test_roofline_memory_side():
    # 1e11 FLOP over 1e10 bytes (I = 10) on 100 TFLOP/s, 1 TB/s: compute 1 ms, memory 10 ms
    r = xc.roofline(xc.Workload("w", 1e11, 1e10), xc.Device("d", 100 * T, 1 * T))
    assert (r.compute_time, r.memory_time, r.time) == (pytest.approx(1e-3), pytest.approx(1e-2), pytest.approx(1e-2))
    assert (r.bound, r.bound_ko) == ("memory", "대역폭")
    assert r.attainable == pytest.approx(10 * T)  # 1 TB/s x 10 FLOP/B


@pytest.mark.parametrize("i, expected", [(0.5, 0.5 * T), (50, 50 * T), (100, 100 * T), (1e4, 100 * T)])
def test_attainable_is_the_lower_roof(i, expected):
    # 100 TFLOP/s, 1 TB/s: min(100 T, 1 T x I)
    assert xc.attainable(i, xc.Device("d", 100 * T, 1 * T)) == pytest.approx(expected)


def test_roofline_type_errors_name_the_argument():
    d = xc.Device("d", 1, 1)
    with pytest.raises(ValueError, match=r"^workload must be a Workload, got str"):
        xc.roofline("w", d)
    with pytest.raises(ValueError, match=r"^device must be a Device, got int"):
        xc.roofline(xc.Workload("w", 1, 1), 3)


# --- device ---------------------------------------------------------------------------------------
def test_fits_at_an_exact_fit_and_one_byte_over():
    d = xc.Device("d", 1, 1, memory=16e9)
    assert d.fits(16e9)                     # exactly the capacity: fits (<=)
    assert not d.fits(16_000_000_001)       # one byte more: does not
    assert d.fits(1)
    with pytest.raises(ValueError, match="memory capacity is unknown"):
        xc.Device("d", 1, 1).fits(1)
    with pytest.raises(ValueError, match=r"^resident_bytes must be > 0"):
        d.fits(0)


def test_dense_keeps_everything_but_the_peak():
    s = xc.Device("H100 sparse", 1979 * T, 3.35 * T, 80e9, precision="bf16", sparse=True, key="h100-sxm")
    d = s.dense()
    assert d.peak_flops == pytest.approx(989.5 * T)  # 1979 / 2
    assert (d.name, d.bandwidth, d.memory, d.precision, d.sparse, d.key) == (
        "H100 sparse", 3.35 * T, 80e9, "bf16", False, "h100-sxm")
    assert s.dense(4).peak_flops == pytest.approx(494.75 * T)  # 1979 / 4
    with pytest.raises(ValueError, match=r"^ratio must be > 0"):
        s.dense(0)
    with pytest.raises(ValueError, match="already dense"):
        d.dense()
    with pytest.raises(ValueError, match=r"^name must be a non-empty string"):
        xc.Device("", 1, 1)
    with pytest.raises(ValueError, match=r"^memory must be > 0"):
        xc.Device("x", 1, 1, memory=0)


# --- workload -------------------------------------------------------------------------------------
def test_linear_layer_with_three_different_sizes():
    # m=3, k=5, n=7: X 15, W 35, b 7, Y 21 -> 78 elements moved; 2mkn = 210 FLOP; epilogue 2mn = 42
    w = xc.linear_layer(3, 5, 7, 2)
    assert w.elements == {"X": 15, "W": 35, "b": 7, "Y": 21}
    assert w.shapes == {"X": (3, 5), "W": (5, 7), "b": (7,), "Y": (3, 7)}
    assert (w.moved_elements, w.flops, w.epilogue_ops, w.bytes) == (78, 210, 42, 156)
    assert w.intensity == pytest.approx(210 / 156)
    assert (w.m, w.k, w.n, w.dtype_bytes) == (3, 5, 7, 2)
    assert "M=3" in w.name and "2 B/원소" in w.name
    # INT4 weights: half a byte per element -> 39 bytes
    assert xc.linear_layer(3, 5, 7, 0.5).bytes == 39
    assert xc.linear_layer(3.0, 5, 7, 4).bytes == 312  # 78 x 4; a whole float is accepted as a count
    assert xc.Workload("w", 6, 3).intensity == 2.0
    assert not xc.Workload("w", 6, 3).sparse


# --- end to end -----------------------------------------------------------------------------------
def test_path_total_includes_the_compile_time():
    # 가: 4 + 9 + 2 = 15 ms a batch, compile 30 s. 1,000 batches: 30 + 15 = 45 s; 0 batches: 30 s.
    ga = xc.Path("가", 4e-3, 9e-3, 2e-3, compile_s=30)
    assert ga.total_s(1000) == pytest.approx(45.0)
    assert ga.total_s(0) == 30.0
    assert ga.total_s(1) == pytest.approx(ga.first_run_s) == pytest.approx(30.015)
    assert ga.stages() == {"장치 연산": 4e-3, "호스트↔장치 전송": 9e-3, "호스트 전·후처리": 2e-3}
    for bad in (-1, 2.5, True, "3"):
        with pytest.raises(ValueError, match=r"^runs must be a whole number"):
            ga.total_s(bad)
    with pytest.raises(ValueError, match=r"^compile_s must be >= 0"):
        xc.Path("p", 1, 0, 0, compile_s=-1)
    with pytest.raises(ValueError, match=r"^empty: device_s \+ transfer_s \+ host_s must be > 0"):
        xc.Path("empty", 0, 0, 0)
    # a path with only transfer time is valid (zero device time)
    assert xc.Path("copy", 0, 1e-3, 0).per_batch_s == 1e-3


@pytest.mark.parametrize("args, expected", [
    # a: 1 s + 1 s/run, b: 0 s + 2 s/run -> equal at n = 1 (2 = 2), a strictly lower from n = 2
    ((1, 1, 0, 2), 2),
    # a: 0 + 1/run, b: 0 + 1/run -> never strictly lower
    ((0, 1, 0, 1), None),
    # a: 10 + 1/run, b: 0 + 3/run -> a lower when 10 + n < 3n, n > 5 -> 6 (n = 5 is a tie: 15 = 15)
    ((10, 1, 0, 3), 6),
    # a already lower at n = 1: 0 + 1 < 0 + 3
    ((0, 1, 0, 3), 1),
    # a: 0.5 + 1, b: 0 + 2 -> 1.5 < 2 at n = 1
    ((0.5, 1, 0, 2), 1),
])
def test_breakeven_runs_at_ties(args, expected):
    assert xc.breakeven_runs(*args) == expected


@pytest.mark.parametrize("args, expected", [
    ((30, 0.015, 5, 0.020), 5000.0),  # (30 - 5) / (0.020 - 0.015)
    ((5, 0.020, 30, 0.015), 5000.0),  # same pair, sides swapped
    ((30, 0.020, 5, 0.015), None),    # a starts later and loses per run: they never meet (n = -5000)
    ((5, 0.020, 5, 0.015), 0.0),      # equal at the start and never again: n = 0 is the meeting point
    ((5, 0.015, 30, 0.015), None),    # same rate: parallel lines
])
def test_breakeven_point_by_hand(args, expected):
    assert xc.breakeven_point(*args) == (expected if expected is None else pytest.approx(expected))


def test_breakeven_arguments_are_named():
    for i, name in enumerate(("compile_a", "per_run_a", "compile_b", "per_run_b")):
        args = [1.0, 1.0, 1.0, 1.0]
        args[i] = -1.0
        with pytest.raises(ValueError, match=rf"^{name} must be >= 0"):
            xc.breakeven_runs(*args)
        with pytest.raises(ValueError, match=rf"^{name} must be >= 0"):
            xc.breakeven_point(*args)


# --- energy and cost ------------------------------------------------------------------------------
def test_energy_and_cost_by_hand():
    assert xc.energy_per_request(400, 100) == pytest.approx(4.0)       # 400 J/s / 100 req/s
    assert xc.energy_per_request(300, 1.5) == pytest.approx(200.0)     # 300 / 1.5
    assert xc.cost_per_request(3.6, 1) == pytest.approx(0.001)         # 3.6 / (1 x 3600)
    assert xc.cost_per_request(4.0, 100) == pytest.approx(4 / 360_000)  # 4 / (100 x 3600)
    for call, name in [(lambda: xc.energy_per_request(0, 1), "power_w"),
                       (lambda: xc.energy_per_request(1, -1), "throughput_rps"),
                       (lambda: xc.cost_per_request(-2, 1), "price_per_hour"),
                       (lambda: xc.cost_per_request(2, 0), "throughput_rps")]:
        with pytest.raises(ValueError, match=rf"^{name} must be > 0"):
            call()


# --- MFU with more than one device (public name xpucalc.llm.mfu) ----------------------------------
@pytest.mark.parametrize("n_params, tok_s, n_dev, peak, expected", [
    # 6 x 1e9 x 1e5 = 6e14 FLOP/s over 4 x 300e12 = 1.2e15 -> 0.5
    (1e9, 1e5, 4, 300e12, 0.5),
    # 6 x 7e9 x 2.4e4 = 1.008e15 over 8 x 312e12 = 2.496e15 -> 0.40385
    (7e9, 2.4e4, 8, 312e12, 1.008e15 / 2.496e15),
    # one device for comparison: 6 x 1e9 x 1e4 = 6e13 over 300e12 -> 0.2
    (1e9, 1e4, 1, 300e12, 0.2),
])
def test_mfu_divides_by_every_device(n_params, tok_s, n_dev, peak, expected):
    from xpucalc import llm

    assert llm.mfu(n_params, tok_s, n_dev, peak) == pytest.approx(expected)


def test_mfu_refuses_impossible_inputs_by_name():
    from xpucalc import llm

    # the exercise that once printed 156 %: 6 x 13e9 x 4e5 = 3.12e16 over 64 x 312e12 = 1.9968e16 -> 1.5625
    with pytest.raises(ValueError, match=r"^MFU would be 1\.56\d \(> 1, faster than the peak\): check tokens_per_s,"):
        llm.mfu(13e9, 4e5, 64, 312e12)
    assert llm.mfu(13e9, 1e5, 64, 312e12) == pytest.approx(7.8e15 / 1.9968e16)  # 0.39: the corrected exercise
    with pytest.raises(ValueError, match=r"^n_devices must be a whole number >= 1"):
        llm.mfu(1e9, 1e4, 0, 300e12)
    with pytest.raises(ValueError, match=r"^peak_flops must be > 0"):
        llm.mfu(1e9, 1e4, 1, 0)
    with pytest.raises(ValueError, match=r"^tokens_per_s must be > 0"):
        llm.mfu(1e9, -1, 1, 300e12)


# --- comparison table -----------------------------------------------------------------------------
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


# --- tables and evidence --------------------------------------------------------------------------
def test_table_markdown_and_html_exact():
    t = Table(["a", "b"], caption="c|d", notes=["출처 <x>"])
    t.add(1, "x|y\nz")
    assert t.to_markdown() == "**c\\|d**\n\n| a | b |\n|---|---|\n| 1 | x\\|y z |\n\n- 출처 <x>"
    assert str(t) == t.to_markdown() == t._repr_markdown_()
    assert Table(["h"]).to_markdown() == "| h |\n|---|"
    html = t.to_html()
    assert "<caption>c|d</caption>" in html and "<li>출처 &lt;x&gt;</li>" in html
    assert "<thead><tr><th>a</th><th>b</th></tr></thead>" in html
    assert t._repr_html_() == html
    assert "<caption>" not in Table(["h"]).to_html() and "<ul" not in Table(["h"]).to_html()
    with pytest.raises(KeyError, match="header 'z' not in"):
        t.column("z")
    with pytest.raises(ValueError, match=r"^rows\[1\] has 1 cells but there are 2 headers"):
        Table(["a", "b"], rows=[["1", "2"], ["3"]])


def test_evidence_labels_and_glosses():
    assert evidence.EMPTY_LABELS == ("미공개", "이번 조사에서 미확인", "아직 미측정")
    assert set(evidence.ENGLISH) == set(evidence.LABELS)
    with pytest.raises(ValueError, match="use one of 문서 확인, 분석 계산"):
        evidence.check("")


# --- units ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("seconds, text", [
    (999e-6, "999 µs"),
    (1e-3, "1 ms"),          # the µs/ms boundary belongs to ms
    (0.999, "999 ms"),
    (1.0, "1 s"),
    (119.5, "119.5 s"),
    (120.0, "2 분"),         # 2 minutes: first value shown in minutes
    (130.0, "2.2 분"),       # 130 / 60 = 2.1667 -> one decimal
    (2700.0, "45 분"),       # 45 min
    (5400.0, "90 분"),       # 1.5 h still shown in minutes
    (7199.0, "120 분"),      # 119.98 min
    (7200.0, "2 시간"),      # 2 hours
    (9000.0, "2.5 시간"),
    (2 * 86400 - 1, "48 시간"),
    (2 * 86400, "2 일"),
    (11.52 * 86400, "11.5 일"),
    (364 * 86400, "364 일"),
    (365 * 86400, "1 년"),
    (505 * 365 * 86400, "505 년"),
    (-0.015, "-15 ms"),
    (-300.0, "-5 분"),
])
def test_fmt_time_at_every_unit_boundary(seconds, text):
    assert units.fmt_time(seconds) == text


def test_fmt_time_digits():
    assert units.fmt_time(1.23456) == "1.235 s"
    assert units.fmt_time(1.23456, digits=1) == "1.2 s"
    assert units.fmt_time(1.5e-5, digits=0) == "15 µs"


@pytest.mark.parametrize("value, unit, digits, text", [
    (999.0, "B", 2, "999 B"),
    (1000.0, "B", 2, "1 kB"),
    (1_234_567.0, "B", 3, "1.235 MB"),
    (3.35e12, "B/s", 2, "3.35 TB/s"),
    (-3.35e12, "B/s", 2, "-3.35 TB/s"),
    (6.3e24, "FLOP", 1, "6.3 YFLOP"),
    (2.5e21, "FLOP", 2, "2.5 ZFLOP"),
    (1.5e18, "FLOP/s", 2, "1.5 EFLOP/s"),
    (2e15, "FLOP/s", 2, "2 PFLOP/s"),
    (4.5e9, "B", 2, "4.5 GB"),
    (0.5, "s", 2, "0.5 s"),
    (1e27, "FLOP", 0, "1,000 YFLOP"),
])
def test_fmt_si_prefixes(value, unit, digits, text):
    assert units.fmt_si(value, unit, digits) == text


@pytest.mark.parametrize("n, binary, text", [
    (1023, True, "1,023 B"),
    (1024, True, "1 KiB"),
    (1.5 * 1024**2, True, "1.5 MiB"),
    (2_684_354_560, True, "2.5 GiB"),          # 2.5 x 2**30
    (3 * 1024**4, True, "3 TiB"),
    (2_684_354_560, False, "2.68 GB"),
    (999, False, "999 B"),
])
def test_fmt_bytes(n, binary, text):
    assert units.fmt_bytes(n, binary=binary) == text


def test_fmt_num_and_conversions():
    assert units.fmt_num(1_311_744, 0) == "1,311,744"
    assert units.fmt_num(2.50) == "2.5"
    assert units.fmt_num(2.0) == "2"
    assert units.fmt_num(1234.5678) == "1,234.57"
    assert units.fmt_num(1234.5678, 3) == "1,234.568"
    assert units.gib_to_gb(1) == pytest.approx(1.073741824)     # 2**30 / 1e9
    assert units.gb_to_gib(1.073741824) == pytest.approx(1.0)
    assert units.gb_to_gib(80) == pytest.approx(74.505805969)   # 80e9 / 2**30
    assert units.sparse_to_dense(1979e12, ratio=4) == pytest.approx(494.75e12)
    # the constants, each by its definition
    assert (units.KB, units.MB, units.PB, units.KiB, units.TiB) == (1e3, 1e6, 1e15, 1024, 2**40)
    assert (units.GFLOPS, units.PFLOPS, units.EFLOPS, units.TOPS) == (1e9, 1e15, 1e18, 1e12)
    assert (units.MFLOP, units.ZFLOP, units.YFLOP) == (1e6, 1e21, 1e24)
    assert (units.MS, units.US, units.MINUTE, units.HOUR, units.DAY) == (1e-3, 1e-6, 60, 3600, 86400)
    assert units.YEAR == 31_536_000  # 365 x 86,400
    for call, name in [(lambda: units.gib_to_gb("1"), "gib"), (lambda: units.gb_to_gib(math.inf), "gb"),
                       (lambda: units.sparse_to_dense(1, 0), "ratio"), (lambda: units.fmt_si(math.nan, "B"), "value"),
                       (lambda: units.fmt_bytes(None), "n_bytes"), (lambda: units.fmt_time("1"), "seconds"),
                       (lambda: units.fmt_num(math.inf), "value")]:
        with pytest.raises(ValueError, match=rf"^{name} "):
            call()


# --- input checks ---------------------------------------------------------------------------------
def test_checks_accept_their_boundaries_and_reject_just_outside():
    assert fraction(1.0, "mfu") == 1.0
    assert fraction(1e-9, "mfu") == 1e-9
    for bad in (0, 1.0000001, -0.1):
        with pytest.raises(ValueError, match=r"^mfu must be a fraction in \(0, 1\]"):
            fraction(bad, "mfu")
    assert non_negative(0, "x") == 0.0 and isinstance(non_negative(0, "x"), float)
    with pytest.raises(ValueError, match=r"^x must be >= 0, got -1e-300"):
        non_negative(-1e-300, "x")
    assert positive(1e-300, "x") == 1e-300
    with pytest.raises(ValueError, match=r"^x must be > 0, got 0"):
        positive(0, "x")
    assert positive_int(3.0, "n") == 3 and isinstance(positive_int(3.0, "n"), int)
    assert positive_int(1, "n") == 1
    for bad in (0, 2.5, -3):
        with pytest.raises(ValueError, match=r"^n must be a whole number >= 1"):
            positive_int(bad, "n")
    with pytest.raises(ValueError, match=r"^x must be a real number, got '3' \(str\)"):
        positive("3", "x")
    with pytest.raises(ValueError, match=r"^x must be a real number, got True \(bool\)"):
        positive(True, "x")
    with pytest.raises(ValueError, match=r"^x is NaN"):
        positive(math.nan, "x")
    with pytest.raises(ValueError, match=r"^x is infinite"):
        non_negative(-math.inf, "x")


# --- cases that the first mutation run showed were not pinned down --------------------------------
def test_messages_name_the_right_argument_and_type():
    d = xc.Device("d", 1, 1)
    with pytest.raises(ValueError, match=r"^device_b must be a Device, got str"):
        xc.crossover(d, "B")
    with pytest.raises(ValueError, match=r"^device_a must be a Device, got NoneType"):
        xc.crossover(None, d)
    with pytest.raises(ValueError, match=r"^device must be a Device, got str"):
        xc.ridge_point("h100")
    with pytest.raises(ValueError, match=r"^n must be a whole number >= 1"):
        xc.linear_layer(1, 1, 0, 2)
    with pytest.raises(ValueError, match=r"^mfu is NaN"):
        fraction(math.nan, "mfu")
    sparse = xc.Device("s", 2, 1, sparse=True)
    with pytest.raises(ValueError, match=r"or mark the workload sparse=True if it really is 2:4 sparse$"):
        xc.roofline(xc.Workload("w", 1, 1), sparse)


def test_workload_numbers_are_stored_as_floats():
    w = xc.Workload("w", 6, 3)
    assert type(w.flops) is float and type(w.bytes) is float
    d = xc.Device("d", 2, 1, memory=3)
    assert [type(v) for v in (d.peak_flops, d.bandwidth, d.memory)] == [float, float, float]
    assert xc.linear_layer(3, 5, 7, 4).dtype_bytes == 4


def test_digits_are_passed_through():
    assert units.fmt_si(1_234_567, "B") == "1.23 MB"            # default: 2 decimals
    assert units.fmt_bytes(1_234_567, digits=3) == "1.235 MB"
    assert units.fmt_bytes(1_234_567) == "1.23 MB"
    assert units.fmt_bytes(1.2345 * 2**30, binary=True, digits=3) == "1.234 GiB"  # 1.2345 -> 1.234 (binary float)
    assert units.fmt_time(8442) == "2.3 시간"                      # 8,442 s = 2.345 h, one decimal
    assert units.fmt_time(1.234 * 365 * 86400) == "1.2 년"
    assert units.fmt_time(3.25 * 86400) == "3.2 일"                # 3.25 -> 3.2 (half to even)


def test_template_and_html_exactly():
    tpl = ComparisonTable.template()
    assert tpl.headers == ["번호", "비교 항목", "모두가 공통으로 고정할 기준", "장치별로 조사·기록할 내용"]
    assert tpl.rows[3] == ["4", "배치", "M = 128과 M = 1을 따로", "배치마다 지연시간(ms/batch)과 처리량(samples/s)"]
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
