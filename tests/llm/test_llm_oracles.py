"""Oracles for the scalar rules of xpucalc.llm (compute, footprint, rates, comm), through the package namespace
(``llm.kv_cache_bytes``), so a move between its modules does not matter.

Inputs are small fresh numbers whose results are worked out by hand in the comment beside each assertion; every
error is matched from its first word, which is the argument's name. Known format limits (FP16 max 65,504, E4M3
448, E5M2 57,344) come from the IEEE 754 / OCP FP8 definitions, not from the code.
"""
import pytest

from xpucalc import llm


def err(pattern):
    return pytest.raises(ValueError, match="^" + pattern)


# --- comm -------------------------------------------------------------------------------------------------------------
def test_allreduce_by_hand():
    assert llm.allreduce_traffic_bytes(12e9, 3) == pytest.approx(16e9)        # 2 x 2/3 x 12 GB
    assert llm.allreduce_time_s(12e9, 4e9, 3) == pytest.approx(4.0)           # 16 GB / 4 GB/s
    assert llm.allreduce_time_s(12e9, 4e9) == pytest.approx(6.0)              # large-n limit 2 x 12 / 4
    with err(r"n_ranks must be >= 2 for an all-reduce, got 1"):
        llm.allreduce_traffic_bytes(1e9, 1)
    with err(r"n_ranks must be a whole number"):
        llm.allreduce_traffic_bytes(1e9, 0)
    with err(r"size_bytes must be > 0"):
        llm.allreduce_traffic_bytes(0.0, 2)
    with err(r"size_bytes must be > 0"):
        llm.allreduce_time_s(0.0, 1e9)
    with err(r"bandwidth must be > 0"):
        llm.allreduce_time_s(1e9, 0.0, 2)


def test_tp_activation_bytes_by_hand():
    # 3 layers x 3 all-reduces x (batch 2 x seq 7 x hidden 5 x 4 bytes = 280) = 2,520
    assert llm.tp_activation_bytes_per_forward(3, 5, 7, batch=2, dtype_bytes=4, allreduces_per_layer=3) == 2520
    # defaults: batch 1, 2 bytes, 2 all-reduces: 2 x 2 x (16 x 8 x 2) = 1,024
    assert llm.tp_activation_bytes_per_forward(2, 8, 16) == 1024
    for kwargs, name in (({"layers": 0}, "layers"), ({"hidden": 0}, "hidden"), ({"seq_len": 0}, "seq_len"),
                         ({"batch": 0}, "batch"), ({"dtype_bytes": 0}, "dtype_bytes"),
                         ({"allreduces_per_layer": 0}, "allreduces_per_layer")):
        args = dict(layers=2, hidden=8, seq_len=16) | kwargs
        with err(name + " must"):
            llm.tp_activation_bytes_per_forward(**args)


# --- compute ----------------------------------------------------------------------------------------------------------
def test_flop_rules_by_hand():
    assert llm.forward_flops_per_token(7e9) == 14e9                   # 2N
    assert llm.train_flops_per_token(7e9) == 42e9                     # 6N
    assert llm.train_flops(7e9, 1e12) == pytest.approx(4.2e22)        # 6 N T
    assert llm.inference_flops(7e9, 1e3) == pytest.approx(1.4e13)     # 2 N T
    assert llm.attention_flops_per_token(2, 3, 5, training=False) == 120   # 4 x 2 x 3 x 5
    assert llm.attention_flops_per_token(2, 3, 5) == 360                   # training: x 3
    assert llm.attention_ratio(1000, 2, 3, 5) == pytest.approx(0.06)       # 360 / 6,000
    assert llm.CHINCHILLA_TOKENS_PER_PARAM == 20.0
    assert llm.chinchilla_tokens(7e9) == pytest.approx(1.4e11)
    for f, args, name in ((llm.forward_flops_per_token, (0,), "n_params"), (llm.train_flops, (1e9, 0), "tokens"),
                          (llm.inference_flops, (1e9, 0), "tokens"), (llm.chinchilla_tokens, (0,), "n_params"),
                          (llm.attention_flops_per_token, (0, 3, 5), "layers"),
                          (llm.attention_flops_per_token, (2, 0, 5), "d_model"),
                          (llm.attention_flops_per_token, (2, 3, 0), "seq_len")):
        with err(name + " must"):
            f(*args)


