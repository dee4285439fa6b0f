"""xpucalc.llm.offload: the slowdown of a bandwidth-bound step on a slower memory, and the offload decode bound.

By hand, from the glossary's figures: HBM3 3.35 TB/s, GDDR6X 1,008 GB/s, DDR5 dual channel 70-90 GB/s.
"""
import pytest

from xpucalc.llm import offload


def test_slowdown_by_hand():
    assert offload.slowdown(3.35e12, 89.6e9) == pytest.approx(37.388, rel=1e-4)   # 3,350 / 89.6
    with pytest.raises(ValueError, match=r"^fast_bandwidth must be > 0"):
        offload.slowdown(0.0, 1e9)
    with pytest.raises(ValueError, match=r"^slow_bandwidth must be > 0"):
        offload.slowdown(1e9, 0.0)


def test_slowdown_range_between_catalog_memory_types():
    # HBM3 (3.35 TB/s) over DDR5's 70-90 GB/s: 3350 / 90 = 37.22 (fastest DDR5) to 3350 / 70 = 47.86
    lo, hi = offload.slowdown_range("hbm3", "ddr5")
    assert lo == pytest.approx(37.2222, rel=1e-5) and hi == pytest.approx(47.8571, rel=1e-5)
    # GDDR6X 1,008 GB/s over 90 and 70: 11.2 and 14.4
    lo, hi = offload.slowdown_range("gddr6x", "ddr5")
    assert lo == pytest.approx(11.2) and hi == pytest.approx(14.4)
    # a slow memory without a range: one value, (v, v) -> the same slowdown twice; HBM3 / NVMe Gen4 = 3350 / 7
    assert offload.slowdown_range("hbm3", "nvme-gen4") == (pytest.approx(478.5714, rel=1e-6),) * 2
    with pytest.raises(KeyError, match="unknown memory type key 'ddr9'"):
        offload.slowdown_range("hbm3", "ddr9")


def test_offload_bound_by_hand():
    # 16 GB of weights, 4 GB of them over a 32 GB/s link, the rest from 2 TB/s HBM:
    # 12e9 / 2e12 + 4e9 / 32e9 = 0.006 + 0.125 = 0.131 s per token -> 7.634 tokens/s
    assert offload.tokens_per_s_bound(16e9, 4e9, 2e12, 32e9) == pytest.approx(1 / 0.131)
    assert offload.tokens_per_s_bound(16e9, 0.0, 2e12, 32e9) == pytest.approx(125.0)   # 2e12 / 16e9
    assert offload.tokens_per_s_bound(16e9, 16e9, 2e12, 32e9) == pytest.approx(2.0)    # all offloaded
    # 140 GB, nothing offloaded, 3.35 TB/s: 3350/140 = 23.93 tok/s
    assert offload.tokens_per_s_bound(140e9, 0, 3.35e12, 80e9) == pytest.approx(23.9286, abs=1e-4)
    # 60 GB read at 80 GB/s = 0.75 s, 80 GB at 3.35 TB/s = 0.02388 s -> 1/0.77388 = 1.2922 tok/s
    assert offload.tokens_per_s_bound(140e9, 60e9, 3.35e12, 80e9) == pytest.approx(1.29219, abs=1e-4)


def test_offload_bound_errors_name_the_argument():
    with pytest.raises(ValueError, match=r"^offloaded_bytes \(17000000000\.0\) cannot exceed model_bytes \(16000000000\.0\)"):
        offload.tokens_per_s_bound(16e9, 17e9, 2e12, 32e9)
    for args, name in (((0.0, 0.0, 1e12, 1e9), "model_bytes must be > 0"),
                       ((1e9, -1.0, 1e12, 1e9), "offloaded_bytes must be >= 0"),
                       ((1e9, 0.0, 0.0, 1e9), "device_bandwidth must be > 0"),
                       ((1e9, 0.0, 1e12, 0.0), "offload_bandwidth must be > 0")):
        with pytest.raises(ValueError, match="^" + name):
            offload.tokens_per_s_bound(*args)
