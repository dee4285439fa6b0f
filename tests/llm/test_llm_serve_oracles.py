"""Oracle tests for xpucalc.llm.hardware.resolve and xpucalc.llm.serve (issue 16, mutation score).

Every expected value is written as a literal with its derivation in a comment: catalog figures
are copied from xpucalc/catalog/data/devices.json (NVIDIA H100 SXM datasheet: 80 GiB HBM3, 3.35 TB/s,
989.4 TFLOP/s BF16/FP16 dense with FP32 accumulate, 1,979 TFLOP/s FP8 dense, NVLink 900 GB/s
both directions, PCIe Gen5 128 GB/s both directions), model sizes are counted by hand from the
published Llama 3 8B / Mixtral 8x7B configurations, and times follow the roofline by hand.
Nothing here is computed with the function under test or its own constants.
"""
import importlib
import math

import pytest

from xpucalc import llm
from xpucalc.core.device import Device
from xpucalc.llm import hardware

REL = 1e-12

# --- catalog literals (xpucalc/catalog/data/devices.json, checked with xpucalc.devices.entry/peak/extra) -----------
H100_MEM = 85899345920.0          # 80 GiB = 80 * 2**30 bytes
H100_BW = 3.35e12                 # 3.35 TB/s
H100_BF16 = 989.4e12              # BF16 dense, FP32 accumulate
H100_FP8 = 1979e12                # FP8 dense
H100_LINK = 900e9 / 2             # NVLink 900 GB/s counts both directions
H100_HOST = 128e9 / 2             # PCIe Gen5 x16 128 GB/s both directions
PCIE4_X16 = 31.5076923076923e9    # Gen4: 16 GT/s x 16 lanes x 128/130 / 8 bits = 31.50769... GB/s one way
NVLINK_LABEL = "NVLink bandwidth ÷ 2 (NVIDIA adds both directions)"
ASSUMED_LABEL = "PCIe Gen4 x16 one way (assumed: no link in the catalog)"

# --- Llama 3 8B by hand (config: vocab 128256, hidden 4096, 32 layers, 32 heads, 8 KV heads, head 128, MLP 14336)
# embedding 128256*4096 = 525,336,576, untied head the same; per layer q,o 2*4096^2 = 33,554,432,
# k,v 2*4096*1024 = 8,388,608, MLP 3*4096*14336 = 176,160,768, two norms 8,192 -> 218,112,000;
# 32 layers 6,979,584,000 + final norm 4,096 + 1,050,673,152 = 8,030,261,248
L8_PARAMS = 8_030_261_248
L8_W = 2 * L8_PARAMS                    # BF16 weights, bytes: 16,060,522,496
L8_KV_TOKEN = 2 * 32 * 8 * 128 * 2      # K and V x layers x kv heads x head dim x 2 bytes = 131,072
L8_DECODE_FLOPS = 2 * L8_PARAMS + 4 * 32 * 4096 * 4096     # 2N + 4 L d pos at pos 4096 = 18,208,006,144
L8_PREFILL_FLOPS_TOKEN = 2 * L8_PARAMS + 2 * 32 * 4096 * 4096   # 2N + causal attention 2 L d c = 17,134,264,320
ACT = 4096 * 2                          # one token's activation, BF16 bytes


@pytest.fixture(scope="module")
def l8():
    return llm.models.get("llama-3-8b")


@pytest.fixture(scope="module")
def mixtral():
    return llm.models.get("mixtral-8x7b")


# ============================ hardware.resolve ============================

def test_resolve_h100_catalog_fields():
    h = hardware.resolve("h100-sxm")
    assert h.name == "NVIDIA H100 SXM"
    assert h.memory == H100_MEM and h.bandwidth == H100_BW
    assert h.peak_flops == H100_BF16
    assert (h.peak_precision, h.peak_accumulate) == ("bf16", "fp32")
    assert h.peak_label == "BF16 dense, FP32 accumulate"
    assert h.link_bandwidth == H100_LINK and h.link_label == NVLINK_LABEL
    assert h.host_link_bandwidth == H100_HOST and h.host_link_label == "PCIe Gen5 x16"
    assert h.host_link_assumed is False
    assert h.key == "h100-sxm" and h.from_catalog is True