def test_train_time_and_mfu_by_hand():
    # 6 x 1e9 x 1e10 = 6e19 FLOP over 4 x 1e14 x 0.5 = 2e14 FLOP/s -> 3e5 s
    assert llm.train_time_s(1e9, 1e10, 4, 1e14, 0.5) == pytest.approx(3e5)
    for args, name in (((1e9, 1e10, 0, 1e14, 0.5), "n_devices"), ((1e9, 1e10, 4, 0.0, 0.5), "peak_flops"),
                       ((1e9, 1e10, 4, 1e14, 1.5), "mfu")):
        with err(name + " must"):
            llm.train_time_s(*args)
    # 6e9 FLOP/token x 1e4 tokens/s = 6e13 FLOP/s over 2 x 1e14 -> 0.3; on one device 0.6
    assert llm.mfu(1e9, 1e4, 2, 1e14) == pytest.approx(0.3)
    assert llm.mfu(1e9, 1e4, 1, 1e14) == pytest.approx(0.6)
    assert llm.mfu(1e9, 1e4, 1, 6e13) == 1.0                        # exactly the peak is allowed
    with err(r"MFU would be 2\.000 \(> 1, faster than the peak\): check tokens_per_s, n_devices and peak_flops "
             r"\(dense, per device\)$"):
        llm.mfu(1e9, 2e4, 1, 6e13)
    for args, name in (((1e9, 0.0, 1, 1e14), "tokens_per_s"), ((1e9, 1e4, 0, 1e14), "n_devices"),
                       ((1e9, 1e4, 1, 0.0), "peak_flops")):
        with err(name + " must"):
            llm.mfu(*args)
    # 6 x 1e9 x 1e12 = 6e21 FLOP over 2e4 h x 3600 s x 1e14 = 7.2e21 -> 0.8333
    assert llm.mfu_from_device_hours(1e9, 1e12, 2e4, 1e14) == pytest.approx(6 / 7.2)
    with err(r"MFU would be 1\.667 \(> 1, faster than the peak\): check device_hours, n_devices"):
        llm.mfu_from_device_hours(1e9, 1e12, 1e4, 1e14)
    with err("device_hours must"):
        llm.mfu_from_device_hours(1e9, 1e12, 0.0, 1e14)
    with err("peak_flops must"):
        llm.mfu_from_device_hours(1e9, 1e12, 1e4, 0.0)


# --- rates ------------------------------------------------------------------------------------------------------------
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


def test_intensities_and_prefill_by_hand():
    assert llm.decode_intensity(1, 2) == pytest.approx(1.0)                  # FP16 batch 1: 2 / 2
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


# --- footprint --------------------------------------------------------------------------------------------------------
def test_weights_and_kv_cache_by_hand():
    assert llm.weights_bytes(7e9, 0.5) == pytest.approx(3.5e9)
    # 2 x layers 2 x batch 11 x seq 7 x kv heads 3 x head dim 5 x 4 bytes = 18,480
    assert llm.kv_cache_bytes(2, 3, 5, 7, batch=11, dtype_bytes=4) == 18480
    # Llama-3-8B shape (32 layers, 8 KV heads of 128) at 4,096 tokens, BF16: 2 x 32 x 4096 x 8 x 128 x 2 = 0.5 GiB
    assert llm.kv_cache_bytes(32, 8, 128, 4096) == 2**29
    for kwargs, name in (({"layers": 0}, "layers"), ({"kv_heads": 0}, "kv_heads"), ({"head_dim": 0}, "head_dim"),
                         ({"seq_len": 0}, "seq_len"), ({"batch": 0}, "batch"), ({"dtype_bytes": 0}, "dtype_bytes")):
        args = dict(layers=2, kv_heads=3, head_dim=5, seq_len=7) | kwargs
        with err(name + " must"):
            llm.kv_cache_bytes(**args)
    with err("n_params must"):
        llm.weights_bytes(0, 2)
    with err("bytes_per_param must"):
        llm.weights_bytes(1e9, 0)


def test_vram_rules_of_thumb_by_hand():
    assert llm.inference_vram_bytes(7e9, 2) == pytest.approx(16.8e9)                      # 14 GB x 1.2
    assert llm.inference_vram_bytes(1e9, 2, overhead=1.5) == 3e9                          # no KV by default
    assert llm.inference_vram_bytes(7e9, 2, kv_bytes=1e9, overhead=1.5) == pytest.approx(22e9)   # 21 + 1
    with err("overhead must"):
        llm.inference_vram_bytes(7e9, 2, overhead=0)
    with err("kv_bytes must be >= 0"):
        llm.inference_vram_bytes(7e9, 2, kv_bytes=-1)
    assert llm.lora_vram_bytes(7e9) == pytest.approx(21e9)               # 7e9 x 2 B x 1.5
    assert llm.lora_vram_bytes(7e9, factor=2) == pytest.approx(28e9)
    with err("factor must"):
        llm.lora_vram_bytes(7e9, factor=0)
    assert llm.full_finetune_vram_bytes(7e9) == pytest.approx(140e9)     # 20 B per parameter
    assert llm.full_finetune_vram_bytes(7e9, 16) == pytest.approx(112e9)
    assert llm.ADAMW_MIXED_BYTES_PER_PARAM == 16.0
    assert llm.training_state_bytes(1e9) == {"weights": 2e9, "gradients": 2e9, "adam_m": 4e9, "adam_v": 4e9,
                                             "master_weights": 4e9}
    with err("n_params must"):
        llm.training_state_bytes(0)
    with err("n_params must"):
        llm.train_flops_per_token(0)


