"""xpucalc.llm.rates: decode and prefill bounds, their intensities, TTFT, latency and goodput, through ``llm.<name>``.

Expected values are worked by hand in the comments (H100 SXM figures typed from its datasheet, and small fresh
numbers); every error is matched from its first word, which is the argument's name.
"""
import re

import pytest

from xpucalc import llm


def err(pattern):
    return pytest.raises(ValueError, match="^" + pattern)


def test_decode_bound_llama3_70b_h100():
    # 70e9 params x 2 B = 140 GB; 3.35e12 / 140e9 = 23.93 tokens/s
    assert llm.weights_bytes(70e9, 2) == 140e9
    assert llm.decode_tokens_per_s_bound(140e9, 3.35e12) == pytest.approx(23.928, rel=1e-4)


def test_compute_bound_vs_memory_bound_ratio():
    # 989e12 / 1.4e11 = 7,064 tokens/s; ~295x the memory bound
    c = llm.compute_tokens_per_s_bound(70e9, 989e12)
    assert c == pytest.approx(7064.3, rel=1e-4)
    assert c / llm.decode_tokens_per_s_bound(140e9, 3.35e12) == pytest.approx(295.2, rel=1e-3)


def test_decode_bounds_by_hand():
    assert llm.decode_tokens_per_s_bound(14e9, 2e12) == pytest.approx(2e12 / 14e9)   # 142.86 tokens/s
    assert llm.compute_tokens_per_s_bound(7e9, 1.4e14) == pytest.approx(1e4)        # 1.4e14 / 1.4e10
    with err("model_bytes must"):
        llm.decode_tokens_per_s_bound(0.0, 1e12)
    with err("bandwidth must"):
        llm.decode_tokens_per_s_bound(1e9, 0.0)
    with err("peak_flops must"):
        llm.compute_tokens_per_s_bound(1e9, 0.0)
    # N = 1e9 at 2 B, batch 4, KV 0.1 GB per sequence: compute 2e9 x 4 / 1e14 = 8e-5 s;
    # traffic (2e9 + 4 x 1e8) / 1e12 = 2.4e-3 s -> memory-bound, 2.4 ms; 4 / 2.4 ms = 1,666.7 tokens/s
    assert llm.decode_step_time_s(1e9, 4, 2, 1e14, 1e12, 1e8) == pytest.approx(2.4e-3)
    assert llm.decode_throughput(1e9, 4, 2, 1e14, 1e12, 1e8) == pytest.approx(4 / 2.4e-3)
    # batch 1,000 without KV: compute 2e12 / 1e14 = 0.02 s > traffic 2e-3 s -> compute-bound
    assert llm.decode_step_time_s(1e9, 1000, 2, 1e14, 1e12) == pytest.approx(0.02)
    assert llm.decode_throughput(1e9, 1000, 2, 1e14, 1e12) == pytest.approx(1000 / 0.02)
    # no KV cache by default: batch 1 reads exactly the 2 GB of weights, 2 ms, 500 tokens/s
    assert llm.decode_step_time_s(1e9, 1, 2, 1e14, 1e12) == 0.002
    assert llm.decode_throughput(1e9, 1, 2, 1e14, 1e12) == 500.0
    for args, name in (((1e9, 0, 2, 1e14, 1e12), "batch"), ((1e9, 1, 2, 0.0, 1e12), "peak_flops"),
                       ((1e9, 1, 2, 1e14, 0.0), "bandwidth"), ((1e9, 1, 2, 1e14, 1e12, -1.0), "kv_bytes_per_seq")):
        with err(name + " must"):
            llm.decode_step_time_s(*args)
    with err("batch must"):
        llm.decode_throughput(1e9, 0, 2, 1e14, 1e12)
    # critical batch: peak x bytes / (2 x bandwidth) = 1e14 x 2 / 2e12 = 100
    assert llm.decode_critical_batch(1e9, 2, 1e14, 1e12) == pytest.approx(100.0)
    for args, name in (((0.0, 2, 1e14, 1e12), "n_params"), ((1e9, 0.0, 1e14, 1e12), "bytes_per_param"),
                       ((1e9, 2, 0.0, 1e12), "peak_flops"), ((1e9, 2, 1e14, 0.0), "bandwidth")):
        with err(name + " must"):
            llm.decode_critical_batch(*args)