def test_resolve_precision_choice():
    assert hardware.resolve("h100-sxm", weight_bytes=1).peak_flops == H100_FP8          # 1-byte weights: FP8
    assert hardware.resolve("h100-sxm", weight_bytes=1).peak_precision == "fp8"
    assert hardware.resolve("h100-sxm", weight_bytes=1.5).peak_precision == "bf16"
    assert hardware.resolve("h100-sxm", "fp16").peak_precision == "fp16"
    assert hardware.resolve("h100-sxm", "tf32").peak_flops == 494.5e12                  # TF32 dense
    # A100 publishes no FP8: a named precision it lacks falls back to BF16 (312 TFLOP/s dense)
    a = hardware.resolve("a100-80gb", "fp8")
    assert (a.peak_flops, a.peak_precision) == (312e12, "bf16")
    assert hardware.resolve("a100-80gb", weight_bytes=1).peak_precision == "bf16"


def test_resolve_falls_back_to_fp16_and_label_without_accumulate():
    # RTX 6000 Ada: no BF16 in the catalog, FP16 dense 364.25 TFLOP/s with no accumulate stated
    h = hardware.resolve("rtx-6000-ada")
    assert (h.peak_flops, h.peak_precision, h.peak_accumulate) == (364.25e12, "fp16", None)
    assert h.peak_label == "FP16 dense"
    # and no link of any kind: Gen4 x16 is assumed for both
    assert h.link_label == ASSUMED_LABEL and h.host_link_label == "PCIe Gen4 x16"
    assert h.host_link_assumed is True
    assert h.link_bandwidth == pytest.approx(PCIE4_X16, rel=1e-9)
    assert h.host_link_bandwidth == pytest.approx(PCIE4_X16, rel=1e-9)


def test_resolve_device_without_peak():
    h = hardware.resolve("apple-m3-ultra")           # Apple publishes no FP16/FP32 TFLOP/s
    assert h.peak_flops is None and h.peak_precision is None and h.peak_accumulate is None
    assert h.peak_label == "미공개 (no dense peak in the catalog)"
    assert h.memory == 549755813888 and h.bandwidth == 819e9     # 512 GiB, 819 GB/s
    assert h.from_catalog is True


def test_resolve_links():
    l40s = hardware.resolve("l40s")                  # PCIe Gen4 x16 64 GB/s both ways, no NVLink
    assert l40s.link_bandwidth == 32e9 and l40s.link_label == "PCIe Gen4 x16 ÷ 2 (both directions added)"
    assert (l40s.host_link_bandwidth, l40s.host_link_label, l40s.host_link_assumed) == (32e9, "PCIe Gen4 x16", False)
    pcie = hardware.resolve("h100-pcie")             # only an NVLink *bridge*: the PCIe Gen5 link
    assert pcie.link_bandwidth == 64e9 and pcie.link_label == "PCIe Gen5 x16 ÷ 2 (both directions added)"
    b200 = hardware.resolve("b200")                  # NVLink 5 1.8 TB/s both directions, no PCIe figure
    assert b200.link_bandwidth == 900e9
    assert b200.link_label == "NVLink 5 bandwidth ÷ 2 (NVIDIA adds both directions)"
    assert b200.host_link_assumed is True and b200.host_link_label == "PCIe Gen4 x16"
    a100 = hardware.resolve("a100-80gb")             # NVLink 600 GB/s, PCIe Gen4 64 GB/s
    assert a100.link_bandwidth == 300e9 and a100.host_link_bandwidth == 32e9
    assert a100.host_link_label == "PCIe Gen4 x16"


def test_link_functions_without_key():
    bw, label, assumed = hardware.host_link(None)
    assert bw == pytest.approx(PCIE4_X16, rel=1e-9) and label == "PCIe Gen4 x16" and assumed is True
    bw, label = hardware.device_link(None)
    assert bw == pytest.approx(PCIE4_X16, rel=1e-9) and label == ASSUMED_LABEL


def test_resolve_overrides_on_catalog_key():
    h = hardware.resolve("h100-sxm", memory=40e9)
    assert h.memory == 40e9 and h.bandwidth == H100_BW and h.peak_flops == H100_BF16
    assert h.peak_precision == "bf16" and h.from_catalog is False
    h = hardware.resolve("h100-sxm", bandwidth=1e12)
    assert h.bandwidth == 1e12 and h.memory == H100_MEM and h.from_catalog is False
    h = hardware.resolve("h100-sxm", peak_flops=5e14)
    assert (h.peak_flops, h.peak_precision, h.peak_accumulate) == (5e14, None, None)
    assert h.peak_label == "given dense peak" and h.from_catalog is False
    assert h.link_bandwidth == H100_LINK and h.key == "h100-sxm"


