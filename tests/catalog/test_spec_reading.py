"""xpucalc.catalog.spec_reading: the conversions of the Week 5 spec-sheet pages, each step worked by hand.

Golden values are computed from the source's figures (H100 1,979 TFLOPS* sparse, TPU v5e 197 / 393, the 288V's
5 + 67 + 48 TOPS), not copied from the code.
"""
import pytest

from xpucalc import units
from xpucalc.catalog import devices, spec_reading as sr
from xpucalc.catalog.spec_reading import Step

from _catalog_helpers import FAKE_DEVICES, fig, use_data


def test_800_gib_is_858_99_gb():
    # 800 * 1024**3 = 858,993,459,200 bytes
    gb, err = sr.gib_read_as_gb(800)
    assert gb == pytest.approx(858.9934592)
    assert round(gb, 2) == 858.99
    # 1024**3 / 1e9 - 1 = 0.073741824 -> 7.4 %
    assert err == pytest.approx(0.073741824)
    assert gb * units.GB == pytest.approx(devices.extra("tpu-v5e", "HBM bandwidth label '800 GiBps' (conflicting revision)").value)


def test_4000_tops_chain():
    steps = sr.advertised_to_dense(4000e12)
    assert [s.value for s in steps] == pytest.approx([4000e12, 2000e12, 1000e12])
    # total factor 4 = 2 (sparsity) x 2 (INT8 vs FP16)
    assert steps[0].value / steps[-1].value == pytest.approx(4)
    assert [s.label for s in steps] == ["광고 수치 (희소, 낮은 정밀도)", "희소성 제거 → 같은 정밀도의 dense",
                                        "정밀도 환산 → 목표 정밀도의 dense"]
    # the two ratios are separate steps: 1200 / 4 (sparsity) = 300, / 3 (precision) = 100
    assert sr.advertised_to_dense(1200, sparse_ratio=4, precision_ratio=3) == [
        Step("광고 수치 (희소, 낮은 정밀도)", 1200.0), Step("희소성 제거 → 같은 정밀도의 dense", 300.0),
        Step("정밀도 환산 → 목표 정밀도의 dense", 100.0)]


def test_288v_platform_is_5_plus_67_plus_48():
    parts, total = sr.platform_parts("core-ultra-9-288v", ["CPU peak TOPS (Int8)", "GPU peak TOPS (Int8)"])
    assert parts == pytest.approx((5 + 67 + 48) * 1e12)
    assert total == pytest.approx(120e12)
    parts, _ = sr.platform_parts("core-ultra-9-288v", ["GPU peak TOPS (Int8)"])   # NPU 48 + GPU 67
    assert parts == pytest.approx(115e12)


def test_tpu_pod_256_chips():
    assert sr.per_chip_from_pod(100e15, 256) == pytest.approx(390.625e12)  # 100 PetaOps / 256
    assert sr.per_chip_from_pod(6, 3) == 2.0
    assert sr.per_chip_from_pod(6, 1) == 6.0                              # one chip is allowed


def test_peak_ratio_int8_vs_fp16():
    assert sr.peak_ratio("a100-sxm4-40gb", "int8", "fp16") == pytest.approx(624 / 312)
    assert sr.peak_ratio("tpu-v5e", "int8", "bf16") == pytest.approx(393 / 197)
    # the sparse figures: H100 INT8 3,958 TOPS* over BF16 1,979 TFLOPS*
    assert sr.peak_ratio("h100-sxm", "int8", "bf16", sparse=True) == pytest.approx(3958 / 1979)


def test_peak_ratio_of_an_unpublished_peak_is_an_error(monkeypatch):
    data = dict(FAKE_DEVICES, devices=dict(FAKE_DEVICES["devices"]))
    y = data["devices"]["y"]
    data["devices"]["y"] = dict(y, peaks=y["peaks"] + [dict(y["peaks"][0], precision="bf16", value=1e12)])
    use_data(monkeypatch, "devices.json", data)
    with pytest.raises(ValueError, match=r"^y: the numerator peak is 미공개; no ratio can be formed$"):
        sr.peak_ratio("y", "fp64", "bf16")
    with pytest.raises(ValueError, match=r"^y: the denominator peak is 미공개; no ratio can be formed$"):
        sr.peak_ratio("y", "bf16", "fp64")


def test_platform_parts_whatever_the_order_of_the_peaks(monkeypatch):
    # the platform figure listed before the chip's own: own 2 + part 3 = 5, platform 9 (a fake device, in OP/s)
    data = dict(FAKE_DEVICES, devices=dict(FAKE_DEVICES["devices"]))
    w = data["devices"]["w"]
    data["devices"]["w"] = dict(w, peaks=[fig(9, "OP/s", precision="int8", sparse=None, scope="platform"),
                                          fig(2, "OP/s", precision="int8", sparse=None, scope="chip")],
                                extra=[fig(3, "OP/s", label="part")])
    use_data(monkeypatch, "devices.json", data)
    assert sr.platform_parts("w", ["part"]) == (5, 9)


def test_transfer_time_both_directions():
    # 2 MiB over PCIe Gen5 quoted 128 GB/s both ways -> 64 GB/s one way
    assert sr.transfer_time(2 * 1024**2, 128e9, both_directions=True) == pytest.approx(2097152 / 64e9)
    assert sr.transfer_time(1e9, 1e12) == pytest.approx(1e-3)


@pytest.mark.parametrize("match, call", [
    (r"^advertised must be > 0", lambda: sr.advertised_to_dense(0)),
    (r"^sparse_ratio must be > 0", lambda: sr.advertised_to_dense(4000e12, sparse_ratio=-1)),
    (r"^precision_ratio must be > 0", lambda: sr.advertised_to_dense(4000e12, precision_ratio=0)),
    (r"^value_gib is NaN", lambda: sr.gib_read_as_gb(float("nan"))),
    (r"^n_bytes must be > 0", lambda: sr.transfer_time(0, 1e9)),
    (r"^bandwidth must be > 0", lambda: sr.transfer_time(1e6, 0)),
    (r"^chips must be a positive integer", lambda: sr.per_chip_from_pod(1e15, 0)),
    (r"^chips must be a positive integer", lambda: sr.per_chip_from_pod(1e15, True)),
    (r"^pod_total must be > 0", lambda: sr.per_chip_from_pod(0, 2)),
    (r"^part_labels must name at least one", lambda: sr.platform_parts("core-ultra-9-288v", [])),
    (r"^h100-sxm: needs one platform-scope and one own int8 peak", lambda: sr.platform_parts("h100-sxm", ["NVLink bandwidth"])),
])
def test_bad_input_raises_value_error(match, call):
    with pytest.raises(ValueError, match=match):
        call()


def test_unknown_key_raises_key_error():
    with pytest.raises(KeyError, match="unknown device key 'no-such-device'"):
        sr.peak_ratio("no-such-device", "int8", "fp16")
