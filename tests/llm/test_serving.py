"""xpucalc.llm.serving: the serving estimate of a model on a TP x PP x EP x DP layout, worked by hand.

Every expected value is written as a literal with its derivation in a comment: catalog figures are copied from
xpucalc/catalog/data/devices.json (H100 SXM: 80 GiB, 3.35 TB/s, 989.4 TFLOP/s BF16 dense, 1,979 TFLOP/s FP8 dense,
NVLink 900 GB/s both directions), model sizes are counted by hand from the published Llama 3 8B / Mixtral 8x7B
configurations, and times follow the roofline by hand. Nothing here is computed with the function under test or
its own constants. The estimate is grouped: ``memory`` (MemoryFit), ``decode`` (Decode), ``prefill`` (Prefill).
"""
import dataclasses
import math

import pytest

from xpucalc import Device, llm
from xpucalc.llm import hardware, models, serve, serving
from xpucalc.llm.serving import ALLREDUCE_LATENCY_S, GPU_MEMORY_UTILIZATION

REL = 1e-12

# --- catalog literals (xpucalc/catalog/data/devices.json) ---------------------------------------------------------
H100_MEM = 85899345920.0          # 80 GiB = 80 * 2**30 bytes
H100_BW = 3.35e12                 # 3.35 TB/s
H100_BF16 = 989.4e12              # BF16 dense, FP32 accumulate
H100_FP8 = 1979e12                # FP8 dense
H100_LINK = 900e9 / 2             # NVLink 900 GB/s counts both directions
MEM = H100_MEM
BW = H100_BW

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
# A step reads the whole head but only one embedding row per token: the 128,256 x 4,096 input embedding
# (1,050,673,152 B in BF16) is replaced by tokens x 4,096 x 2 B of rows.
L8_EMB_B = 2 * 128256 * 4096            # 1,050,673,152


def l8_read(tokens):
    """Llama 3 8B BF16 weight bytes one step over ``tokens`` tokens reads: 15,009,849,344 + 8,192 per token."""
    return L8_W - L8_EMB_B + tokens * 4096 * 2


@pytest.fixture(scope="module")
def l8():
    return llm.models.get("llama-3-8b")


@pytest.fixture(scope="module")
def mixtral():
    return llm.models.get("mixtral-8x7b")


def _with_heads(model, heads, kv_heads):
    return dataclasses.replace(model, num_heads=heads, num_kv_heads=kv_heads, hidden_size=heads * 128)


# --- one device: memory, decode, prefill ------------------------------------------------------------------------
def test_serve_dense_single_device(l8):
    r = llm.serve(l8, "h100-sxm", batch=1, context=4096, dp=2)
    assert (r.tp, r.pp, r.ep, r.dp, r.batch, r.microbatches, r.decode.microbatch, r.context) == (1, 1, 1, 2, 1, 1, 1, 4096)
    assert r.n_devices == 2 and r.weight_bytes == 2.0 and r.kv_bytes == 2.0
    usable = 0.9 * H100_MEM                       # vLLM gpu_memory_utilization 0.9 -> 77,309,411,328 B
    assert r.memory.usable == pytest.approx(77_309_411_328, rel=REL)
    assert r.memory.reserve == pytest.approx(8_589_934_592, rel=REL)
    assert r.memory.weights == L8_W
    assert r.memory.kv_cache == 4096 * L8_KV_TOKEN  # 536,870,912
    assert r.memory.capacity == H100_MEM
    assert r.memory.free == pytest.approx(77_309_411_328 - 16_060_522_496 - 536_870_912, rel=REL)
    assert r.fits is True and r.memory.fits is True
    assert r.max_batch == 114 == r.memory.max_batch   # floor(61,248,888,832 / 536,870,912) = floor(114.08)
    # memory-bound: weights without the input embedding table, one row of it, one KV cache:
    # (15,009,857,536 + 536,870,912) / 3.35e12 = 4.641 ms (4.954 ms if the whole table were read)
    step = (15_009_857_536 + 536_870_912) / H100_BW
    assert l8_read(1) == 15_009_857_536 and step == pytest.approx(4.6408e-3, abs=1e-7)
    assert r.decode.bound == "memory"
    assert r.decode.stage_s == pytest.approx(step, rel=REL) and r.decode.step_s == pytest.approx(step, rel=REL)
    assert r.decode_tokens_per_s_per_request == pytest.approx(1 / step, rel=REL)
    assert r.decode_tokens_per_s_total == pytest.approx(2 / step, rel=REL)
    assert r.decode.tokens_per_s_per_request == r.decode_tokens_per_s_per_request
    assert r.decode.tokens_per_s_total == r.decode_tokens_per_s_total
    assert r.decode.comm_s == 0 and r.decode.allreduce_s == 0 and r.decode.alltoall_s == 0 and r.decode.hop_s == 0
    # prefill: 4096 x 17,134,264,320 FLOP at 40 % of 989.4 TFLOP/s (0.1773 s) beats the weight read (4.8 ms)
    assert r.prefill_s == pytest.approx(4096 * L8_PREFILL_FLOPS_TOKEN / (0.4 * H100_BF16), rel=REL)
    assert r.prefill.time_s == r.prefill_s and r.prefill.comm_s == 0
    assert r.notes == ()
    assert r.embedding_bytes == 2.0
    assert r.hardware.peak_flops == H100_BF16
    assert usable == pytest.approx(77_309_411_328, rel=REL)