def test_resolve_catalog_entry_without_bandwidth():
    with pytest.raises(ValueError, match="bandwidth"):
        hardware.resolve("core-ultra-9-288v")      # the NPU entry has no memory bandwidth
    h = hardware.resolve("core-ultra-9-288v", bandwidth=120e9)
    assert h.bandwidth == 120e9 and h.memory == 34359738368 and h.from_catalog is False
    assert h.peak_flops is None                     # only INT8 TOPS, no BF16/FP16


def test_resolve_by_hand():
    with pytest.raises(ValueError, match="memory is required"):
        hardware.resolve(None, bandwidth=1e12)
    with pytest.raises(ValueError, match="bandwidth is required"):
        hardware.resolve(None, memory=1e10)
    h = hardware.resolve(None, memory=1e10, bandwidth=1e12)
    assert h.name == "hand-entered device" and h.peak_flops is None and h.key is None
    assert h.from_catalog is False and h.peak_precision is None and h.host_link_assumed is True
    assert h.link_label == ASSUMED_LABEL and h.host_link_label == "PCIe Gen4 x16"
    assert h.link_bandwidth == pytest.approx(PCIE4_X16, rel=1e-9)
    assert h.host_link_bandwidth == pytest.approx(PCIE4_X16, rel=1e-9)
    h = hardware.resolve(None, memory=1e10, bandwidth=1e12, peak_flops=2e14, name="mine")
    assert (h.name, h.memory, h.bandwidth, h.peak_flops) == ("mine", 1e10, 1e12, 2e14)
    assert h.peak_label == "given dense peak"
    with pytest.raises(ValueError, match="memory"):
        hardware.resolve(None, memory=0, bandwidth=1e12)
    with pytest.raises(ValueError, match="peak_flops"):
        hardware.resolve("h100-sxm", peak_flops=-1.0)


def test_resolve_hardware_passthrough_and_override():
    h = hardware.resolve("h100-sxm")
    assert hardware.resolve(h) is h
    b = hardware.resolve(h, bandwidth=2e12)
    assert b.bandwidth == 2e12 and b.memory == H100_MEM and b.from_catalog is False
    assert (b.peak_flops, b.peak_precision, b.peak_accumulate) == (H100_BF16, "bf16", "fp32")
    p = hardware.resolve(h, peak_flops=1e14)
    assert (p.peak_flops, p.peak_precision, p.peak_accumulate) == (1e14, None, None)
    assert p.bandwidth == H100_BW and p.from_catalog is False


def test_resolve_device_object():
    d = Device(name="Mine", peak_flops=1e15, bandwidth=2e12, memory=4e10, precision="bf16", key="h100-sxm")
    h = hardware.resolve(d)
    assert (h.name, h.memory, h.bandwidth, h.peak_flops) == ("Mine", 4e10, 2e12, 1e15)
    assert h.peak_precision == "bf16" and h.peak_accumulate is None and h.from_catalog is False
    assert h.key == "h100-sxm" and h.link_bandwidth == H100_LINK and h.host_link_bandwidth == H100_HOST
    assert h.link_label == NVLINK_LABEL and h.host_link_label == "PCIe Gen5 x16" and h.host_link_assumed is False
    assert isinstance(h.memory, float) and isinstance(h.bandwidth, float)
    o = hardware.resolve(d, memory=1e10, bandwidth=1e11, peak_flops=3e14)
    assert (o.memory, o.bandwidth, o.peak_flops, o.peak_precision) == (1e10, 1e11, 3e14, None)
    s = hardware.resolve(Device(name="S", peak_flops=1e15, bandwidth=2e12, memory=4e10, precision="bf16", sparse=True))
    assert s.peak_flops is None and s.peak_precision is None      # a sparse peak is not a dense peak
    n = hardware.resolve(Device(name="N", peak_flops=1e15, bandwidth=2e12, memory=4e10, precision=""))
    assert n.peak_precision is None and n.peak_flops == 1e15
    with pytest.raises(ValueError, match="memory is unknown"):
        hardware.resolve(Device(name="NoMem", peak_flops=1e15, bandwidth=2e12))
    assert hardware.resolve(Device(name="NoMem", peak_flops=1e15, bandwidth=2e12), memory=8e9).memory == 8e9


def test_resolve_rejects_other_types():
    with pytest.raises(ValueError, match="device must be a catalog key .*, got int$"):
        hardware.resolve(42)


# ============================ serve ============================

