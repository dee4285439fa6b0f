"""xpucalc.llm.compute: the 2N / 6N rules, the attention term, training time and MFU, through ``llm.<name>``.

Expected values are worked by hand in the comments (the source's budgets, corrected, and small fresh numbers);
every error is matched from its first word, which is the argument's name.
"""
import math
import re

import pytest

from xpucalc import llm, units


def err(pattern):
    return pytest.raises(ValueError, match="^" + pattern)


def test_flop_rules_by_hand():
    assert llm.forward_flops_per_token(7e9) == 14e9                   # 2N
    assert llm.train_flops_per_token(7e9) == 42e9                     # 6N
    assert llm.train_flops(7e9, 1e12) == pytest.approx(4.2e22)        # 6 N T
    assert llm.inference_flops(7e9, 1e3) == pytest.approx(1.4e13)     # 2 N T
    assert llm.attention_flops_per_token(2, 3, 5) == 120                   # forward (the default): 4 x 2 x 3 x 5
    assert llm.attention_flops_per_token(2, 3, 5, training=False) == 120
    assert llm.attention_flops_per_token(2, 3, 5, training=True) == 360    # training: x 3
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


def test_attention_term_condition():
    # Llama-3-70B-ish: L = 80, d = 8192, N = 70e9; ratio 12 L d s / 6N
    r = llm.attention_ratio(70e9, 80, 8192, 8192)
    assert r == pytest.approx(12 * 80 * 8192 * 8192 / (6 * 70e9))
    # with N = 12 L d^2 exactly, the ratio is s / (6 d)
    L, d, s = 32, 4096, 2048
    assert llm.attention_ratio(12 * L * d * d, L, d, s) == pytest.approx(s / (6 * d))
    assert llm.attention_flops_per_token(L, d, s, training=False) == 4 * L * d * s


def test_attention_ratio_condition():
    # Llama-2-7B-like: L = 32, d = 4096, N = 12 L d^2 = 6.442e9; ratio = 12 L d s / 6N = s / (6 d)
    n = 12 * 32 * 4096**2
    assert llm.attention_ratio(n, 32, 4096, 4096) == pytest.approx(4096 / (6 * 4096))
    assert math.isclose(llm.attention_ratio(n, 32, 4096, 6 * 4096), 1.0)


def test_budgets_of_the_source():
    # (1) 140 GFLOP per token; 989e12 / 1.4e11 = 7,064 tok/s
    assert llm.forward_flops_per_token(70e9) == 1.4e11
    # (4) Chinchilla: 7B -> 140e9 tokens, 5.88e21; 70B -> 1.4e12, 5.88e23
    assert llm.chinchilla_tokens(7e9) == 140e9
    assert llm.train_flops(7e9, llm.chinchilla_tokens(7e9)) == pytest.approx(5.88e21)
    assert llm.train_flops(70e9, llm.chinchilla_tokens(70e9)) == pytest.approx(5.88e23)


def test_llama3_70b_training_budget_corrected():
    # 6 x 70e9 x 15e12 = 6.3e24 FLOP; / (989e12 x 0.4) = 1.5925e10 s = 505 GPU-years; / 16,000 = 11.5 days
    assert llm.train_flops(70e9, 15e12) == pytest.approx(6.3e24)
    t1 = llm.train_time_s(70e9, 15e12, 1, 989e12, 0.4)
    assert t1 == pytest.approx(1.5925e10, rel=1e-4)
    assert t1 / units.YEAR == pytest.approx(505.0, abs=0.5)
    assert llm.train_time_s(70e9, 15e12, 16_000, 989e12, 0.4) / units.DAY == pytest.approx(11.52, abs=0.01)
    # the source's 1,600 years is what 312 TFLOP/s (A100) would give
    assert llm.train_time_s(70e9, 15e12, 1, 312e12, 0.4) / units.YEAR == pytest.approx(1600, rel=0.01)


