"""Functions appended to xpucalc.llm for the precision, budget and serving pages, and the pages' key figures.

Golden values are worked by hand in the comments (not copied from the code's output).
"""
import math

import pytest

from xpucalc import llm, units


# --- float_format --------------------------------------------------------------------------------------
@pytest.mark.parametrize("e, m, ieee, bits, max_val", [
    (8, 23, True, 32, (2 - 2**-23) * 2**127),   # FP32 3.4028e38
    (8, 10, True, 19, (2 - 2**-10) * 2**127),   # TF32: 1 + 8 + 10 = 19 bits
    (5, 10, True, 16, 65504.0),                 # FP16: (2 - 2^-10) * 2^15
    (8, 7, True, 16, (2 - 2**-7) * 2**127),     # BF16 3.3895e38
    (4, 3, False, 8, 448.0),                    # FP8 E4M3fn: 1.75 * 2^8
    (5, 2, True, 8, 57344.0),                   # FP8 E5M2: 1.75 * 2^15
])
def test_float_format_max_and_bits(e, m, ieee, bits, max_val):
    f = llm.float_format(e, m, ieee)
    assert f["bits"] == bits
    assert f["max"] == pytest.approx(max_val, rel=1e-12)
    assert f["epsilon"] == 2.0**-m
    assert f["unit_roundoff"] == 2.0**-(m + 1)


def test_float_format_min_normal_and_bf16_range_equals_fp32():
    assert llm.float_format(5, 10)["min_normal"] == pytest.approx(6.103515625e-05)  # 2^-14
    assert llm.float_format(8, 7)["min_normal"] == llm.float_format(8, 23)["min_normal"]  # 2^-126


def test_float_format_matches_ml_dtypes_when_present():
    ml_dtypes = pytest.importorskip("ml_dtypes")
    assert llm.float_format(4, 3, False)["max"] == float(ml_dtypes.finfo(ml_dtypes.float8_e4m3fn).max)
    assert llm.float_format(5, 2)["max"] == float(ml_dtypes.finfo(ml_dtypes.float8_e5m2).max)


@pytest.mark.parametrize("kw", [dict(exponent_bits=1, mantissa_bits=3), dict(exponent_bits=0, mantissa_bits=3),
                                dict(exponent_bits=5, mantissa_bits=-1), dict(exponent_bits=4, mantissa_bits=2.5)])
def test_float_format_bad_input(kw):
    with pytest.raises(ValueError, match="exponent_bits|mantissa_bits"):
        llm.float_format(**kw)


# --- quantised weights ---------------------------------------------------------------------------------
def test_quantized_weights_7b_int4():
    # 7e9 params, 2 x 32000 x 4096 = 262,144,000 kept in FP16; the rest 6,737,856,000 at 4 bits
    # weights 3,368,928,000 B; groups of 128 with 4 B each: 6,737,856,000 / 128 x 4 = 210,558,000 B
    q = llm.quantized_weights_bytes(7e9, 4, 128, 4, 262_144_000)
    assert q["weights"] == pytest.approx(3_368_928_000)
    assert q["scales"] == pytest.approx(210_558_000)
    assert q["unquantized"] == pytest.approx(524_288_000)
    assert q["total"] == pytest.approx(4_103_774_000)
    assert llm.quantized_weights_bytes(7e9, 4, None)["total"] == pytest.approx(3.5e9)


def test_quantized_weights_bad_input():
    with pytest.raises(ValueError, match="unquantized_params"):
        llm.quantized_weights_bytes(7e9, 4, unquantized_params=8e9)
    with pytest.raises(ValueError, match="group_size"):
        llm.quantized_weights_bytes(7e9, 4, group_size=0)
    with pytest.raises(ValueError, match="bits"):
        llm.quantized_weights_bytes(7e9, 0)