def test_serve_dense_single_device(l8):
    r = llm.serve(l8, "h100-sxm", batch=1, context=4096, dp=2)
    assert (r.tp, r.pp, r.ep, r.dp, r.batch, r.microbatches, r.microbatch, r.context) == (1, 1, 1, 2, 1, 1, 1, 4096)
    assert r.n_devices == 2 and r.weight_bytes == 2.0 and r.kv_bytes == 2.0
    usable = 0.9 * H100_MEM                       # vLLM gpu_memory_utilization 0.9 -> 77,309,411,328 B
    assert r.usable_memory == pytest.approx(77_309_411_328, rel=REL)
    assert r.reserve == pytest.approx(8_589_934_592, rel=REL)
    assert r.weights_per_device == L8_W
    assert r.kv_per_device == 4096 * L8_KV_TOKEN  # 536,870,912
    m = r.memory_per_device
    assert m["weights"] == L8_W and m["kv_cache"] == 536_870_912 and m["capacity"] == H100_MEM
    assert m["free"] == pytest.approx(77_309_411_328 - 16_060_522_496 - 536_870_912, rel=REL)
    assert m["reserve"] == pytest.approx(8_589_934_592, rel=REL)
    assert r.fits is True
    assert r.max_batch == 114                     # floor(61,248,888,832 / 536,870,912) = floor(114.08)
    step = (16_060_522_496 + 536_870_912) / H100_BW   # memory-bound: weights + one KV cache, 4.954 ms
    assert r.decode_bound == "memory"
    assert r.stage_s == pytest.approx(step, rel=REL) and r.decode_step_s == pytest.approx(step, rel=REL)
    assert r.decode_tokens_per_s_per_request == pytest.approx(1 / step, rel=REL)
    assert r.decode_tokens_per_s_total == pytest.approx(2 / step, rel=REL)
    assert r.decode_comm_s == 0 and r.decode_allreduce_s == 0 and r.decode_alltoall_s == 0 and r.decode_hop_s == 0
    # prefill: 4096 x 17,134,264,320 FLOP at 40 % of 989.4 TFLOP/s (0.1773 s) beats the weight read (4.8 ms)
    assert r.prefill_s == pytest.approx(4096 * L8_PREFILL_FLOPS_TOKEN / (0.4 * H100_BF16), rel=REL)
    assert r.prefill_comm_s == 0
    assert r.notes == ()
    assert r.hardware.peak_flops == H100_BF16
    _ = usable


def test_serve_prefill_mfu_and_fp8(l8):
    r = llm.serve(l8, "h100-sxm", prefill_mfu=0.5, weight_bytes=1)
    assert r.hardware.peak_flops == H100_FP8          # FP8 peak for 1-byte weights
    assert r.weights_per_device == L8_PARAMS
    assert r.prefill_s == pytest.approx(4096 * L8_PREFILL_FLOPS_TOKEN / (0.5 * H100_FP8), rel=REL)
    # prefill bound by the weight read when the peak is huge: 16,060,522,496 B / 3.35 TB/s
    h = hardware.resolve(None, memory=1e11, bandwidth=H100_BW, peak_flops=1e30)
    assert llm.serve(l8, h, context=16).prefill_s == pytest.approx(L8_W / H100_BW, rel=REL)


def test_serve_compute_bound(l8):
    h = hardware.resolve(None, memory=1e12, bandwidth=1e15, peak_flops=1e12)
    r = llm.serve(l8, h, link_bandwidth=1e11)
    # compute 18,208,006,144 FLOP / 1 TFLOP/s = 18.2 ms > read 16,597,393,408 B / 1 PB/s = 16.6 us
    assert r.decode_bound == "compute"
    assert r.decode_step_s == pytest.approx(L8_DECODE_FLOPS / 1e12, rel=REL)
    # batch 3: compute per step scales by 3, weight read does not
    r3 = llm.serve(l8, h, batch=3, link_bandwidth=1e11)
    assert r3.decode_step_s == pytest.approx(3 * L8_DECODE_FLOPS / 1e12, rel=REL)


def test_serve_no_peak(l8):
    r = llm.serve(l8, "apple-m3-ultra")
    assert r.prefill_s is None and r.decode_bound == "memory"
    assert r.notes == ("no published dense peak: decode is taken as bandwidth-bound and prefill is not computed",)
    assert r.decode_step_s == pytest.approx((16_060_522_496 + 536_870_912) / 819e9, rel=REL)