def test_decode_batching_turns_compute_bound():
    # H100 SXM dense BF16 989.4e12, 3.35e12 B/s, 2 B/param: critical batch = 989.4 x 2 / (2 x 3.35) = 295.3
    b = llm.decode_critical_batch(70e9, 2, 989.4e12, 3.35e12)
    assert b == pytest.approx(295.34, abs=0.01)
    t1 = llm.decode_throughput(70e9, 1, 2, 989.4e12, 3.35e12)
    assert t1 == pytest.approx(3.35e12 / 140e9)
    # below the critical batch throughput grows linearly; above it is capped at peak / 2N
    assert llm.decode_throughput(70e9, 64, 2, 989.4e12, 3.35e12) == pytest.approx(64 * t1)
    assert llm.decode_throughput(70e9, 1024, 2, 989.4e12, 3.35e12) == pytest.approx(989.4e12 / 140e9)


def test_decode_and_prefill_intensity():
    assert llm.decode_intensity(1, 2) == 1.0            # 2 FLOP per 2-byte weight
    assert llm.decode_intensity(64, 2) == 64.0
    assert llm.decode_intensity(1, 2, 0.1) == pytest.approx(2 / 2.1)
    assert llm.prefill_intensity(4096, 2) == 4096.0     # equals the prompt length in FP16
    assert llm.prefill_intensity(4096, 1) == 8192.0


def test_intensities_and_prefill_by_hand():
    assert llm.decode_intensity(8, 2, 0.5) == pytest.approx(16 / 6)          # 2 x 8 / (2 + 8 x 0.5)
    with err("kv_bytes_per_seq_per_param must"):
        llm.decode_intensity(1, 2, -0.1)
    with err("batch must"):
        llm.decode_intensity(0, 2)
    assert llm.prefill_intensity(512, 2) == pytest.approx(512.0)
    assert llm.prefill_intensity(512, 1) == pytest.approx(1024.0)
    with err("prompt_tokens must"):
        llm.prefill_intensity(0, 2)
    # 1,000-token prompt, mfu 0.5: compute 2e9 x 1000 / 5e13 = 0.04 s > weights 2e9 B / 1e12 = 2e-3 s
    assert llm.prefill_time_s(1e9, 1000, 2, 1e14, 1e12, mfu=0.5) == pytest.approx(0.04)
    # 10 tokens: compute 2e10 / 1e14 = 2e-4 s < 2e-3 s of weight reading
    assert llm.prefill_time_s(1e9, 10, 2, 1e14, 1e12) == pytest.approx(2e-3)
    for args, name in (((1e9, 10, 2, 1e14, 1e12, 0.0), "mfu"), ((1e9, 0, 2, 1e14, 1e12), "prompt_tokens"),
                       ((1e9, 10, 2, 0.0, 1e12), "peak_flops"), ((1e9, 10, 2, 1e14, 0.0), "bandwidth")):
        with err(name + " must"):
            llm.prefill_time_s(*args)
    with err("bytes_per_param must"):
        llm.prefill_intensity(512, 0)
    with err("bytes_per_param must"):
        llm.decode_intensity(1, 0)


def test_prefill_time_70b_h100():
    # compute 2 x 70e9 x 4096 / 989e12 = 0.579818 s > memory 140e9 / 3.35e12 = 0.04179 s
    assert llm.prefill_time_s(70e9, 4096, 2, 989e12, 3.35e12) == pytest.approx(0.579818, rel=1e-5)
    # a one-token "prefill" is memory-bound
    assert llm.prefill_time_s(70e9, 1, 2, 989e12, 3.35e12) == pytest.approx(140e9 / 3.35e12)
    assert llm.prefill_time_s(70e9, 4096, 2, 989e12, 3.35e12, mfu=0.5) == pytest.approx(1.159636, rel=1e-5)
    with pytest.raises(ValueError, match="mfu"):
        llm.prefill_time_s(70e9, 4096, 2, 989e12, 3.35e12, mfu=1.5)


def test_serving_metrics():
    assert llm.ttft_s(0.2, 0.58) == pytest.approx(0.78)
    assert llm.request_latency_s(0.5, 0.05, 100) == pytest.approx(5.45)  # 0.5 + 99 x 0.05
    g = llm.goodput([0.5, 1.5, 3.0], [100, 200, 300], 10.0, 2.0)
    assert g["throughput"] == pytest.approx(60.0)
    assert g["goodput"] == pytest.approx(30.0)
    assert g["slo_fraction"] == pytest.approx(2 / 3)