# --- LoRA, activations, fine-tuning breakdown ----------------------------------------------------------
def test_lora_adapter_params_llama7b_r16():
    # per layer: 4 x (4096 + 4096) + 3 x (4096 + 11008) = 78,080; x 32 layers x r 16 = 39,976,960
    shapes = [(4096, 4096)] * 4 + [(4096, 11008)] * 3
    assert llm.lora_adapter_params(32, shapes, 16) == 39_976_960
    with pytest.raises(ValueError, match="matrix_shapes"):
        llm.lora_adapter_params(32, [], 16)
    with pytest.raises(ValueError, match="rank"):
        llm.lora_adapter_params(32, shapes, 0)


def test_activation_bytes_korthikanti():
    # s b h = 2048 x 4096 = 8,388,608; 34 + 5 x 32 x 2048 / 4096 = 114 -> 956,301,312 per layer; x 32
    assert llm.activation_bytes(32, 4096, 32, 2048) == pytest.approx(30_601_641_984)
    # FlashAttention: 34 x 8,388,608 = 285,212,672 per layer
    assert llm.activation_bytes(32, 4096, 32, 2048, flash_attention=True) == pytest.approx(32 * 285_212_672)
    # recompute: 32 layer inputs x 2 x 8,388,608 = 536,870,912 + one layer 285,212,672
    assert llm.activation_bytes(32, 4096, 32, 2048, recompute=True, flash_attention=True) == pytest.approx(822_083_584)
    with pytest.raises(ValueError, match="heads"):
        llm.activation_bytes(32, 4096, 0, 2048)


def test_finetune_breakdown():
    full = llm.finetune_memory_breakdown("full", 7e9, activations=1e9)
    assert sum(full.values()) == pytest.approx(113e9)  # 16 x 7e9 + 1e9
    lora = llm.finetune_memory_breakdown("lora", 7e9, trainable_params=40e6)
    assert lora["base_weights"] == pytest.approx(14e9)
    assert lora["adapter_state"] == pytest.approx(640e6)  # 16 x 40e6
    qlora = llm.finetune_memory_breakdown("qlora", 7e9, trainable_params=40e6)
    assert qlora["base_weights"] == pytest.approx(3_611_125_000)  # 7e9 x 4.127 / 8
    with pytest.raises(ValueError, match="method"):
        llm.finetune_memory_breakdown("adapter", 7e9)
    with pytest.raises(ValueError, match="trainable_params"):
        llm.finetune_memory_breakdown("lora", 7e9)
    with pytest.raises(ValueError, match="activations"):
        llm.finetune_memory_breakdown("full", 7e9, activations=-1)


def test_training_rule_range_7b():
    # 16-20 bytes per parameter: 7B -> 112-140 GB
    assert llm.weights_bytes(7e9, 16) == pytest.approx(112e9)
    assert llm.full_finetune_vram_bytes(7e9) == pytest.approx(140e9)


# --- roofline of prefill / decode ----------------------------------------------------------------------
def test_decode_and_prefill_intensity():
    assert llm.decode_intensity(1, 2) == 1.0            # 2 FLOP per 2-byte weight
    assert llm.decode_intensity(64, 2) == 64.0
    assert llm.decode_intensity(1, 2, 0.1) == pytest.approx(2 / 2.1)
    assert llm.prefill_intensity(4096, 2) == 4096.0     # equals the prompt length in FP16
    assert llm.prefill_intensity(4096, 1) == 8192.0
    with pytest.raises(ValueError, match="batch"):
        llm.decode_intensity(0, 2)
    with pytest.raises(ValueError, match="prompt_tokens"):
        llm.prefill_intensity(0, 2)


def test_prefill_time_70b_h100():
    # compute 2 x 70e9 x 4096 / 989e12 = 0.579818 s > memory 140e9 / 3.35e12 = 0.04179 s
    assert llm.prefill_time_s(70e9, 4096, 2, 989e12, 3.35e12) == pytest.approx(0.579818, rel=1e-5)
    # a one-token "prefill" is memory-bound
    assert llm.prefill_time_s(70e9, 1, 2, 989e12, 3.35e12) == pytest.approx(140e9 / 3.35e12)
    assert llm.prefill_time_s(70e9, 4096, 2, 989e12, 3.35e12, mfu=0.5) == pytest.approx(1.159636, rel=1e-5)
    with pytest.raises(ValueError, match="mfu"):
        llm.prefill_time_s(70e9, 4096, 2, 989e12, 3.35e12, mfu=1.5)