def test_serve_tensor_parallel_allreduce(l8):
    lat, link = 1e-5, 1e11
    r = llm.serve(l8, "h100-sxm", tp=2, link_bandwidth=link, allreduce_latency_s=lat)
    assert r.weights_per_device == L8_W / 2 and r.kv_per_device == 4096 * L8_KV_TOKEN / 2
    # per layer 2 all-reduces of one token (8,192 B) over 2 devices: lat + 2 (1/2) 8192 / link each
    ar = 32 * 2 * (lat + 8192 / link)
    assert r.decode_allreduce_s == pytest.approx(ar, rel=REL) and r.decode_comm_s == pytest.approx(ar, rel=REL)
    step = (L8_W / 2 + 4096 * L8_KV_TOKEN / 2) / H100_BW + ar
    assert r.decode_step_s == pytest.approx(step, rel=REL)
    # prefill all-reduces carry the whole prompt: 4096 tokens x 8192 B each
    assert r.prefill_comm_s == pytest.approx(32 * 2 * (lat + 4096 * 8192 / link), rel=REL)
    assert r.prefill_s == pytest.approx(4096 * L8_PREFILL_FLOPS_TOKEN / 2 / (0.4 * H100_BF16)
                                        + 32 * 2 * (lat + 4096 * 8192 / link), rel=REL)
    # default link: the catalog's NVLink 450 GB/s one way, default latency 19.19 us (collective_latency.json)
    d = llm.serve(l8, "h100-sxm", tp=4)
    assert d.decode_allreduce_s == pytest.approx(32 * 2 * (19.19e-6 + 2 * 3 / 4 * 8192 / H100_LINK), rel=1e-9)


def test_serve_pipeline_microbatches(l8):
    lat, link = 1e-5, 1e11
    r = llm.serve(l8, "h100-sxm", pp=2, batch=4, link_bandwidth=link, allreduce_latency_s=lat)
    assert r.microbatches == 2 and r.microbatch == 2            # default min(pp, batch)
    kv_seq = 4096 * L8_KV_TOKEN / 2                              # 268,435,456 B per sequence per stage
    stage = (L8_W / 2 + 2 * kv_seq) / H100_BW
    hop = lat + 2 * ACT / link
    assert r.stage_s == pytest.approx(stage, rel=REL)
    assert r.decode_hop_s == pytest.approx(hop, rel=REL)
    assert r.decode_step_s == pytest.approx(2 * stage + hop, rel=REL)   # max(2 stage, 2 stage + hop)
    assert r.decode_tokens_per_s_total == pytest.approx(4 / (2 * stage + hop), rel=REL)
    assert r.kv_per_device == 4 * kv_seq and r.weights_per_device == L8_W / 2
    assert r.notes == ("PP: 2 micro-batch(es) of up to 2 sequence(s) in flight; a token crosses the 2 stages in turn",)
    assert r.prefill_s == pytest.approx(2 * max(4096 * L8_PREFILL_FLOPS_TOKEN / 2 / (0.4 * H100_BF16),
                                                L8_W / 2 / H100_BW) + (lat + 4096 * ACT / link), rel=REL)
    one = llm.serve(l8, "h100-sxm", pp=2, batch=4, microbatches=1, link_bandwidth=link, allreduce_latency_s=lat)
    stage1 = (L8_W / 2 + 4 * kv_seq) / H100_BW
    hop1 = lat + 4 * ACT / link
    assert one.microbatch == 4 and one.decode_step_s == pytest.approx(2 * stage1 + hop1, rel=REL)
    # pp=1 with 2 micro-batches: the device reads the weights twice per step
    flat = llm.serve(l8, "h100-sxm", batch=4, microbatches=2)
    assert flat.decode_step_s == pytest.approx(2 * (L8_W + 2 * 4096 * L8_KV_TOKEN) / H100_BW, rel=REL)
    assert flat.decode_hop_s == 0
    small = llm.serve(l8, "h100-sxm", pp=4, batch=2)
    assert small.microbatches == 2                              # min(pp=4, batch=2)
    with pytest.raises(ValueError, match="microbatches=5 exceeds batch=4"):
        llm.serve(l8, "h100-sxm", pp=2, batch=4, microbatches=5)
    with pytest.raises(ValueError, match="microbatches"):
        llm.serve(l8, "h100-sxm", pp=2, batch=4, microbatches=0)


def test_serve_does_not_fit():
    m = llm.models.get("llama-3-70b")
    r = llm.serve(m, "l40s")                        # ~141 GB of BF16 weights on a 48 GiB card
    assert r.fits is False and r.max_batch == 0
    assert r.notes[-1] == "does not fit: the speeds are what the layout would reach if it fitted"