def test_devices_needed_by_hand():
    assert llm.devices_needed(160e9, 80e9) == 2                 # an exact fit needs no third device
    assert llm.devices_needed(161e9, 80e9) == 3
    assert llm.devices_needed(144e9, 80e9, 0.9) == 2            # 72 GB usable each
    assert llm.devices_needed(145e9, 80e9, 0.9) == 3
    assert llm.devices_needed(1e-3, 80e9) == 1                  # at least one device
    for args, name in (((0.0, 80e9), "bytes_needed"), ((1e9, 0.0), "device_memory"), ((1e9, 80e9, 0.0), "usable_fraction")):
        with err(name + " must"):
            llm.devices_needed(*args)


@pytest.mark.parametrize("fields, want", [
    # (exponent, mantissa[, ieee]) -> bits, bias, max, min_normal, epsilon, unit roundoff
    ((8, 23), (32, 127, 3.4028234663852886e38, 2.0**-126, 2.0**-23, 2.0**-24)),     # FP32
    ((5, 10), (16, 15, 65504.0, 2.0**-14, 2.0**-10, 2.0**-11)),                      # FP16
    ((8, 7), (16, 127, 3.3895313892515355e38, 2.0**-126, 2.0**-7, 2.0**-8)),         # BF16
    ((5, 2), (8, 15, 57344.0, 2.0**-14, 0.25, 0.125)),                               # FP8 E5M2
    ((4, 3, False), (8, 7, 448.0, 2.0**-6, 0.125, 0.0625)),                          # FP8 E4M3 (fn)
    ((5, 0), (6, 15, 32768.0, 2.0**-14, 1.0, 0.5)),                                  # no stored fraction
    # the smallest formats allowed: 2 exponent bits (bias 1, emax 1: max 1.5 x 2 = 3), and one mantissa bit without
    # IEEE specials (E4M1: emax 15 - 7 = 8, max (2 - 2 x 0.5) x 2^8 = 256)
    ((2, 1), (4, 1, 3.0, 1.0, 0.5, 0.25)),
    ((4, 1, False), (6, 7, 256.0, 2.0**-6, 0.5, 0.25)),
])
def test_float_format_by_definition(fields, want):
    f = llm.float_format(*fields)
    assert (f["bits"], f["bias"], f["max"], f["min_normal"], f["epsilon"], f["unit_roundoff"]) == want
    assert all(type(v) is float for v in f.values())


def test_float_format_errors():
    with err(r"exponent_bits must be >= 2 for a floating-point format, got 1"):
        llm.float_format(1, 3)
    with err("exponent_bits must be a whole number"):
        llm.float_format(0, 3)
    with err("mantissa_bits must be >= 0"):
        llm.float_format(5, -1)
    with err(r"mantissa_bits must be a whole number >= 0, got 1\.5"):
        llm.float_format(5, 1.5)
    with err(r"mantissa_bits must be >= 1 when ieee_special is False \(the NaN needs a mantissa pattern\)"):
        llm.float_format(4, 0, False)


def test_quantized_weights_by_hand():
    # 1e9 weights at 4 bits = 0.5 GB; groups of 128 with a 2-byte scale: 1e9 / 128 x 2 = 15.625 MB
    q = llm.quantized_weights_bytes(1e9, 4)
    assert q == {"weights": 5e8, "scales": pytest.approx(15_625_000.0), "unquantized": 0.0,
                 "total": pytest.approx(515_625_000.0)}
    # 1e8 kept in 16-bit (0.2 GB), 9e8 at 4 bits (0.45 GB), no group metadata
    q = llm.quantized_weights_bytes(1e9, 4, group_size=None, unquantized_params=1e8)
    assert q == {"weights": pytest.approx(4.5e8), "scales": 0.0, "unquantized": pytest.approx(2e8),
                 "total": pytest.approx(6.5e8)}
    # groups of 64 with scale + zero point (4 B), 8-bit kept params at 1 B
    q = llm.quantized_weights_bytes(1.28e8, 8, group_size=64, bytes_per_group=4, unquantized_params=2.8e7,
                                    unquantized_bytes=1)
    assert q == {"weights": pytest.approx(1e8), "scales": pytest.approx(6.25e6), "unquantized": pytest.approx(2.8e7),
                 "total": pytest.approx(1.3425e8)}
    with err(r"unquantized_params \(1e\+09\) must be smaller than n_params \(1e\+09\)"):
        llm.quantized_weights_bytes(1e9, 4, unquantized_params=1e9)
    for kwargs, name in (({"bits": 0}, "bits"), ({"group_size": 0}, "group_size"), ({"bytes_per_group": -1}, "bytes_per_group"),
                         ({"unquantized_params": -1}, "unquantized_params"), ({"unquantized_bytes": 0}, "unquantized_bytes"),
                         ({"n_params": 0}, "n_params")):
        args = dict(n_params=1e9, bits=4) | kwargs
        with err(name + " must"):
            llm.quantized_weights_bytes(**args)


