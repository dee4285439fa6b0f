"""xpucalc.llm.serve and training: layouts, capacity and MoE (expected values by hand)."""
import pytest

from xpucalc import Device, llm
from xpucalc.catalog import devices
from xpucalc.llm import parallelism as par
from xpucalc.llm import models, serve, serving, training
from xpucalc.llm.serving import ALLREDUCE_LATENCY_S, GPU_MEMORY_UTILIZATION

MEM = devices.figure("h100-sxm", "memory")["value"]
BW = devices.figure("h100-sxm", "bandwidth")["value"]


def test_8b_batch16_8k_on_one_h100():
    r = serve(models.get("llama-3-8b"), "h100-sxm", batch=16, context=8192)
    # KV 16 x 8192 x 131,072 B = 17,179,869,184; weights 16,060,522,496; step = (sum) / 3.35e12 = 9.92 ms
    assert r.kv_per_device == 17_179_869_184 and r.weights_per_device == 16_060_522_496
    assert r.decode_step_s == pytest.approx((16_060_522_496 + 17_179_869_184) / BW)
    assert r.decode_tokens_per_s_total == pytest.approx(16 / r.decode_step_s)
    # usable = 0.9 x capacity (the reserve is stated, not hidden); max batch = floor((usable - W) / KV_seq)
    assert r.usable_memory == pytest.approx(GPU_MEMORY_UTILIZATION * MEM)
    assert r.max_batch == int((0.9 * MEM - 16_060_522_496) // (8192 * 131_072))
    assert r.fits and r.memory_per_device["capacity"] == MEM


def test_7b_mha_32k_prefill_on_a100_has_the_attention_term():
    r = serve(models.get("llama-2-7b"), "a100-80gb", context=32768)
    # 32768 x (2 x 6,738,415,616 + 2 x 32 x 4096 x 32768) / (312e12 x 0.4) = 5.794 s (3.54 s without attention)
    assert r.prefill_s == pytest.approx(32768 * (2 * 6_738_415_616 + 2 * 32 * 4096 * 32768) / (312e12 * 0.4))
    assert r.prefill_s == pytest.approx(5.794, abs=0.001)


def test_tp_adds_two_allreduces_per_layer():
    m = models.get("llama-3-70b")
    r = serve(m, "h100-sxm", tp=4, weight_bytes=1)
    # each all-reduce: 19.19 us (the catalog's latency) + 2 x 3/4 x (8192 x 2 B) / 450e9; 80 layers x 2
    assert ALLREDUCE_LATENCY_S == 19.19e-6
    one = 19.19e-6 + 1.5 * 8192 * 2 / 450e9
    assert r.decode_comm_s == pytest.approx(160 * one)
    assert r.decode_step_s == pytest.approx((m.weights_bytes(1) + 4096 * m.kv_bytes_per_token()) / 4 / BW
                                            + 160 * one)


def test_pp_does_not_speed_up_one_request_and_dp_multiplies_total_only():
    m = models.get("llama-3-8b")
    a = serve(m, "h100-sxm")
    b = serve(m, "h100-sxm", pp=2)
    assert b.decode_tokens_per_s_per_request < a.decode_tokens_per_s_per_request  # same reads + a hop
    c = serve(m, "h100-sxm", dp=16)
    assert c.decode_tokens_per_s_per_request == pytest.approx(a.decode_tokens_per_s_per_request)
    assert c.decode_tokens_per_s_total == pytest.approx(16 * a.decode_tokens_per_s_total)


def test_tp_must_divide_heads():
    with pytest.raises(ValueError, match=r"tp=3.*valid tp values: \[1, 2, 4, 8\]"):
        serve(models.get("llama-3-70b"), "h100-sxm", tp=3)
    with pytest.raises(ValueError, match="pp"):
        serve(models.get("llama-3.2-1b"), "h100-sxm", pp=17)


def test_allreduce_latency_is_a_sourced_catalog_figure():
    f = serving.allreduce_latency_figure()
    # ByteDance-Seed/Triton-distributed issue #57: NCCL column, 128 B row, 19.19 us on 8x H100 in one node
    assert f["value"] == 19.19e-6 and f["unit"] == "s" and f["checked"] == "2026-12-01"
    assert f["source_url"] == "https://github.com/ByteDance-Seed/Triton-distributed/issues/57"
    assert "third-party" in f["conditions"] and "8 H100" in f["conditions"]
    with pytest.raises(KeyError, match="known: nvlink-8xh100"):
        serving.allreduce_latency_figure("pcie-2x4090")


def test_device_without_peak_gives_decode_only():
    r = serve(models.get("llama-3-8b"), "apple-m3-ultra")
    assert r.prefill_s is None and r.decode_bound == "memory" and r.hardware.peak_flops is None


def test_moe_batch_reads_more_experts():
    m = models.get("mixtral-8x7b")
    one = serve(m, "h100-sxm", tp=2, batch=1)
    big = serve(m, "h100-sxm", tp=2, batch=64)
    assert one.decode_step_s < big.decode_step_s
    # batch 64 touches ~all 8 experts: the weight read approaches the full 46.7B x 2 B
    assert m.weights_read_per_step(64, 2) == pytest.approx(m.weights_bytes(2), rel=1e-6)


def test_layouts_of_16_for_405b():
    out = llm.layouts(models.get("llama-3.1-405b"), "h100-sxm", 16)
    assert [(r.tp, r.pp) for r in out][0] == (8, 2)
    assert all(r.fits and r.n_devices == 16 for r in out)


def test_training_time_with_attention_and_implied_mfu():
    m = models.get("llama-3.1-405b")
    # 15.6e12 x (6 x 405,853,388,800 + 6 x 126 x 16384 x 8192) / (30.84e6 h x 3600 x 989.4e12)
    flops = 15.6e12 * (6 * 405_853_388_800 + 6 * 126 * 16384 * 8192)
    mfu = training.implied_mfu(m, 15.6e12, 8192, 30.84e6, 989.4e12)
    assert mfu == pytest.approx(flops / (30.84e6 * 3600 * 989.4e12))
    assert 0.35 < mfu < 0.38   # below the paper's 38-43 %: GPU-hours include restarts and idle time
    with pytest.raises(ValueError, match="> 1"):
        training.implied_mfu(m, 15.6e12, 8192, 1e6, 989.4e12)
    assert len(training.published_runs().rows) == len(training.runs())


def test_suggest_serving_vocabulary_and_tp_divides_heads():
    s = par.suggest(14e9, 80e9, 8, 2, True, False, goal="serving")
    assert "gradient" not in " ".join(s.reasons) and "DDP" not in s.strategy and s.dp == 16
    s = par.suggest(150e9, 80e9, 3, 1, True, False, heads=(64, 8))
    assert s.tp == 1 or 64 % s.tp == 0 and s.tp != 3
    s = par.suggest(150e9, 80e9, 3, 1, True, False)
    assert s.tp in (1, 2)  # 3 divides no common head count
    s = par.suggest(300e9, 80e9, 8, 2, True, False, n_gpus=12, goal="serving")
    assert s.tp * s.pp * s.dp <= 12  # 12 GPUs are never counted as 2 x 8
    assert "FSDP" not in par.suggest(140e9, 48e9, 4, 1, False, False, goal="serving").strategy


# --- pipeline micro-batches and expert parallelism (hand checks use typed figures, not the code's constants) ---
# H100 SXM: 3.35e12 B/s, BF16 dense 989.4e12 FLOP/s, 80 GiB; NVLink 450e9 B/s one way; latency passed explicitly.
LINK = dict(allreduce_latency_s=19.19e-6, link_bandwidth=450e9, memory_utilization=0.9)


def test_405b_tp8_pp2_two_microbatches_by_hand():
    m = models.get("llama-3.1-405b")
    r = serve(m, "h100-sxm", tp=8, pp=2, batch=16, **LINK)
    # default: pp = 2 micro-batches of 16 / 2 = 8 sequences
    assert (r.microbatches, r.microbatch, r.n_devices) == (2, 8, 16)
    # weights per GPU 405,853,388,800 x 2 B / 16 = 50,731,673,600; KV of one sequence per GPU
    # 4096 x (2 x 126 layers x 8 kv heads x 128 x 2 B = 516,096) / 16 = 132,120,576
    assert r.weights_per_device == 50_731_673_600 and r.kv_per_device == 16 * 132_120_576
    # one stage, one micro-batch: (50,731,673,600 + 8 x 132,120,576) B / 3.35e12 = 15.459 ms of reads
    # (compute 8 x 845.5e9 FLOP / 16 / 989.4e12 = 0.43 ms is below it), plus 63 layers x 2 all-reduces of
    # 8 x 16384 x 2 B = 262,144 B: 19.19 us + 2 x 7/8 x 262,144 / 450e9 = 20.209 us each -> 2.546 ms
    reads = (50_731_673_600 + 8 * 132_120_576) / 3.35e12
    allreduces = 126 * (19.19e-6 + 1.75 * 262_144 / 450e9)
    assert r.stage_s == pytest.approx(reads + allreduces, rel=1e-12)
    assert r.stage_s == pytest.approx(18.006e-3, abs=1e-6)
    # a token crosses both stages and one hop (19.19 us + 262,144 B / 450e9): 36.03 ms, 27.8 tok/s per request;
    # the two micro-batches keep both stages busy: 16 sequences per 36.03 ms = 444 tok/s for the replica
    hop = 19.19e-6 + 262_144 / 450e9
    assert r.decode_hop_s == pytest.approx(hop)
    assert r.decode_step_s == pytest.approx(2 * r.stage_s + hop, rel=1e-12)
    assert r.decode_tokens_per_s_per_request == pytest.approx(27.75, abs=0.01)
    assert r.decode_tokens_per_s_total == pytest.approx(16 / (2 * r.stage_s + hop))
    # one batch of 16 in flight instead: each stage reads its weights once for all 16, but the stages take
    # turns: 2 x ((50,731,673,600 + 16 x 132,120,576) / 3.35e12 + 126 x (19.19 us + 1.75 x 524,288 / 450e9))
    one = serve(m, "h100-sxm", tp=8, pp=2, batch=16, microbatches=1, **LINK)
    stage1 = (50_731_673_600 + 16 * 132_120_576) / 3.35e12 + 126 * (19.19e-6 + 1.75 * 524_288 / 450e9)
    assert one.decode_step_s == pytest.approx(2 * stage1 + 19.19e-6 + 524_288 / 450e9, rel=1e-12)
    # weight reads dominate, so the micro-batches gain only 2.5 % here, far from the 2x ceiling
    assert r.decode_tokens_per_s_total / one.decode_tokens_per_s_total == pytest.approx(1.0247, abs=1e-3)


def test_microbatches_approach_pp_times_when_the_kv_cache_dominates():
    m = models.get("llama-3-8b")
    two = serve(m, "h100-sxm", pp=2, batch=32, context=32768, **LINK)
    one = serve(m, "h100-sxm", pp=2, batch=32, context=32768, microbatches=1, **LINK)
    # per GPU: weights 16,060,522,496 / 2; KV of one sequence 32768 x 131,072 / 2 = 2,147,483,648
    # a stage reads 8.03e9 + 16 x 2.147e9 = 42.39e9 B (two micro-batches) instead of 8.03e9 + 32 x 2.147e9 = 76.75e9
    # (TP 1: no all-reduces); each token period is 2 stages + one hop of n x 8192 B after 19.19 us
    w, kv = 16_060_522_496 / 2, 2_147_483_648
    ratio = (2 * (w + 32 * kv) / 3.35e12 + 19.19e-6 + 32 * 8192 / 450e9) / (
        2 * (w + 16 * kv) / 3.35e12 + 19.19e-6 + 16 * 8192 / 450e9)
    assert two.decode_tokens_per_s_total / one.decode_tokens_per_s_total == pytest.approx(ratio, rel=1e-9)
    assert 1.7 < ratio < 2   # close to pp = 2 times
    # more micro-batches than stages: the stage is the bottleneck, the period is microbatches x stage
    four = serve(m, "h100-sxm", pp=2, batch=32, context=32768, microbatches=4, **LINK)
    assert four.decode_step_s == pytest.approx(4 * four.stage_s)


def test_microbatches_are_checked():
    m = models.get("llama-3-8b")
    assert serve(m, "h100-sxm", pp=4, batch=2).microbatches == 2   # default pp, capped by the batch
    assert serve(m, "h100-sxm", pp=4, batch=8).microbatches == 4
    with pytest.raises(ValueError, match=r"microbatches=5 exceeds batch=4.*microbatches <= batch"):
        serve(m, "h100-sxm", pp=2, batch=4, microbatches=5)
    with pytest.raises(ValueError, match="microbatches"):
        serve(m, "h100-sxm", pp=2, batch=4, microbatches=0)


def test_mixtral_on_two_h100_with_ep2_by_hand():
    m = models.get("mixtral-8x7b")
    r = serve(m, "h100-sxm", ep=2, **LINK)
    assert (r.tp, r.pp, r.ep, r.n_devices) == (1, 1, 2, 2)
    # experts: 8 x 32 layers x 3 x 4096 x 14336 = 45,097,156,608 params; the rest 46,702,792,704 - that =
    # 1,605,636,096 (attention, norms, router, embeddings) is copied on both GPUs, the experts split in two:
    # 1,605,636,096 x 2 + 45,097,156,608 x 2 / 2 = 48,308,428,800 B per GPU (vs 46.7e9 with TP 2)
    assert r.weights_per_device == 48_308_428_800
    # the request lives on one GPU: its KV 4096 x 131,072 = 536,870,912 B there
    assert r.kv_per_device == 536_870_912
    # batch 1 reads the shared 3,211,272,192 B, its 2 routed experts x 32 layers x 176,160,768 x 2 B / 2 GPUs
    # = 11,274,289,152 B, and its KV: 15,022,432,256 B / 3.35e12 = 4.484 ms; each of 32 layers dispatches and
    # combines 2 copies x 1/2 off-GPU x 8192 B = 8192 B: 64 x (19.19 us + 8192 / 450e9) = 1.229 ms
    a2a = 64 * (19.19e-6 + 8192 / 450e9)
    assert r.decode_alltoall_s == pytest.approx(a2a) and r.decode_allreduce_s == 0
    assert r.decode_step_s == pytest.approx(15_022_432_256 / 3.35e12 + a2a, rel=1e-12)
    assert r.decode_tokens_per_s_per_request == pytest.approx(175.0, abs=0.1)   # TP 2 gives 194 at batch 1
    # capacity: 2 groups x floor((0.9 x 85,899,345,920 - 48,308,428,800) / 536,870,912) = 2 x 54
    assert r.max_batch == 108
    # batch 8: 4 sequences on each GPU (KV 4 x 536,870,912). On a made-up device with a 10 TFLOP/s peak and
    # 10 TB/s the step is compute-bound: each GPU does its 4 tokens' non-expert FLOP,
    # 4 x (2 x 12,879,925,248 + 4 x 32 x 4096 x 4096 - 22,548,578,304) = 21,435,023,360, and half of the
    # routed-expert FLOP of all 8 tokens, 8 x 22,548,578,304 / 2 = 90,194,313,216: 11.163 ms, plus 64 all-to-alls
    # of 4 x 2 x 1/2 x 8192 = 32,768 B
    slow = Device("slow", 10e12, 10e12, 80 * 2**30)
    r8 = serve(m, slow, ep=2, batch=8, **LINK)
    assert r8.kv_per_device == 4 * 536_870_912 and r8.decode_bound == "compute"
    assert r8.stage_s == pytest.approx((21_435_023_360 + 90_194_313_216) / 10e12 + 64 * (19.19e-6 + 32_768 / 450e9),
                                       rel=1e-12)
    # prefill of 4096 tokens on one GPU: attention etc. there, the routed experts' FLOPs shared by both:
    # 4096 x (2 x 12,879,925,248 + 2 x 32 x 4096 x 4096 - 22,548,578,304 / 2) / (989.4e12 x 0.4)
    flops = 4096 * (2 * 12_879_925_248 + 2 * 32 * 4096 * 4096 - 2 * 2 * 176_160_768 * 32 / 2)
    pre_a2a = 64 * (19.19e-6 + 4096 * 8192 / 450e9)
    assert r.prefill_s == pytest.approx(flops / (989.4e12 * 0.4) + pre_a2a, rel=1e-12)


def test_ep_is_checked_and_layouts_take_it():
    with pytest.raises(ValueError, match=r"ep=2 needs a mixture-of-experts model.*use ep=1"):
        serve(models.get("llama-3-8b"), "h100-sxm", ep=2)
    with pytest.raises(ValueError, match=r"ep=3 must divide the 8 experts.*valid ep values: \[1, 2, 4, 8\]"):
        serve(models.get("mixtral-8x7b"), "h100-sxm", ep=3)
    m = models.get("mixtral-8x7b")
    assert serve(m, "h100-sxm", tp=2, ep=1).decode_step_s == serve(m, "h100-sxm", tp=2).decode_step_s
    out = llm.layouts(m, "h100-sxm", 4, ep=2)
    assert out and all(r.ep == 2 and r.n_devices == 4 for r in out)
    with pytest.raises(ValueError, match="ep=8 must divide n_devices=4"):
        llm.layouts(m, "h100-sxm", 4, ep=8)