def test_serve_moe_expert_parallel(mixtral):
    # Mixtral 8x7B by hand: expert 3*4096*14336 = 176,160,768; 8 experts x 32 layers = 45,097,156,608;
    # shared: embeddings 2*32000*4096 = 262,144,000 + 32 x (attention 41,943,040 + router 32,768 + norms 8,192)
    # + final norm 4,096 = 1,605,636,096
    shared, experts = 1_605_636_096, 45_097_156_608
    lat, lat_a2a, link = 1e-5, 3e-5, 1e11
    r = llm.serve(mixtral, "h100-sxm", ep=2, batch=4, link_bandwidth=link, allreduce_latency_s=lat,
                  alltoall_latency_s=lat_a2a)
    assert r.ep == 2 and r.n_devices == 2
    assert r.weights_per_device == 2 * shared + 2 * experts / 2      # 48,308,428,800 B
    kv_seq = 4096 * 131072                                           # same KV shape as Llama 3 8B
    assert r.kv_per_device == 2 * kv_seq                             # ceil(4 / 2) sequences per group
    # (77,309,411,328 - 48,308,428,800) / 536,870,912 = 54.02 sequences per group, 2 groups
    assert r.max_batch == 2 * math.floor((0.9 * H100_MEM - 48_308_428_800) / kv_seq)
    assert r.max_batch == 108
    # each group sends 2 tokens x k=2 copies x 1/2 leaving x 8192 B = 16,384 B per all-to-all, 2 per layer
    assert r.decode_alltoall_s == pytest.approx(32 * 2 * (lat_a2a + 16384 / link), rel=REL)
    assert r.decode_allreduce_s == 0
    # 4 tokens touch 8 (1 - (1 - 2/8)^4) = 5.46875 experts per layer
    assert r.notes == ("MoE: a step over 4 token(s) touches 5.47 of 8 experts per layer (uniform routing)",)
    read = 2 * shared + 5.46875 * 176_160_768 * 32 * 2 / 2 + 2 * kv_seq
    assert r.stage_s == pytest.approx(read / H100_BW + 32 * 2 * (lat_a2a + 16384 / link), rel=1e-9)
    # all-to-all latency defaults to the all-reduce latency
    d = llm.serve(mixtral, "h100-sxm", ep=2, batch=4, link_bandwidth=link, allreduce_latency_s=lat)
    assert d.decode_alltoall_s == pytest.approx(32 * 2 * (lat + 16384 / link), rel=REL)
    # prefill all-to-all: 4096 tokens x 2 x 1/2 x 8192 B
    assert d.prefill_comm_s == pytest.approx(32 * 2 * (lat + 4096 * 2 * 0.5 * 8192 / link), rel=REL)
    with pytest.raises(ValueError, match="ep=3 must divide the 8 experts"):
        llm.serve(mixtral, "h100-sxm", ep=3)


def test_serve_validation_names_the_argument(l8):
    with pytest.raises(ValueError, match="model must be .*, got str$"):
        llm.serve("llama-3-8b", "h100-sxm")
    with pytest.raises(ValueError, match="tp=3 must divide"):
        llm.serve(l8, "h100-sxm", tp=3)
    with pytest.raises(ValueError, match="pp=33 exceeds the 32 layers"):
        llm.serve(l8, "h100-sxm", pp=33)
    assert llm.serve(l8, "h100-sxm", pp=32).pp == 32
    with pytest.raises(ValueError, match="mixture-of-experts"):
        llm.serve(l8, "h100-sxm", ep=2)
    for kw, name in [({"tp": 0}, "tp"), ({"pp": 0}, "pp"), ({"dp": 0}, "dp"), ({"batch": 0}, "batch"),
                     ({"ep": 0}, "ep"), ({"context": 0}, "context"), ({"weight_bytes": 0}, "weight_bytes"),
                     ({"kv_bytes": 0}, "kv_bytes"), ({"memory_utilization": 1.5}, "memory_utilization"),
                     ({"prefill_mfu": 0}, "prefill_mfu"), ({"link_bandwidth": 0}, "link_bandwidth"),
                     ({"allreduce_latency_s": -1}, "allreduce_latency_s"),
                     ({"alltoall_latency_s": -1}, "alltoall_latency_s")]:
        with pytest.raises(ValueError, match=rf"^{name} must"):
            llm.serve(l8, "h100-sxm", **kw)
    with pytest.raises(ValueError, match=r"^microbatches must"):
        llm.serve(l8, "h100-sxm", pp=2, batch=4, microbatches=0)
    assert llm.serve(l8, "h100-sxm", batch=4, microbatches=4).microbatch == 1   # microbatches == batch is allowed
    with pytest.raises(ValueError, match=r"tp=2 must divide the attention heads \(6\) and the KV heads \(3\)"):
        # 6 query heads split over 2 but 3 KV heads do not: either count failing is an error
        llm.serve(_with_heads(l8, 6, 3), "h100-sxm", tp=2)
    with pytest.raises(ValueError, match="use ep=1 and split the model with tp or pp$"):
        llm.serve(l8, "h100-sxm", ep=2)


