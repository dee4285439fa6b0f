"""Week 5 (w1 pages: index, big picture, hardware, spec sheets, software path, comparison table).

Golden values are computed by hand from the source's figures, not copied from the code.
"""
import math

import pytest

from xpucalc.catalog import devices, spec_reading as sr
from xpucalc import units
from xpucalc.render.comparison import ComparisonTable


def test_800_gib_is_858_99_gb():
    # 800 * 1024**3 = 858,993,459,200 bytes
    gb, err = sr.gib_read_as_gb(800)
    assert gb == pytest.approx(858.9934592)
    assert round(gb, 2) == 858.99
    assert units.gib_to_gb(800) == pytest.approx(858.9934592)
    # 1024**3 / 1e9 - 1 = 0.073741824 -> 7.4 %
    assert err == pytest.approx(0.073741824)


def test_tpu_v5e_bandwidth_conflict_in_catalog():
    assert devices.figure("tpu-v5e", "bandwidth")["value"] == 819e9
    label = devices.extra("tpu-v5e", "HBM bandwidth label '800 GiBps' (conflicting revision)")
    assert label["value"] == 858_993_459_200


def test_h100_sparse_to_dense_halving():
    sparse = devices.peak("h100-sxm", "bf16", sparse=True)["value"]
    assert sparse == 1979e12
    assert units.sparse_to_dense(sparse) == pytest.approx(989.5e12)  # 1979 / 2


def test_4000_tops_chain():
    steps = sr.advertised_to_dense(4000e12)
    assert [s.value for s in steps] == pytest.approx([4000e12, 2000e12, 1000e12])
    # total factor 4 = 2 (sparsity) x 2 (INT8 vs FP16)
    assert steps[0].value / steps[-1].value == pytest.approx(4)


def test_288v_platform_is_5_plus_67_plus_48():
    parts, total = sr.platform_parts("core-ultra-9-288v", ["CPU peak TOPS (Int8)", "GPU peak TOPS (Int8)"])
    assert parts == pytest.approx((5 + 67 + 48) * 1e12)
    assert total == pytest.approx(120e12)


def test_meaningless_41x():
    h = devices.peak("h100-sxm", "bf16", sparse=True)["value"]
    npu = devices.peak("core-ultra-9-288v", "int8", sparse=None)["value"]  # Intel does not say dense or sparse
    assert h / npu == pytest.approx(1979 / 48)  # 41.229...
    assert round(h / npu) == 41


def test_tpu_pod_256_chips():
    chip = devices.peak("tpu-v5e", "bf16")["value"]
    pod = devices.extra("tpu-v5e", "Pod size")["value"]
    assert pod == 256
    assert chip * pod == pytest.approx(50.432e15)  # 256 * 197 TFLOPS
    assert sr.per_chip_from_pod(100e15, 256) == pytest.approx(390.625e12)  # 100 PetaOps / 256


def test_peak_ratio_int8_vs_fp16():
    assert sr.peak_ratio("a100-sxm4-40gb", "int8", "fp16") == pytest.approx(624 / 312)
    assert sr.peak_ratio("tpu-v5e", "int8", "bf16") == pytest.approx(393 / 197)


def test_transfer_time_both_directions():
    # 2 MiB over PCIe Gen5 quoted 128 GB/s both ways -> 64 GB/s one way
    assert sr.transfer_time(2 * 1024**2, 128e9, both_directions=True) == pytest.approx(2097152 / 64e9)
    assert sr.transfer_time(1e9, 1e12) == pytest.approx(1e-3)


def test_a100_runtime_memory_in_gib():
    mem = devices.extra("a100-sxm4-40gb", "Device memory reported at run time")["value"]
    assert units.gb_to_gib(mem / 1e9) == pytest.approx(42.41e9 / 1073741824)  # 39.497...
    assert math.isclose(units.gb_to_gib(mem / 1e9), 39.5, abs_tol=0.01)


def test_comparison_template_has_11_items():
    # the source's table (§6): items 1-11, from 작업·입력 to 증거 상태
    rows = ComparisonTable.template().rows
    assert [r[0] for r in rows] == [str(i) for i in range(1, 12)]
    assert (rows[0][1], rows[-1][1]) == ("작업·입력", "증거 상태")


@pytest.mark.parametrize("match, call", [
    (r"^advertised must be > 0", lambda: sr.advertised_to_dense(0)),
    (r"^sparse_ratio must be > 0", lambda: sr.advertised_to_dense(4000e12, sparse_ratio=-1)),
    (r"^value_gib is NaN", lambda: sr.gib_read_as_gb(float("nan"))),
    (r"^bandwidth must be > 0", lambda: sr.transfer_time(1e6, 0)),
    (r"^chips must be a positive integer", lambda: sr.per_chip_from_pod(1e15, 0)),
    (r"^part_labels must name at least one", lambda: sr.platform_parts("core-ultra-9-288v", [])),
    (r"^h100-sxm: needs one platform-scope", lambda: sr.platform_parts("h100-sxm", ["NVLink bandwidth"])),
])
def test_bad_input_raises_value_error(match, call):
    with pytest.raises(ValueError, match=match):
        call()


def test_unknown_key_raises_key_error():
    with pytest.raises(KeyError, match="unknown device key 'no-such-device'"):
        sr.peak_ratio("no-such-device", "int8", "fp16")
