"""xpucalc.llm.footprint: weights, KV cache, serving and fine-tuning memory, number formats, quantised sizes.

Through ``llm.<name>``. Expected values are worked by hand in the comments; known format limits (FP16 max 65,504,
E4M3 448, E5M2 57,344) come from the IEEE 754 / OCP FP8 definitions, not from the code. Every error is matched
from its first word, which is the argument's name.
"""
import re

import pytest

from xpucalc import llm, units


def err(pattern):
    return pytest.raises(ValueError, match="^" + pattern)


def test_weights_and_kv_cache_by_hand():
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


def test_kv_cache_llama3_70b_corrected_and_the_wrong_formula():
    # 2 x 80 x 1 x 8192 x 8 x 128 x 2 = 2,684,354,560 B = 2.68 GB = 2.5 GiB
    kv8k = llm.kv_cache_bytes(80, 8, 128, 8192, batch=1, dtype_bytes=2)
    assert kv8k == 2_684_354_560 == llm.kv_cache_bytes(80, 8, 128, 8192)
    assert kv8k / units.GiB == 2.5
    kv128k = llm.kv_cache_bytes(80, 8, 128, 128 * 1024)
    assert kv128k / units.GiB == 40.0
    assert kv128k / units.GB == pytest.approx(42.95, abs=0.01)
    # the source's formula (hidden instead of kv_heads x head_dim, no K/V factor) gives 10.7 GB
    wrong = 80 * 8192 * 8192 * 2
    assert wrong / units.GB == pytest.approx(10.74, abs=0.01)


def test_memory_rules_7b():
    assert llm.weights_bytes(7e9, 2) == 14e9
    assert llm.weights_bytes(7e9, 0.5) == 3.5e9
    # 16-20 bytes per parameter: 7B -> 112-140 GB
    assert llm.weights_bytes(7e9, 16) == pytest.approx(112e9)
    assert sum(llm.training_state_bytes(1e9).values()) == pytest.approx(16e9)


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


def test_devices_needed():
    assert llm.devices_needed(168e9, 80e9) == 3
    assert llm.devices_needed(160e9, 80e9, 0.9) == 3
    assert llm.devices_needed(1.0, 80e9) == 1


def test_devices_needed_by_hand():
    assert llm.devices_needed(160e9, 80e9) == 2                 # an exact fit needs no third device
    assert llm.devices_needed(161e9, 80e9) == 3
    assert llm.devices_needed(144e9, 80e9, 0.9) == 2            # 72 GB usable each
    assert llm.devices_needed(145e9, 80e9, 0.9) == 3
    assert llm.devices_needed(1e-3, 80e9) == 1                  # at least one device
    for args, name in (((0.0, 80e9), "bytes_needed"), ((1e9, 0.0), "device_memory"), ((1e9, 80e9, 0.0), "usable_fraction")):
        with err(name + " must"):
            llm.devices_needed(*args)


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


def test_quantized_weights_7b_int4():
    # 7e9 params, 2 x 32000 x 4096 = 262,144,000 kept in FP16; the rest 6,737,856,000 at 4 bits
    # weights 3,368,928,000 B; groups of 128 with 4 B each: 6,737,856,000 / 128 x 4 = 210,558,000 B
    q = llm.quantized_weights_bytes(7e9, 4, 128, 4, 262_144_000)
    assert q["weights"] == pytest.approx(3_368_928_000)
    assert q["scales"] == pytest.approx(210_558_000)
    assert q["unquantized"] == pytest.approx(524_288_000)
    assert q["total"] == pytest.approx(4_103_774_000)
    assert llm.quantized_weights_bytes(7e9, 4, None)["total"] == pytest.approx(3.5e9)


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


def test_quantized_weights_keep_fewer_params_than_the_model():
    with err(r"unquantized_params \(8e\+09\) must be smaller than n_params \(7e\+09\)"):
        llm.quantized_weights_bytes(7e9, 4, unquantized_params=8e9)


def test_lora_adapter_params_llama7b_r16():
    # per layer: 4 x (4096 + 4096) + 3 x (4096 + 11008) = 78,080; x 32 layers x r 16 = 39,976,960
    shapes = [(4096, 4096)] * 4 + [(4096, 11008)] * 3
    assert llm.lora_adapter_params(32, shapes, 16) == 39_976_960


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


def test_activation_bytes_korthikanti():
    # s b h = 2048 x 4096 = 8,388,608; 34 + 5 x 32 x 2048 / 4096 = 114 -> 956,301,312 per layer; x 32
    assert llm.activation_bytes(32, 4096, 32, 2048) == pytest.approx(30_601_641_984)
    # FlashAttention: 34 x 8,388,608 = 285,212,672 per layer
    assert llm.activation_bytes(32, 4096, 32, 2048, flash_attention=True) == pytest.approx(32 * 285_212_672)
    # recompute: 32 layer inputs x 2 x 8,388,608 = 536,870,912 + one layer 285,212,672
    assert llm.activation_bytes(32, 4096, 32, 2048, recompute=True, flash_attention=True) == pytest.approx(822_083_584)


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


def test_finetune_breakdown():
    full = llm.finetune_memory_breakdown("full", 7e9, activations=1e9)
    assert sum(full.values()) == pytest.approx(113e9)  # 16 x 7e9 + 1e9
    lora = llm.finetune_memory_breakdown("lora", 7e9, trainable_params=40e6)
    assert lora["base_weights"] == pytest.approx(14e9)
    assert lora["adapter_state"] == pytest.approx(640e6)  # 16 x 40e6
    qlora = llm.finetune_memory_breakdown("qlora", 7e9, trainable_params=40e6)
    assert qlora["base_weights"] == pytest.approx(3_611_125_000)  # 7e9 x 4.127 / 8


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

BAD_INPUTS = [
    ("kv_heads", lambda: llm.kv_cache_bytes(80, 0, 128, 8192)),
    ("seq_len", lambda: llm.kv_cache_bytes(80, 8, 128, -8192)),
]


@pytest.mark.parametrize("name, call", BAD_INPUTS, ids=[f"{i}-{n}" for i, (n, _) in enumerate(BAD_INPUTS)])
def test_bad_input_names_the_argument(name, call):
    # the argument's name as a whole word, so that a message naming another argument does not pass
    with pytest.raises(ValueError, match=rf"\b{re.escape(name)}\b"):
        call()


def test_string_flags_and_a_memory_in_gb_are_refused():
    import pytest
    from xpucalc.llm import footprint
    with pytest.raises(ValueError, match=r"^recompute must be True or False, got 'False'"):
        footprint.activation_bytes(32, 4096, 32, 2048, recompute="False")
    with pytest.raises(ValueError, match=r"^flash_attention must be True or False"):
        footprint.activation_bytes(32, 4096, 32, 2048, flash_attention="no")
    with pytest.raises(ValueError, match=r"^device_memory=80 looks like GB; .*pass 80e9"):
        footprint.devices_needed(140e9, 80)