def test_serve_memory_utilization_and_kv_bytes(l8):
    r = llm.serve(l8, "h100-sxm", memory_utilization=0.5, kv_bytes=1)
    assert r.usable_memory == pytest.approx(0.5 * H100_MEM, rel=REL)
    assert r.reserve == pytest.approx(0.5 * H100_MEM, rel=REL)
    assert r.kv_per_device == 4096 * L8_KV_TOKEN / 2                 # FP8 KV halves it
    # floor((42,949,672,960 - 16,060,522,496) / 268,435,456) = floor(100.17) = 100
    assert r.max_batch == 100


def _with_heads(model, heads, kv_heads):
    from dataclasses import replace
    return replace(model, num_heads=heads, num_kv_heads=kv_heads, hidden_size=heads * 128)


def test_allreduce_and_alltoall_by_hand():
    # ring all-reduce: lat + 2 (n-1)/n size / link; 4 devices, 1 MB, 100 GB/s, 10 us -> 10 us + 15 us
    serve_mod = importlib.import_module("xpucalc.llm.serving")
    assert serve_mod.allreduce_s(1e6, 4, 1e11, 1e-5) == pytest.approx(2.5e-5, rel=REL)
    assert serve_mod.allreduce_s(1e6, 1, 1e11, 1e-5) == 0.0
    # all-to-all: lat + send / link = 10 us + 1e6 / 1e11 = 20 us
    assert serve_mod.alltoall_s(1e6, 4, 1e11, 1e-5) == pytest.approx(2e-5, rel=REL)
    assert serve_mod.alltoall_s(1e6, 1, 1e11, 1e-5) == 0.0
    for f in (serve_mod.allreduce_s, serve_mod.alltoall_s):
        with pytest.raises(ValueError, match=r"^n must"):
            f(1e6, 0, 1e11, 1e-5)
        with pytest.raises(ValueError, match=r"^latency_s must"):
            f(1e6, 2, 1e11, -1.0)
        with pytest.raises(ValueError, match=r"^link_bandwidth must"):
            f(1e6, 2, 0.0, 1e-5)
    with pytest.raises(ValueError, match=r"^size_bytes must"):
        serve_mod.allreduce_s(-1.0, 2, 1e11, 1e-5)
    with pytest.raises(ValueError, match=r"^send_bytes must"):
        serve_mod.alltoall_s(-1.0, 2, 1e11, 1e-5)


def test_allreduce_latency_figure():
    serve_mod = importlib.import_module("xpucalc.llm.serving")
    f = serve_mod.allreduce_latency_figure()
    # ByteDance-Seed/Triton-distributed issue #57: NCCL all-reduce of 128 B over 8 H100s, 19.19 us
    assert f["value"] == 19.19e-6 and f["unit"] == "s"
    assert f["source_url"] == "https://github.com/ByteDance-Seed/Triton-distributed/issues/57"
    assert f["source_title"].startswith("ByteDance-Seed/Triton-distributed issue #57")
    with pytest.raises(KeyError, match="known: nvlink-8xh100"):
        serve_mod.allreduce_latency_figure("nope")


def test_serve_exact_capacity_boundary(l8):
    # capacity = BF16 weights + exactly 10 KV caches of 4,096 tokens: 16,060,522,496 + 10 x 536,870,912 B
    h = hardware.resolve(None, memory=21_429_231_616, bandwidth=H100_BW, peak_flops=H100_BF16)
    r = llm.serve(l8, h, batch=10, memory_utilization=1.0, link_bandwidth=1e11)
    assert r.max_batch == 10 and r.fits is True          # filling the memory exactly still fits
    assert llm.serve(l8, h, batch=11, memory_utilization=1.0, link_bandwidth=1e11).fits is False


def test_serve_passes_precision_and_keeps_model(l8):
    r = llm.serve(l8, "h100-sxm", precision="tf32")
    assert r.hardware.peak_flops == 494.5e12 and r.model is l8