def test_critical_batch_h100_fp16():
    # 989.4e12 x 2 / (2 x 3.35e12) = 295.34
    assert llm.decode_critical_batch(70e9, 2, 989.4e12, 3.35e12) == pytest.approx(295.34, rel=1e-4)


def test_serving_metrics():
    assert llm.ttft_s(0.2, 0.58) == pytest.approx(0.78)
    assert llm.request_latency_s(0.5, 0.05, 100) == pytest.approx(5.45)  # 0.5 + 99 x 0.05
    g = llm.goodput([0.5, 1.5, 3.0], [100, 200, 300], 10.0, 2.0)
    assert g["throughput"] == pytest.approx(60.0)
    assert g["goodput"] == pytest.approx(30.0)
    assert g["slo_fraction"] == pytest.approx(2 / 3)
    with pytest.raises(ValueError, match="equal length"):
        llm.goodput([0.5], [1, 2], 1.0, 1.0)
    with pytest.raises(ValueError, match="queue_s"):
        llm.ttft_s(-1, 0.5)


def test_devices_needed():
    assert llm.devices_needed(168e9, 80e9) == 3
    assert llm.devices_needed(160e9, 80e9) == 2
    assert llm.devices_needed(160e9, 80e9, 0.9) == 3
    assert llm.devices_needed(1.0, 80e9) == 1
    with pytest.raises(ValueError, match="device_memory"):
        llm.devices_needed(1e9, 0)


# --- the pages' figures --------------------------------------------------------------------------------
def test_kv_cache_llama3_70b_and_the_wrong_formula():
    kv8k = llm.kv_cache_bytes(80, 8, 128, 8192)
    assert kv8k == 2_684_354_560            # 2 x 80 x 8192 x 8 x 128 x 2
    assert kv8k / units.GiB == 2.5
    kv128k = llm.kv_cache_bytes(80, 8, 128, 131072)
    assert kv128k / units.GiB == 40.0
    assert kv128k / units.GB == pytest.approx(42.95, abs=0.01)
    wrong = 80 * 8192 * 8192 * 2             # hidden instead of kv_heads x head_dim, no K/V factor
    assert wrong / units.GB == pytest.approx(10.74, abs=0.01)


def test_budgets():
    # (1) 140 GFLOP per token; 989e12 / 1.4e11 = 7,064 tok/s
    assert llm.forward_flops_per_token(70e9) == 1.4e11
    # (3) 6 x 7e9 x 10e9 = 4.2e20; / (312e12 x 0.5) = 2.6923e6 s = 31.16 days; 8 GPUs 3.89 days
    assert llm.train_time_s(7e9, 10e9, 1, 312e12, 0.5) / units.DAY == pytest.approx(31.16, abs=0.01)
    assert llm.train_time_s(7e9, 10e9, 8, 312e12, 0.5) / units.DAY == pytest.approx(3.895, abs=0.001)
    # (4) Chinchilla: 7B -> 140e9 tokens, 5.88e21; 70B -> 1.4e12, 5.88e23
    assert llm.train_flops(7e9, llm.chinchilla_tokens(7e9)) == pytest.approx(5.88e21)
    assert llm.train_flops(70e9, llm.chinchilla_tokens(70e9)) == pytest.approx(5.88e23)


def test_llama2_mfu_from_gpu_hours():
    # 6 x 70e9 x 2e12 = 8.4e23; 1,720,320 h x 3600 x 312e12 = 1.93224e24 -> 0.4347
    assert llm.mfu_from_device_hours(70e9, 2e12, 1_720_320, 312e12) == pytest.approx(0.4347, abs=1e-4)


def test_attention_ratio_condition():
    # Llama-2-7B-like: L = 32, d = 4096, N = 12 L d^2 = 6.442e9; ratio = 12 L d s / 6N = s / (6 d)
    n = 12 * 32 * 4096**2
    assert llm.attention_ratio(n, 32, 4096, 4096) == pytest.approx(4096 / (6 * 4096))
    assert math.isclose(llm.attention_ratio(n, 32, 4096, 6 * 4096), 1.0)