def test_finetune_7b_a100():
    # (3) 6 x 7e9 x 10e9 = 4.2e20; / (312e12 x 0.5) = 2.6923e6 s = 31.16 days; 8 GPUs: 3.895 days
    assert llm.train_flops(7e9, 10e9) == pytest.approx(4.2e20)
    assert llm.train_time_s(7e9, 10e9, 1, 312e12, 0.5) / units.DAY == pytest.approx(31.16, abs=0.01)
    assert llm.train_time_s(7e9, 10e9, 8, 312e12, 0.5) / units.DAY == pytest.approx(3.895, abs=0.001)


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


def test_mfu_llama2_from_gpu_hours():
    # Llama 2 70B: 2e12 tokens, 1,720,320 A100-80GB GPU-hours, 312 TFLOP/s dense BF16
    # 6 x 70e9 x 2e12 = 8.4e23; / (1,720,320 x 3600 x 312e12) = 0.4347
    assert llm.mfu_from_device_hours(70e9, 2e12, 1_720_320, 312e12) == pytest.approx(0.4347, abs=1e-4)
    assert llm.mfu(1e9, 1000, 1, 6e12 * 2) == pytest.approx(0.5)

BAD_INPUTS = [
    ("mfu", lambda: llm.train_time_s(70e9, 15e12, 16000, 989e12, 1.5)),
    ("mfu", lambda: llm.train_time_s(70e9, 15e12, 16000, 989e12, 0)),
    ("n_devices", lambda: llm.train_time_s(70e9, 15e12, 0, 989e12, 0.4)),
    ("tokens_per_s", lambda: llm.mfu(7e9, 0, 8, 312e12)),
    ("n_params", lambda: llm.chinchilla_tokens(-7e9)),
]


@pytest.mark.parametrize("name, call", BAD_INPUTS, ids=[f"{i}-{n}" for i, (n, _) in enumerate(BAD_INPUTS)])
def test_bad_input_names_the_argument(name, call):
    # the argument's name as a whole word, so that a message naming another argument does not pass
    with pytest.raises(ValueError, match=rf"\b{re.escape(name)}\b"):
        call()


@pytest.mark.parametrize("n_params, tok_s, n_dev, peak, expected", [
    # 6 x 1e9 x 1e5 = 6e14 FLOP/s over 4 x 300e12 = 1.2e15 -> 0.5
    (1e9, 1e5, 4, 300e12, 0.5),
    # 6 x 7e9 x 2.4e4 = 1.008e15 over 8 x 312e12 = 2.496e15 -> 0.40385
    (7e9, 2.4e4, 8, 312e12, 1.008e15 / 2.496e15),
    # one device for comparison: 6 x 1e9 x 1e4 = 6e13 over 300e12 -> 0.2
    (1e9, 1e4, 1, 300e12, 0.2),
])
def test_mfu_divides_by_every_device(n_params, tok_s, n_dev, peak, expected):
    assert llm.mfu(n_params, tok_s, n_dev, peak) == pytest.approx(expected)


def test_mfu_refuses_impossible_inputs_by_name():
    # the exercise that once printed 156 %: 6 x 13e9 x 4e5 = 3.12e16 over 64 x 312e12 = 1.9968e16 -> 1.5625
    with pytest.raises(ValueError, match=r"^MFU would be 1\.56\d \(> 1, faster than the peak\): check tokens_per_s,"):
        llm.mfu(13e9, 4e5, 64, 312e12)
    assert llm.mfu(13e9, 1e5, 64, 312e12) == pytest.approx(7.8e15 / 1.9968e16)  # 0.39: the corrected exercise
    with pytest.raises(ValueError, match=r"^n_devices must be a whole number >= 1"):
        llm.mfu(1e9, 1e4, 0, 300e12)
    with pytest.raises(ValueError, match=r"^peak_flops must be > 0"):
        llm.mfu(1e9, 1e4, 1, 0)
    with pytest.raises(ValueError, match=r"^tokens_per_s must be > 0"):
        llm.mfu(1e9, -1, 1, 300e12)


def test_training_given_as_a_string_is_refused():
    import pytest
    from xpucalc import llm
    with pytest.raises(ValueError, match=r"^training must be True or False, got 'False'"):
        llm.attention_flops_per_token(32, 4096, 2048, training="False")
