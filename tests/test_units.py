"""xpucalc.units: the constants, the formatting of SI values for readers, and the conversions, by hand."""
import math
import re

import pytest

from xpucalc import units

CASES = [
    ("sparse_peak", lambda: units.sparse_to_dense(0)),
    ("gib", lambda: units.gib_to_gb(math.nan)),
]


@pytest.mark.parametrize("name, call", CASES, ids=[f"{i}-{n}" for i, (n, _) in enumerate(CASES)])
def test_bad_input_names_the_argument(name, call):
    # the argument's name as a whole word ("XXpower_wXX" or "None" would not do)
    with pytest.raises(ValueError, match=rf"\b{re.escape(name)}\b"):
        call()


def test_unit_constants():
    assert units.GiB == 1_073_741_824
    assert units.MiB == 1_048_576
    assert units.TB == 1e12
    assert units.Gbps * 400 == 50e9  # 400 Gb/s InfiniBand NDR = 50 GB/s
    assert units.sparse_to_dense(1979e12) == pytest.approx(989.5e12)


def test_formatting():
    assert units.fmt_si(3.35e12, "B/s") == "3.35 TB/s"
    assert units.fmt_bytes(2_684_354_560) == "2.68 GB"
    assert units.fmt_bytes(2_684_354_560, binary=True) == "2.5 GiB"
    assert units.fmt_time(0.0625e-3) == "62.5 µs"
    assert units.fmt_time(0.015) == "15 ms"
    assert units.fmt_time(30.015) == "30.015 s"
    assert units.fmt_time(11.52 * units.DAY) == "11.5 일"
    assert units.fmt_num(1_311_744, 0) == "1,311,744"


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


def test_digits_are_passed_through():
    assert units.fmt_si(1_234_567, "B") == "1.23 MB"            # default: 2 decimals
    assert units.fmt_bytes(1_234_567, digits=3) == "1.235 MB"
    assert units.fmt_bytes(1_234_567) == "1.23 MB"
    assert units.fmt_bytes(1.2345 * 2**30, binary=True, digits=3) == "1.234 GiB"  # 1.2345 -> 1.234 (binary float)
    assert units.fmt_time(8442) == "2.3 시간"                      # 8,442 s = 2.345 h, one decimal
    assert units.fmt_time(1.234 * 365 * 86400) == "1.2 년"
    assert units.fmt_time(3.25 * 86400) == "3.2 일"                # 3.25 -> 3.2 (half to even)


def test_tpu_v5e_gib_label_conversion():
    # 800 GiB/s = 800 * 2**30 = 858,993,459,200 B/s (source §11.2, first line)
    b = 800 * units.GiB
    assert b == 858_993_459_200
    assert f"{b / 1e9:.2f}" == "858.99"
    assert f"{b / 1e12:.3f}" == "0.859"
    assert units.gib_to_gb(800) == pytest.approx(858.9934592)
    assert units.gb_to_gib(858.9934592) == pytest.approx(800)
