"""xpucalc._check: the shared input checks, at their boundaries and just outside, with messages that name the argument."""
import math

import pytest

from xpucalc._check import fraction, non_negative, positive, positive_int


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


def test_a_value_that_is_not_a_number_is_named():
    with pytest.raises(ValueError, match=r"^mfu is NaN"):
        fraction(math.nan, "mfu")
    with pytest.raises(ValueError, match=r"^n must be a real number, got '3' \(str\)"):
        positive_int("3", "n")
    with pytest.raises(ValueError, match=r"^n is infinite"):
        positive_int(math.inf, "n")


def test_check_bool_refuses_a_string_and_says_how_to_write_it():
    from xpucalc._check import check_bool
    assert check_bool(False, "flag") is False
    with pytest.raises(ValueError, match=r"^flag must be True or False, got 'False' \(str\); write flag=False"):
        check_bool("False", "flag")
    with pytest.raises(ValueError, match=r"^flag must be True or False, got 1 \(int\)$"):
        check_bool(1, "flag")


def test_device_figure_names_the_unit_the_reader_probably_meant():
    from xpucalc._check import device_figure
    assert device_figure(80e9, "memory", "bytes") == 80e9
    with pytest.raises(ValueError, match=r"^memory=80 looks like GB; xpucalc works in bytes: pass 80e9"):
        device_figure(80, "memory", "bytes")
    with pytest.raises(ValueError, match=r"^bandwidth=3350 looks like GB/s; .* pass 3350e9"):
        device_figure(3350, "bandwidth", "bytes/s")
    with pytest.raises(ValueError, match=r"^peak_flops=989 looks like TFLOP/s; .* pass 989e12"):
        device_figure(989, "peak_flops", "FLOP/s")