def test_serve_prefill_weight_read_bound_sharded(l8, mixtral):
    lat, link = 1e-5, 1e11
    h = hardware.resolve(None, memory=1e12, bandwidth=H100_BW, peak_flops=1e30)
    r = llm.serve(l8, h, tp=2, link_bandwidth=link, allreduce_latency_s=lat)
    assert r.prefill_s == pytest.approx(L8_W / 2 / H100_BW + 32 * 2 * (lat + 4096 * 8192 / link), rel=REL)
    # MoE: 4,096 prompt tokens touch all 8 experts (8 (1 - 0.75^4096) = 8.0 in floating point), so the
    # prefill reads every weight once: 2 x (1,605,636,096 + 45,097,156,608) = 93,405,585,408 B
    m = llm.serve(mixtral, h)
    assert m.prefill_s == pytest.approx(93_405_585_408 / H100_BW, rel=1e-9)


def test_serve_moe_with_tensor_parallel(mixtral):
    lat, link = 1e-5, 1e11
    r = llm.serve(mixtral, "h100-sxm", ep=4, tp=2, batch=8, link_bandwidth=link, allreduce_latency_s=lat)
    # 2 tokens per group (8 / 4); all-to-all sends 2 x k=2 x 3/4 leaving x 8192 B / tp 2 = 12,288 B per device
    a2a = 32 * 2 * (lat + 12288 / link)
    # all-reduce of the group's 2 tokens (16,384 B) over tp=2: lat + 2 (1/2) 16384 / link
    ar = 32 * 2 * (lat + 16384 / link)
    assert r.decode_alltoall_s == pytest.approx(a2a, rel=REL)
    assert r.decode_allreduce_s == pytest.approx(ar, rel=REL)
    assert r.decode_comm_s == pytest.approx(a2a + ar, rel=REL)
    assert r.n_devices == 8


def test_layouts_of_eight_devices(l8):
    rs = llm.layouts(l8, "h100-sxm", 8)
    # TP in {1, 2, 4, 8} (divides 32 heads and 8 KV heads, <= 8 per node), PP dividing 8 / tp, DP the rest
    assert sorted((r.tp, r.pp, r.dp) for r in rs) == [
        (1, 1, 8), (1, 2, 4), (1, 4, 2), (1, 8, 1), (2, 1, 4), (2, 2, 2), (2, 4, 1), (4, 1, 2), (4, 2, 1), (8, 1, 1)]
    assert all(r.batch == 1 and r.context == 4096 and r.weight_bytes == 2.0 and r.kv_bytes == 2.0 for r in rs)
    speeds = [r.decode_tokens_per_s_per_request for r in rs]
    assert speeds == sorted(speeds, reverse=True)
    one = llm.layouts(l8, "h100-sxm", 2, weight_bytes=1, kv_bytes=1, memory_utilization=0.5, batch=3, context=1024)
    assert {(r.weight_bytes, r.kv_bytes, r.batch, r.context) for r in one} == {(1.0, 1.0, 3, 1024)}
    assert one and all(r.usable_memory == pytest.approx(0.5 * H100_MEM, rel=REL) for r in one)
    # 6 heads: tp 2 does not divide 3 devices but tp 3 does
    six = _with_heads(l8, 6, 6)
    assert sorted((r.tp, r.pp) for r in llm.layouts(six, "h100-sxm", 3)) == [(1, 1), (1, 3), (3, 1)]
    # Llama 3.2 1B has 16 layers: pp = 16 is allowed
    small = llm.models.get("llama-3.2-1b")
    assert (1, 16) in {(r.tp, r.pp) for r in llm.layouts(small, "h100-sxm", 16)}
    with pytest.raises(ValueError, match=r"^n_devices must"):
        llm.layouts(l8, "h100-sxm", 0)
    with pytest.raises(ValueError, match=r"^gpus_per_node must"):
        llm.layouts(l8, "h100-sxm", 8, gpus_per_node=0)
    with pytest.raises(ValueError, match=r"ep=4 must divide n_devices=6"):
        llm.layouts(llm.models.get("mixtral-8x7b"), "h100-sxm", 6, ep=4)


def test_layouts_edge_cases(l8, mixtral):
    # ep=2 on 6 devices: 3 devices per expert group, so tp=1 and pp in {1, 3} (pp=2 does not divide 3)
    assert sorted((r.tp, r.pp, r.dp) for r in llm.layouts(mixtral, "h100-sxm", 6, ep=2)) == [(1, 1, 3), (1, 3, 1)]
    # TP stays inside an 8-device node by default: a 9-head model on 9 devices gets tp 1 or 3, never 9
    nine = _with_heads(l8, 9, 9)
    assert sorted((r.tp, r.pp) for r in llm.layouts(nine, "h100-sxm", 9)) == [(1, 1), (1, 3), (1, 9), (3, 1), (3, 3)]