def test_the_five_figures_are_read_only():
    r = llm.serve(llm.models.get("llama-3-8b"), "h100-sxm")
    for name in ("fits", "max_batch", "decode_tokens_per_s_per_request", "decode_tokens_per_s_total", "prefill_s"):
        with pytest.raises(AttributeError):
            setattr(r, name, 0)
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.memory.fits = False


def test_8b_batch16_8k_on_one_h100():
    r = serve(models.get("llama-3-8b"), "h100-sxm", batch=16, context=8192)
    # KV 16 x 8192 x 131,072 B = 17,179,869,184; weights held 16,060,522,496, read 15,009,849,344 + 16 rows
    # x 8,192 = 15,009,980,416; step = (sum) / 3.35e12 = 9.61 ms
    assert r.memory.kv_cache == 17_179_869_184 and r.memory.weights == 16_060_522_496
    assert r.decode.step_s == pytest.approx((15_009_980_416 + 17_179_869_184) / BW)
    assert r.decode_tokens_per_s_total == pytest.approx(16 / r.decode.step_s)
    # usable = 0.9 x capacity (the reserve is stated, not hidden); max batch = floor((usable - W) / KV_seq)
    assert r.memory.usable == pytest.approx(GPU_MEMORY_UTILIZATION * MEM)
    assert r.max_batch == int((0.9 * MEM - 16_060_522_496) // (8192 * 131_072))
    assert r.fits and r.memory.capacity == MEM


def test_serve_prefill_mfu_and_fp8(l8):
    r = llm.serve(l8, "h100-sxm", prefill_mfu=0.5, weight_bytes=1)
    assert r.hardware.peak_flops == H100_FP8          # FP8 peak for 1-byte weights
    # FP8 blocks, embedding and head kept in BF16: 6,979,588,096 x 1 + 1,050,673,152 x 2 = 9,080,934,400 B
    assert r.memory.weights == 9_080_934_400 and r.embedding_bytes == 2.0
    assert llm.serve(l8, "h100-sxm", weight_bytes=1, embedding_bytes=1).memory.weights == L8_PARAMS
    assert r.prefill_s == pytest.approx(4096 * L8_PREFILL_FLOPS_TOKEN / (0.5 * H100_FP8), rel=REL)
    # prefill bound by the weight read when the peak is huge: 15,009,849,344 + 16 rows x 8,192 B / 3.35 TB/s
    h = hardware.resolve(None, memory=1e11, bandwidth=H100_BW, peak_flops=1e30)
    assert llm.serve(l8, h, context=16).prefill_s == pytest.approx(l8_read(16) / H100_BW, rel=REL)


def test_7b_mha_32k_prefill_on_a100_has_the_attention_term():
    r = serve(models.get("llama-2-7b"), "a100-80gb", context=32768)
    # 32768 x (2 x 6,738,415,616 + 2 x 32 x 4096 x 32768) / (312e12 x 0.4) = 5.794 s (3.54 s without attention)
    assert r.prefill_s == pytest.approx(32768 * (2 * 6_738_415_616 + 2 * 32 * 4096 * 32768) / (312e12 * 0.4))
    assert r.prefill_s == pytest.approx(5.794, abs=0.001)


def test_serve_compute_bound(l8):
    h = hardware.resolve(None, memory=1e12, bandwidth=1e15, peak_flops=1e12)
    r = llm.serve(l8, h, link_bandwidth=1e11)
    # compute 18,208,006,144 FLOP / 1 TFLOP/s = 18.2 ms > read 16,597,393,408 B / 1 PB/s = 16.6 us
    assert r.decode.bound == "compute"
    assert r.decode.step_s == pytest.approx(L8_DECODE_FLOPS / 1e12, rel=REL)
    # batch 3: compute per step scales by 3, weight read does not
    r3 = llm.serve(l8, h, batch=3, link_bandwidth=1e11)
    assert r3.decode.step_s == pytest.approx(3 * L8_DECODE_FLOPS / 1e12, rel=REL)


def test_serve_no_peak(l8):
    r = llm.serve(l8, "apple-m3-ultra")
    assert r.prefill_s is None and r.decode.bound == "memory" and r.hardware.peak_flops is None
    assert r.notes == ("no published dense peak: decode is taken as bandwidth-bound and prefill is not computed",)
    assert r.decode.step_s == pytest.approx((15_009_857_536 + 536_870_912) / 819e9, rel=REL)


def test_serve_does_not_fit():
    m = llm.models.get("llama-3-70b")
    r = llm.serve(m, "l40s")                        # ~141 GB of BF16 weights on a 48 GiB card
    assert r.fits is False and r.max_batch == 0
    assert r.notes[-1] == "does not fit: the speeds are what the layout would reach if it fitted"


def test_serve_exact_capacity_boundary(l8):
    # capacity = BF16 weights + exactly 10 KV caches of 4,096 tokens: 16,060,522,496 + 10 x 536,870,912 B
    h = hardware.resolve(None, memory=21_429_231_616, bandwidth=H100_BW, peak_flops=H100_BF16)
    r = llm.serve(l8, h, batch=10, memory_utilization=1.0, link_bandwidth=1e11)
    assert r.max_batch == 10 and r.fits is True          # filling the memory exactly still fits
    assert llm.serve(l8, h, batch=11, memory_utilization=1.0, link_bandwidth=1e11).fits is False


def test_serve_memory_utilization_and_kv_bytes(l8):
    r = llm.serve(l8, "h100-sxm", memory_utilization=0.5, kv_bytes=1)
    assert r.memory.usable == pytest.approx(0.5 * H100_MEM, rel=REL)
    assert r.memory.reserve == pytest.approx(0.5 * H100_MEM, rel=REL)
    assert r.memory.kv_cache == 4096 * L8_KV_TOKEN / 2                 # FP8 KV halves it
    # floor((42,949,672,960 - 16,060,522,496) / 268,435,456) = floor(100.17) = 100
    assert r.max_batch == 100


def test_serve_passes_precision_and_keeps_model(l8):
    r = llm.serve(l8, "h100-sxm", precision="tf32")
    assert r.hardware.peak_flops == 494.5e12 and r.model is l8


# --- tensor parallelism and the all-reduce latency ---------------------------------------------------------------
def test_serve_tensor_parallel_allreduce(l8):
    lat, link = 1e-5, 1e11
    r = llm.serve(l8, "h100-sxm", tp=2, link_bandwidth=link, allreduce_latency_s=lat)
    assert r.memory.weights == L8_W / 2 and r.memory.kv_cache == 4096 * L8_KV_TOKEN / 2
    # per layer 2 all-reduces of one token (8,192 B) over 2 devices: lat + 2 (1/2) 8192 / link each
    ar = 32 * 2 * (lat + 8192 / link)
    assert r.decode.allreduce_s == pytest.approx(ar, rel=REL) and r.decode.comm_s == pytest.approx(ar, rel=REL)
    step = (l8_read(1) / 2 + 4096 * L8_KV_TOKEN / 2) / H100_BW + ar
    assert r.decode.step_s == pytest.approx(step, rel=REL)
    # prefill all-reduces carry the whole prompt: 4096 tokens x 8192 B each
    assert r.prefill.comm_s == pytest.approx(32 * 2 * (lat + 4096 * 8192 / link), rel=REL)
    assert r.prefill_s == pytest.approx(4096 * L8_PREFILL_FLOPS_TOKEN / 2 / (0.4 * H100_BF16)
                                        + 32 * 2 * (lat + 4096 * 8192 / link), rel=REL)
    # default link: the catalog's NVLink 450 GB/s one way; default latency: vLLM's one-shot custom all-reduce on
    # H100 at TP 4, 9.2 us (sglang PR #2904: 0.0092 ms at 32 KB, collective_latency.json)
    d = llm.serve(l8, "h100-sxm", tp=4)
    assert d.decode.allreduce_s == pytest.approx(32 * 2 * (9.2e-6 + 2 * 3 / 4 * 8192 / H100_LINK), rel=1e-9)
    assert d.allreduce_latency_s == 9.2e-6 and d.latency_key == "nvlink-h100-custom-tp4"
    # a card without NVLink (RTX 4090: PCIe, no P2P) takes NCCL's 42.14 us (nccl-tests, 8 RTX 4090, NVIDIA/nccl #1530)
    g = llm.serve(l8, "rtx-4090", tp=2, weight_bytes=0.5)
    assert g.latency_key == "pcie-8x4090-nccl" and g.allreduce_latency_s == 42.14e-6
    # a latency given by the caller is used as given, with no catalog key
    assert r.allreduce_latency_s == lat and r.latency_key is None
    # an H100 pair talking over PCIe (interconnect="pcie") pays NCCL's PCIe cost, not NVLink's
    p = llm.serve(l8, "h100-sxm", tp=2, interconnect="pcie")
    assert p.latency_key == "pcie-8x4090-nccl" and p.allreduce_latency_s == 42.14e-6
    with pytest.raises(ValueError, match=r"^interconnect must be one of nvlink, pcie"):
        llm.serve(l8, "h100-sxm", tp=2, interconnect="NVLink", allreduce_latency_s=1e-5)


def test_tp_adds_two_allreduces_per_layer():
    m = models.get("llama-3-70b")
    r = serve(m, "h100-sxm", tp=4, weight_bytes=1)
    # each all-reduce: 9.2 us (vLLM's custom all-reduce at TP 4 on H100) + 2 x 3/4 x (8192 x 2 B) / 450e9;
    # 80 layers x 2. The eager-NCCL figure 19.19 us stays the documented upper end.
    assert ALLREDUCE_LATENCY_S == 19.19e-6
    one = 9.2e-6 + 1.5 * 8192 * 2 / 450e9
    assert r.decode.comm_s == pytest.approx(160 * one)
    # Llama 3 70B, FP8 blocks: 68,452,360,192 B + head 1,050,673,152 x 2 B + one row 8,192 x 2 B
    # = 70,553,722,880 B; KV 4,096 x 327,680 = 1,342,177,280 B; a quarter on each GPU
    assert r.decode.step_s == pytest.approx((70_553_722_880 + 1_342_177_280) / 4 / BW + 160 * one)


def test_serve_prefill_weight_read_bound_sharded(l8, mixtral):
    lat, link = 1e-5, 1e11
    h = hardware.resolve(None, memory=1e12, bandwidth=H100_BW, peak_flops=1e30)
    r = llm.serve(l8, h, tp=2, link_bandwidth=link, allreduce_latency_s=lat)
    assert r.prefill_s == pytest.approx(l8_read(4096) / 2 / H100_BW + 32 * 2 * (lat + 4096 * 8192 / link), rel=REL)
    # MoE: 4,096 prompt tokens touch all 8 experts (8 (1 - 0.75^4096) = 8.0 in floating point), so the
    # prefill reads every weight once, 2 x (1,605,636,096 + 45,097,156,608) = 93,405,585,408 B, except the
    # 32,000 x 4,096 input embedding (262,144,000 B), of which it reads 4,096 rows (33,554,432 B): 93,176,995,840 B
    m = llm.serve(mixtral, h)
    assert m.prefill_s == pytest.approx(93_176_995_840 / H100_BW, rel=1e-9)


def test_allreduce_latency_is_a_sourced_catalog_figure():
    f = serving.allreduce_latency_figure()
    # ByteDance-Seed/Triton-distributed issue #57: NCCL column, 128 B row, 19.19 us on 8x H100 in one node
    assert f["value"] == 19.19e-6 and f["unit"] == "s" and f["checked"] == "2026-12-02" and f["evidence"] == "문서 확인"
    assert f["source_url"] == "https://github.com/ByteDance-Seed/Triton-distributed/issues/57"
    assert f["source_title"].startswith("ByteDance-Seed/Triton-distributed issue #57")
    assert "third-party" in f["conditions"] and "8 H100" in f["conditions"]
    assert ALLREDUCE_LATENCY_S == 19.19e-6 and serving.LATENCIES.file == "collective_latency.json"
    with pytest.raises(KeyError, match=r"^\Wunknown all-reduce latency key 'pcie-2x4090'; known keys: nvlink-8xh100, "):
        serving.allreduce_latency_figure("pcie-2x4090")


def test_allreduce_latency_per_interconnect_and_tp():
    # sglang PR #2904 (H100, vLLM custom all-reduce, 32 KB, no CUDA graph): 0.0087 / 0.0092 / 0.0118 ms for TP 2/4/8
    assert [serving.allreduce_latency_s("nvlink", t) for t in (2, 4, 8)] == [8.7e-6, 9.2e-6, 11.8e-6]
    # TP 1 and 3 take the next larger measured degree, TP 16 the TP-8 figure
    assert serving.allreduce_latency_s("nvlink", 1) == 8.7e-6 and serving.allreduce_latency_s("nvlink", 3) == 9.2e-6
    assert serving.allreduce_latency_s("nvlink", 16) == 11.8e-6
    # PCIe without P2P: NCCL, 42.14 us for 8 B on 8 RTX 4090 (NVIDIA/nccl issue #1530)
    assert serving.allreduce_latency_s("pcie", 2) == 42.14e-6
    for key in ("nvlink-h100-custom-tp2", "nvlink-h100-custom-tp4", "nvlink-h100-custom-tp8", "pcie-8x4090-nccl"):
        f = serving.allreduce_latency_figure(key)
        assert f["evidence"] == "문서 확인" and "third-party" in f["conditions"] and f["checked"] == "2026-12-02"
    assert serving.allreduce_latency_figure("pcie-8x4090-nccl")["source_url"] == "https://github.com/NVIDIA/nccl/issues/1530"
    with pytest.raises(ValueError, match=r"^interconnect must be one of nvlink, pcie, got 'infiniband'"):
        serving.allreduce_latency_s("infiniband", 2)
    with pytest.raises(ValueError, match=r"^tp must"):
        serving.allreduce_latency_s("nvlink", 0)


# --- pipeline micro-batches --------------------------------------------------------------------------------------
def test_serve_pipeline_microbatches(l8):
    lat, link = 1e-5, 1e11
    r = llm.serve(l8, "h100-sxm", pp=2, batch=4, link_bandwidth=link, allreduce_latency_s=lat)
    assert r.microbatches == 2 and r.decode.microbatch == 2            # default min(pp, batch)
    kv_seq = 4096 * L8_KV_TOKEN / 2                              # 268,435,456 B per sequence per stage
    stage = (l8_read(2) / 2 + 2 * kv_seq) / H100_BW
    hop = lat + 2 * ACT / link
    assert r.decode.stage_s == pytest.approx(stage, rel=REL)
    assert r.decode.hop_s == pytest.approx(hop, rel=REL)
    assert r.decode.step_s == pytest.approx(2 * stage + hop, rel=REL)   # max(2 stage, 2 stage + hop)
    assert r.decode_tokens_per_s_total == pytest.approx(4 / (2 * stage + hop), rel=REL)
    assert r.memory.kv_cache == 4 * kv_seq and r.memory.weights == L8_W / 2
    assert r.notes == ("PP: 2 micro-batch(es) of up to 2 sequence(s) in flight; a token crosses the 2 stages in turn",)
    assert r.prefill_s == pytest.approx(2 * max(4096 * L8_PREFILL_FLOPS_TOKEN / 2 / (0.4 * H100_BF16),
                                                l8_read(4096) / 2 / H100_BW) + (lat + 4096 * ACT / link), rel=REL)
    one = llm.serve(l8, "h100-sxm", pp=2, batch=4, microbatches=1, link_bandwidth=link, allreduce_latency_s=lat)
    stage1 = (l8_read(4) / 2 + 4 * kv_seq) / H100_BW
    hop1 = lat + 4 * ACT / link
    assert one.decode.microbatch == 4 and one.decode.step_s == pytest.approx(2 * stage1 + hop1, rel=REL)
    # pp=1 with 2 micro-batches: the device reads the weights twice per step
    flat = llm.serve(l8, "h100-sxm", batch=4, microbatches=2)
    assert flat.decode.step_s == pytest.approx(2 * (l8_read(2) + 2 * 4096 * L8_KV_TOKEN) / H100_BW, rel=REL)
    assert flat.decode.hop_s == 0
    small = llm.serve(l8, "h100-sxm", pp=4, batch=2)
    assert small.microbatches == 2                              # min(pp=4, batch=2)
    with pytest.raises(ValueError, match="microbatches"):
        llm.serve(l8, "h100-sxm", pp=2, batch=4, microbatches=0)


def test_pp_does_not_speed_up_one_request_and_dp_multiplies_total_only():
    m = models.get("llama-3-8b")
    a = serve(m, "h100-sxm")
    b = serve(m, "h100-sxm", pp=2)
    assert b.decode_tokens_per_s_per_request < a.decode_tokens_per_s_per_request  # same reads + a hop
    c = serve(m, "h100-sxm", dp=16)
    assert c.decode_tokens_per_s_per_request == pytest.approx(a.decode_tokens_per_s_per_request)
    assert c.decode_tokens_per_s_total == pytest.approx(16 * a.decode_tokens_per_s_total)


# H100 SXM: 3.35e12 B/s, BF16 dense 989.4e12 FLOP/s, 80 GiB; NVLink 450e9 B/s one way; latency passed explicitly.
LINK = dict(allreduce_latency_s=19.19e-6, link_bandwidth=450e9, memory_utilization=0.9)


def test_405b_tp8_pp2_two_microbatches_by_hand():
    m = models.get("llama-3.1-405b")
    r = serve(m, "h100-sxm", tp=8, pp=2, batch=16, **LINK)
    # default: pp = 2 micro-batches of 16 / 2 = 8 sequences
    assert (r.microbatches, r.decode.microbatch, r.n_devices) == (2, 8, 16)
    # weights per GPU 405,853,388,800 x 2 B / 16 = 50,731,673,600; KV of one sequence per GPU
    # 4096 x (2 x 126 layers x 8 kv heads x 128 x 2 B = 516,096) / 16 = 132,120,576
    assert r.memory.weights == 50_731_673_600 and r.memory.kv_cache == 16 * 132_120_576
    # one stage, one micro-batch reads its weights without its share of the input embedding (128,256 x 16,384
    # x 2 B / 16 = 262,668,288) but with 8 rows (8 x 32,768 / 16 = 16,384): 50,469,021,696 B, and 8 KV caches:
    # (50,469,021,696 + 8 x 132,120,576) B / 3.35e12 = 15.381 ms of reads
    # (compute 8 x 845.5e9 FLOP / 16 / 989.4e12 = 0.43 ms is below it), plus 63 layers x 2 all-reduces of
    # 8 x 16384 x 2 B = 262,144 B: 19.19 us + 2 x 7/8 x 262,144 / 450e9 = 20.209 us each -> 2.546 ms
    reads = (50_469_021_696 + 8 * 132_120_576) / 3.35e12
    allreduces = 126 * (19.19e-6 + 1.75 * 262_144 / 450e9)
    assert r.decode.stage_s == pytest.approx(reads + allreduces, rel=1e-12)
    assert r.decode.stage_s == pytest.approx(17.927e-3, abs=1e-6)
    # a token crosses both stages and one hop (19.19 us + 262,144 B / 450e9): 35.87 ms, 27.9 tok/s per request;
    # the two micro-batches keep both stages busy: 16 sequences per 35.87 ms = 446 tok/s for the replica
    hop = 19.19e-6 + 262_144 / 450e9
    assert r.decode.hop_s == pytest.approx(hop)
    assert r.decode.step_s == pytest.approx(2 * r.decode.stage_s + hop, rel=1e-12)
    assert r.decode_tokens_per_s_per_request == pytest.approx(27.88, abs=0.01)
    assert r.decode_tokens_per_s_total == pytest.approx(16 / (2 * r.decode.stage_s + hop))
    # one batch of 16 in flight instead: each stage reads its weights once for all 16, but the stages take
    # turns: 2 x ((50,469,038,080 + 16 x 132,120,576) / 3.35e12 + 126 x (19.19 us + 1.75 x 524,288 / 450e9))
    # (16 embedding rows: 50,731,673,600 - 262,668,288 + 16 x 2,048)
    one = serve(m, "h100-sxm", tp=8, pp=2, batch=16, microbatches=1, **LINK)
    stage1 = (50_469_038_080 + 16 * 132_120_576) / 3.35e12 + 126 * (19.19e-6 + 1.75 * 524_288 / 450e9)
    assert one.decode.step_s == pytest.approx(2 * stage1 + 19.19e-6 + 524_288 / 450e9, rel=1e-12)
    # weight reads dominate, so the micro-batches gain only 2.5 % here, far from the 2x ceiling
    assert r.decode_tokens_per_s_total / one.decode_tokens_per_s_total == pytest.approx(1.0250, abs=1e-3)


def test_microbatches_approach_pp_times_when_the_kv_cache_dominates():
    m = models.get("llama-3-8b")
    two = serve(m, "h100-sxm", pp=2, batch=32, context=32768, **LINK)
    one = serve(m, "h100-sxm", pp=2, batch=32, context=32768, microbatches=1, **LINK)
    # per GPU: weights 16,060,522,496 / 2; KV of one sequence 32768 x 131,072 / 2 = 2,147,483,648
    # a stage reads 8.03e9 + 16 x 2.147e9 = 42.39e9 B (two micro-batches) instead of 8.03e9 + 32 x 2.147e9 = 76.75e9
    # (TP 1: no all-reduces); each token period is 2 stages + one hop of n x 8192 B after 19.19 us
    # (weights read: 15,009,849,344 + 8,192 per token in the micro-batch, halved per stage)
    kv = 2_147_483_648
    ratio = (2 * (l8_read(32) / 2 + 32 * kv) / 3.35e12 + 19.19e-6 + 32 * 8192 / 450e9) / (
        2 * (l8_read(16) / 2 + 16 * kv) / 3.35e12 + 19.19e-6 + 16 * 8192 / 450e9)
    assert two.decode_tokens_per_s_total / one.decode_tokens_per_s_total == pytest.approx(ratio, rel=1e-9)
    assert 1.7 < ratio < 2   # close to pp = 2 times
    # more micro-batches than stages: the stage is the bottleneck, the period is microbatches x stage
    four = serve(m, "h100-sxm", pp=2, batch=32, context=32768, microbatches=4, **LINK)
    assert four.decode.step_s == pytest.approx(4 * four.decode.stage_s)


def test_microbatches_are_checked():
    m = models.get("llama-3-8b")
    assert serve(m, "h100-sxm", pp=4, batch=8).microbatches == 4   # default pp, capped by the batch (2 below)
    with pytest.raises(ValueError, match=r"microbatches=5 exceeds batch=4.*microbatches <= batch"):
        serve(m, "h100-sxm", pp=2, batch=4, microbatches=5)


# --- experts: MoE reads and expert parallelism --------------------------------------------------------------------
def test_serve_moe_expert_parallel(mixtral):
    # Mixtral 8x7B by hand: expert 3*4096*14336 = 176,160,768; 8 experts x 32 layers = 45,097,156,608;
    # shared: embeddings 2*32000*4096 = 262,144,000 + 32 x (attention 41,943,040 + router 32,768 + norms 8,192)
    # + final norm 4,096 = 1,605,636,096
    shared, experts = 1_605_636_096, 45_097_156_608
    lat, lat_a2a, link = 1e-5, 3e-5, 1e11
    r = llm.serve(mixtral, "h100-sxm", ep=2, batch=4, link_bandwidth=link, allreduce_latency_s=lat,
                  alltoall_latency_s=lat_a2a)
    assert r.ep == 2 and r.n_devices == 2
    assert r.memory.weights == 2 * shared + 2 * experts / 2      # 48,308,428,800 B
    kv_seq = 4096 * 131072                                           # same KV shape as Llama 3 8B
    assert r.memory.kv_cache == 2 * kv_seq                             # ceil(4 / 2) sequences per group
    # (77,309,411,328 - 48,308,428,800) / 536,870,912 = 54.02 sequences per group, 2 groups
    assert r.max_batch == 2 * math.floor((0.9 * H100_MEM - 48_308_428_800) / kv_seq)
    assert r.max_batch == 108
    # each group sends 2 tokens x k=2 copies x 1/2 leaving x 8192 B = 16,384 B per all-to-all, 2 per layer
    assert r.decode.alltoall_s == pytest.approx(32 * 2 * (lat_a2a + 16384 / link), rel=REL)
    assert r.decode.allreduce_s == 0
    # 4 tokens touch 8 (1 - (1 - 2/8)^4) = 5.46875 experts per layer
    assert r.notes == ("MoE: a step over 4 token(s) touches 5.47 of 8 experts per layer (uniform routing)",)
    # shared read: 2 x 1,605,636,096 less the 32,000 x 4,096 input embedding (262,144,000 B) plus the group's
    # 2 rows (16,384 B) = 2,949,144,576 B
    read = 2_949_144_576 + 5.46875 * 176_160_768 * 32 * 2 / 2 + 2 * kv_seq
    assert r.decode.stage_s == pytest.approx(read / H100_BW + 32 * 2 * (lat_a2a + 16384 / link), rel=1e-9)
    # all-to-all latency defaults to the all-reduce latency
    d = llm.serve(mixtral, "h100-sxm", ep=2, batch=4, link_bandwidth=link, allreduce_latency_s=lat)
    assert d.decode.alltoall_s == pytest.approx(32 * 2 * (lat + 16384 / link), rel=REL)
    # prefill all-to-all: 4096 tokens x 2 x 1/2 x 8192 B
    assert d.prefill.comm_s == pytest.approx(32 * 2 * (lat + 4096 * 2 * 0.5 * 8192 / link), rel=REL)


def test_mixtral_on_two_h100_with_ep2_by_hand():
    m = models.get("mixtral-8x7b")
    r = serve(m, "h100-sxm", ep=2, **LINK)
    assert (r.tp, r.pp, r.ep, r.n_devices) == (1, 1, 2, 2)
    # experts: 8 x 32 layers x 3 x 4096 x 14336 = 45,097,156,608 params; the rest 46,702,792,704 - that =
    # 1,605,636,096 (attention, norms, router, embeddings) is copied on both GPUs, the experts split in two:
    # 1,605,636,096 x 2 + 45,097,156,608 x 2 / 2 = 48,308,428,800 B per GPU (vs 46.7e9 with TP 2)
    assert r.memory.weights == 48_308_428_800
    # the request lives on one GPU: its KV 4096 x 131,072 = 536,870,912 B there
    assert r.memory.kv_cache == 536_870_912
    # batch 1 reads the shared 3,211,272,192 B less the input embedding (262,144,000 B) plus one row (8,192 B),
    # its 2 routed experts x 32 layers x 176,160,768 x 2 B / 2 GPUs = 11,274,289,152 B, and its KV:
    # 14,760,296,448 B / 3.35e12 = 4.406 ms; each of 32 layers dispatches and
    # combines 2 copies x 1/2 off-GPU x 8192 B = 8192 B: 64 x (19.19 us + 8192 / 450e9) = 1.229 ms
    a2a = 64 * (19.19e-6 + 8192 / 450e9)
    assert r.decode.alltoall_s == pytest.approx(a2a) and r.decode.allreduce_s == 0
    assert r.decode.step_s == pytest.approx(14_760_296_448 / 3.35e12 + a2a, rel=1e-12)
    assert r.decode_tokens_per_s_per_request == pytest.approx(177.5, abs=0.1)
    # capacity: 2 groups x floor((0.9 x 85,899,345,920 - 48,308,428,800) / 536,870,912) = 2 x 54
    assert r.max_batch == 108
    # batch 8: 4 sequences on each GPU (KV 4 x 536,870,912). On a made-up device with a 10 TFLOP/s peak and
    # 10 TB/s the step is compute-bound: each GPU does its 4 tokens' non-expert FLOP,
    # 4 x (2 x 12,879,925,248 + 4 x 32 x 4096 x 4096 - 22,548,578,304) = 21,435,023,360, and half of the
    # routed-expert FLOP of all 8 tokens, 8 x 22,548,578,304 / 2 = 90,194,313,216: 11.163 ms, plus 64 all-to-alls
    # of 4 x 2 x 1/2 x 8192 = 32,768 B
    slow = Device("slow", 10e12, 10e12, 80 * 2**30)
    r8 = serve(m, slow, ep=2, batch=8, **LINK)
    assert r8.memory.kv_cache == 4 * 536_870_912 and r8.decode.bound == "compute"
    assert r8.decode.stage_s == pytest.approx((21_435_023_360 + 90_194_313_216) / 10e12 + 64 * (19.19e-6 + 32_768 / 450e9),
                                       rel=1e-12)
    # prefill of 4096 tokens on one GPU: attention etc. there, the routed experts' FLOPs shared by both:
    # 4096 x (2 x 12,879,925,248 + 2 x 32 x 4096 x 4096 - 22,548,578,304 / 2) / (989.4e12 x 0.4)
    flops = 4096 * (2 * 12_879_925_248 + 2 * 32 * 4096 * 4096 - 2 * 2 * 176_160_768 * 32 / 2)
    pre_a2a = 64 * (19.19e-6 + 4096 * 8192 / 450e9)
    assert r.prefill_s == pytest.approx(flops / (989.4e12 * 0.4) + pre_a2a, rel=1e-12)


def test_serve_moe_with_tensor_parallel(mixtral):
    lat, link = 1e-5, 1e11
    r = llm.serve(mixtral, "h100-sxm", ep=4, tp=2, batch=8, link_bandwidth=link, allreduce_latency_s=lat)
    # 2 tokens per group (8 / 4); all-to-all sends 2 x k=2 x 3/4 leaving x 8192 B / tp 2 = 12,288 B per device
    a2a = 32 * 2 * (lat + 12288 / link)
    # all-reduce of the group's 2 tokens (16,384 B) over tp=2: lat + 2 (1/2) 16384 / link
    ar = 32 * 2 * (lat + 16384 / link)
    assert r.decode.alltoall_s == pytest.approx(a2a, rel=REL)
    assert r.decode.allreduce_s == pytest.approx(ar, rel=REL)
    assert r.decode.comm_s == pytest.approx(a2a + ar, rel=REL)
    assert r.n_devices == 8


def test_moe_batch_reads_more_experts():
    m = models.get("mixtral-8x7b")
    one = serve(m, "h100-sxm", tp=2, batch=1)
    big = serve(m, "h100-sxm", tp=2, batch=64)
    assert one.decode.step_s < big.decode.step_s
    # batch 64 touches ~all 8 experts: the weight read approaches the full 46.7B x 2 B = 93,405,585,408 B, less
    # the input embedding (262,144,000 B) plus 64 rows of 8,192 B: 93,143,965,696 B
    assert m.weights_read_per_step(64, 2) == pytest.approx(93_143_965_696, rel=1e-6)


def test_ep_is_checked_and_layouts_take_it():
    with pytest.raises(ValueError, match=r"ep=2 needs a mixture-of-experts model.*use ep=1"):
        serve(models.get("llama-3-8b"), "h100-sxm", ep=2)
    with pytest.raises(ValueError, match=r"ep=3 must divide the 8 experts.*valid ep values: \[1, 2, 4, 8\]"):
        serve(models.get("mixtral-8x7b"), "h100-sxm", ep=3)
    m = models.get("mixtral-8x7b")
    assert serve(m, "h100-sxm", tp=2, ep=1).decode.step_s == serve(m, "h100-sxm", tp=2).decode.step_s
    out = llm.layouts(m, "h100-sxm", 4, ep=2)
    assert out and all(r.ep == 2 and r.n_devices == 4 for r in out)
    with pytest.raises(ValueError, match="ep=8 must divide n_devices=4"):
        llm.layouts(m, "h100-sxm", 4, ep=8)


# --- input checks --------------------------------------------------------------------------------------------------
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
    assert llm.serve(l8, "h100-sxm", batch=4, microbatches=4).decode.microbatch == 1   # microbatches == batch is allowed
    with pytest.raises(ValueError, match=r"tp=2 must divide the attention heads \(6\) and the KV heads \(3\)"):
        # 6 query heads split over 2 but 3 KV heads do not: either count failing is an error
        llm.serve(_with_heads(l8, 6, 3), "h100-sxm", tp=2)
    with pytest.raises(ValueError, match="use ep=1 and split the model with tp or pp$"):
        llm.serve(l8, "h100-sxm", ep=2)


def test_tp_must_divide_heads():
    with pytest.raises(ValueError, match=r"tp=3.*valid tp values: \[1, 2, 4, 8\]"):
        serve(models.get("llama-3-70b"), "h100-sxm", tp=3)
    with pytest.raises(ValueError, match="pp"):
        serve(models.get("llama-3.2-1b"), "h100-sxm", pp=17)


# --- layouts -------------------------------------------------------------------------------------------------------
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
    assert one and all(r.memory.usable == pytest.approx(0.5 * H100_MEM, rel=REL) for r in one)
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


def test_layouts_of_16_for_405b():
    out = llm.layouts(models.get("llama-3.1-405b"), "h100-sxm", 16)
    assert [(r.tp, r.pp) for r in out][0] == (8, 2)
    assert all(r.fits and r.n_devices == 16 for r in out)


def test_unknown_precision_is_refused_and_a_missing_one_is_noted():
    import pytest
    from xpucalc import llm
    m = llm.models.get("llama-3-8b")
    # FP4 is a catalog precision now (Blackwell); an unknown one is a made-up name
    with pytest.raises(ValueError, match=r"^precision 'fp3' is not a precision of the catalog"):
        llm.serve(m, "h100-sxm", precision="fp3")
    r = llm.serve(m, "a100-80gb", precision="fp8")
    assert any("no published dense 'fp8'" in n or "no published dense fp8" in n for n in r.notes)
    with pytest.raises(ValueError, match=r"^link_bandwidth=900 looks like GB/s"):
        llm.serve(m, "h100-sxm", tp=2, link_bandwidth=900)