def test_serving_metrics_by_hand():
    assert llm.ttft_s(0.5, 0.25) == pytest.approx(0.75)
    assert llm.ttft_s(0.0, 0.25) == pytest.approx(0.25)
    with err("queue_s must be >= 0"):
        llm.ttft_s(-0.1, 0.25)
    with err("prefill_s must be > 0"):
        llm.ttft_s(0.5, 0.0)
    assert llm.request_latency_s(0.5, 0.02, 101) == pytest.approx(2.5)      # 0.5 + 100 x 0.02
    assert llm.request_latency_s(0.5, 0.02, 1) == pytest.approx(0.5)
    assert llm.request_latency_s(0.5, 0.0, 10) == pytest.approx(0.5)
    for args, name in (((0.0, 0.02, 2), "ttft"), ((0.5, -0.02, 2), "tpot"), ((0.5, 0.02, 0), "output_tokens")):
        with err(name + " must"):
            llm.request_latency_s(*args)
    # TTFTs 0.1, 0.5, 0.2 against an SLO of 0.2 s (inclusive): requests 1 and 3 meet it
    g = llm.goodput([0.1, 0.5, 0.2], [10, 20, 30], 2.0, 0.2)
    assert g == {"throughput": pytest.approx(30.0), "goodput": pytest.approx(20.0), "slo_fraction": pytest.approx(2 / 3)}
    with err("ttfts_s and output_tokens must be non-empty and of equal length"):
        llm.goodput([0.1], [10, 20], 1.0, 0.2)
    with err("ttfts_s and output_tokens must be non-empty and of equal length"):
        llm.goodput([], [], 1.0, 0.2)
    for args, name in ((([0.1], [10], 0.0, 0.2), "duration_s"), (([0.1], [10], 1.0, 0.0), "ttft_slo_s"),
                       (([0.1], [0], 1.0, 0.2), "output_tokens"), (([-0.1], [10], 1.0, 0.2), "ttfts_s")):
        with err(name + " must"):
            llm.goodput(*args)

BAD_INPUTS = [
    ("model_bytes", lambda: llm.decode_tokens_per_s_bound(0, 3.35e12)),
    ("bandwidth", lambda: llm.decode_tokens_per_s_bound(140e9, -1)),
]


@pytest.mark.parametrize("name, call", BAD_INPUTS, ids=[f"{i}-{n}" for i, (n, _) in enumerate(BAD_INPUTS)])
def test_bad_input_names_the_argument(name, call):
    # the argument's name as a whole word, so that a message naming another argument does not pass
    with pytest.raises(ValueError, match=rf"\b{re.escape(name)}\b"):
        call()


def test_decode_intensity_limit_llama3_70b_4k():
    # Llama 3 70B at 4,096 cached tokens: 2N + 4 x 80 x 8,192 x 4,096 = 151,844,831,232 FLOP per token;
    # KV 2 x 80 x 8 x 128 x 2 B = 327,680 B/token x 4,096 = 1,342,177,280 B per sequence -> 113.133 FLOP/B,
    # below H100 SXM's ridge 989.4e12 / 3.35e12 = 295.3, so decode never turns compute-bound there
    assert llm.decode_intensity_limit(151_844_831_232, 1_342_177_280) == pytest.approx(113.1332, rel=1e-6)
    # the limit is what decode_intensity approaches as the batch grows (weights 2 B per parameter, N = 1e9)
    n, kv = 1e9, 1e6
    assert llm.decode_intensity(10**9, 2.0, kv / n) == pytest.approx(llm.decode_intensity_limit(2 * n, kv), rel=1e-5)
    with err("kv_bytes_per_sequence"):
        llm.decode_intensity_limit(1e9, 0)
    with err("flops_per_token"):
        llm.decode_intensity_limit(-1, 1e6)


@pytest.mark.parametrize("call, slip", [
    (lambda: llm.rates.decode_tokens_per_s_bound(16e9, 3.35), "bandwidth=3.35 looks like GB/s"),
    (lambda: llm.rates.compute_tokens_per_s_bound(8e9, 989), "peak_flops=989 looks like TFLOP/s"),
    (lambda: llm.rates.decode_critical_batch(8e9, 2, 989e12, 3350), "bandwidth=3350 looks like GB/s"),
    (lambda: llm.rates.prefill_time_s(8e9, 2048, 2, 989, 3.35e12), "peak_flops=989 looks like TFLOP/s"),
])
def test_a_rate_given_in_the_wrong_unit_is_refused_with_the_conversion(call, slip):
    with pytest.raises(ValueError, match=re.escape(slip)):
        call()
