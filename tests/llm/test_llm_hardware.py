"""xpucalc.llm.hardware: one device lookup for serve and the memo (expected values from the vendors' figures)."""
import pytest

from xpucalc import Device
from xpucalc.llm import models, serve
from xpucalc.llm.hardware import Hardware, resolve
from xpucalc.llm.memo import WorkloadInputs, memo, resolve_hardware


def test_h100_from_the_catalog():
    h = resolve("h100-sxm")
    # H100 SXM: 80 GiB = 80 x 2^30 B; 3.35 TB/s; BF16 dense 989.4 TFLOP/s; NVLink 900 GB/s both ways -> 450 one way;
    # PCIe Gen5 x16 128 GB/s both ways -> 64 one way
    assert h.memory == 80 * 2**30 and h.bandwidth == 3.35e12 and h.peak_flops == 989.4e12
    assert h.link_bandwidth == 450e9 and h.host_link_bandwidth == 64e9 and h.host_link_label == "PCIe Gen5 x16"
    assert h.peak_label == "BF16 dense, FP32 accumulate" and h.from_catalog and h.key == "h100-sxm"
    # 1-byte weights pick the FP8 dense peak (1,979 TFLOP/s), unless a precision is named
    assert resolve("h100-sxm", weight_bytes=1).peak_flops == 1979e12
    assert resolve("h100-sxm", "bf16", 1).peak_flops == 989.4e12


def test_a_precision_the_device_lacks_falls_back_and_says_so():
    # the RTX 4090 publishes no BF16 tensor rate; FP16 with FP32 accumulate is 165.2 TFLOP/s dense
    h = resolve("rtx-4090", "bf16")
    assert h.peak_flops == 165.2e12 and h.peak_label == "FP16 dense, FP32 accumulate"


def test_no_published_peak_and_no_link_in_the_catalog():
    h = resolve("apple-m3-ultra")
    assert h.peak_flops is None and h.peak_label.startswith("미공개")
    # assumed PCIe Gen4 x16: 16 lanes x 16 GT/s x 128/130 / 8 = 31.51 GB/s one way
    assert h.link_bandwidth == pytest.approx(16 * 16e9 * 128 / 130 / 8) and h.host_link_assumed


def test_overrides_and_hand_typed_devices():
    h = resolve("h100-sxm", bandwidth=2e12)
    assert h.bandwidth == 2e12 and h.memory == 80 * 2**30 and not h.from_catalog
    h = resolve(None, memory=16e9, bandwidth=500e9, name="my GPU")
    assert (h.name, h.memory, h.bandwidth, h.peak_flops, h.key) == ("my GPU", 16e9, 500e9, None, None)
    with pytest.raises(ValueError, match="memory is required"):
        resolve(None, bandwidth=500e9)
    with pytest.raises(ValueError, match="memory is unknown"):
        resolve(Device("x", 1e14, 1e12))
    d = resolve(Device("x", 1e14, 1e12, 8e9))
    assert (d.peak_flops, d.memory, d.peak_label) == (1e14, 8e9, "given dense peak")
    assert resolve(h) is h
    p = resolve(h, peak_flops=5e13)
    assert isinstance(p, Hardware) and p.peak_flops == 5e13 and p.memory == 16e9
    with pytest.raises(ValueError, match="catalog key"):
        resolve(3)


def test_serve_and_the_memo_see_the_same_device():
    # before the two lookups were one, the memo showed the 4090's FP16 peak while serve found no BF16 peak
    # and skipped prefill; now both use the FP16 dense 165.2 TFLOP/s
    hw = resolve_hardware(WorkloadInputs(model="llama-3-8b", gpu="rtx-4090"))
    r = memo(model="llama-3-8b", gpu="rtx-4090", seq_len=8192)
    assert hw.peak_flops == r.serving.hardware.peak_flops == 165.2e12
    assert r.serving.prefill_s is not None and "FP16 dense, FP32 누산" in str(r)
    # a hand-typed device goes to serve as it is (its overrides are kept)
    r = memo(model="llama-3-8b", gpu="h100-sxm", bandwidth=2e12)
    assert r.serving.hardware.bandwidth == 2e12
    s = serve(models.get("llama-3-8b"), resolve("h100-sxm", bandwidth=2e12))
    assert s.decode_step_s == pytest.approx(r.serving.decode_step_s)