def test_lora_adapter_params_by_hand():
    # 32 layers x rank 16 x ((4096 + 4096) + (4096 + 1024)) = 512 x 13,312 = 6,815,744
    n = llm.lora_adapter_params(32, [(4096, 4096), (4096, 1024)], 16)
    assert n == 6_815_744 and type(n) is float
    with err("matrix_shapes must list at least one"):
        llm.lora_adapter_params(32, [], 16)
    for args, name in (((0, [(4, 4)], 1), "layers"), ((1, [(4, 4)], 0), "rank"), ((1, [(0, 4)], 1), "matrix_shapes d_in"),
                       ((1, [(4, 0)], 1), "matrix_shapes d_out")):
        with err(name + " must"):
            llm.lora_adapter_params(*args)


def test_activation_bytes_by_hand():
    # L 2, h 4, a 2, s 8, b 3: s b h = 96; per layer 96 x (34 + 5 x 2 x 8 / 4 = 20) = 5,184 -> x 2 = 10,368
    assert llm.activation_bytes(2, 4, 2, 8, batch=3) == pytest.approx(10368)
    assert llm.activation_bytes(2, 4, 2, 8, batch=3, flash_attention=True) == pytest.approx(2 * 96 * 34)   # 6,528
    # recompute: inputs 2 x 2 s b h = 384, plus one layer's 5,184
    assert llm.activation_bytes(2, 4, 2, 8, batch=3, recompute=True) == pytest.approx(5568)
    assert llm.activation_bytes(2, 4, 2, 8, batch=3, recompute=True, flash_attention=True) == pytest.approx(384 + 3264)
    assert llm.activation_bytes(1, 4, 2, 8) == pytest.approx(32 * 54)                                      # batch 1
    for kwargs, name in (({"layers": 0}, "layers"), ({"hidden": 0}, "hidden"), ({"heads": 0}, "heads"),
                         ({"seq_len": 0}, "seq_len"), ({"batch": 0}, "batch")):
        args = dict(layers=2, hidden=4, heads=2, seq_len=8) | kwargs
        with err(name + " must"):
            llm.activation_bytes(**args)


def test_finetune_breakdown_by_hand():
    full = llm.finetune_memory_breakdown("full", 1e9, activations=5e8)
    assert full == {"weights": 2e9, "gradients": 2e9, "adam_m": 4e9, "adam_v": 4e9, "master_weights": 4e9,
                    "activations": 5e8}
    # LoRA: 16-bit base 2 GB + adapter 1e7 x 16 B = 0.16 GB
    assert llm.finetune_memory_breakdown("lora", 1e9, trainable_params=1e7) == {
        "base_weights": 2e9, "adapter_state": pytest.approx(1.6e8), "activations": 0.0}
    # QLoRA: NF4 with double quantisation, 4.127 bits: 1e9 x 4.127 / 8 = 515.875 MB
    assert llm.NF4_DOUBLE_QUANT_BITS == 4.127
    assert llm.finetune_memory_breakdown("qlora", 1e9, activations=1e8, trainable_params=1e7) == {
        "base_weights": pytest.approx(515_875_000.0), "adapter_state": pytest.approx(1.6e8), "activations": 1e8}
    with err(r"trainable_params is required for method 'lora' \(see lora_adapter_params\)"):
        llm.finetune_memory_breakdown("lora", 1e9)
    with err(r"trainable_params \(1e\+09\) must be smaller than n_params \(1e\+09\)"):
        llm.finetune_memory_breakdown("qlora", 1e9, trainable_params=1e9)
    with err(r"method must be 'full', 'lora' or 'qlora', got 'adam'"):
        llm.finetune_memory_breakdown("adam", 1e9)
    with err("activations must be >= 0"):
        llm.finetune_memory_breakdown("full", 1e9, activations=-1)
    with err("trainable_params must"):
        llm.finetune_memory_breakdown("lora", 1e9, trainable_params=0)
    with err("n_params must"):
        llm.finetune_memory_breakdown("full", 0)
    assert llm.finetune_memory_breakdown("full", 1e9)["activations"] == 0.0     # default: no activations
