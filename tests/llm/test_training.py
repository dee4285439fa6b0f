"""xpucalc.llm.training: FLOPs and time of a `Model` with the causal attention term, implied MFU, fine-tuning memory,
and the published runs of the training-run catalog.

Expected values are worked by hand from the tiny config of tests/llm/test_model.py (V = 10, d = 8, I = 12, L = 2,
H = 4, 2 KV heads: N = 1,160; a MoE copy with 4 experts, top-2: N_active = 1,800) or from the published budgets.
"""
import pytest

from xpucalc import llm
from xpucalc.llm import models, training

TINY = {"model_type": "llama", "vocab_size": 10, "hidden_size": 8, "intermediate_size": 12,
        "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2}
# the same shapes as a Mixtral with 4 experts, top-2 routing
TINY_MOE = {**TINY, "model_type": "mixtral", "num_local_experts": 4, "num_experts_per_tok": 2}


def tiny(**over):
    return llm.Model.from_hf_config({**TINY, **over})


# --- FLOPs, time, implied MFU ----------------------------------------------------------------------------------
def test_train_flops_time_and_implied_mfu_by_hand():
    m = tiny()
    # 100 tokens x 7,920 FLOP (training, s = 10) = 792,000
    assert training.model_train_flops(m, 100, 10) == 792_000
    # Rates in SI units (a peak below 1 GFLOP/s is refused as a unit slip), so the tokens scale with them:
    # 100e9 tokens x 7,920 FLOP = 7.92e14 FLOP; / (2 devices x 1e12 FLOP/s x 0.5) = 792 s
    assert training.model_train_time_s(m, 100e9, 10, 2, 1e12, 0.5) == pytest.approx(792.0)
    assert training.model_train_time_s(m, 100e9, 10, 1, 1e12, 1.0) == pytest.approx(792.0)
    # 100e12 tokens: 7.92e17 FLOP / (440 h x 3,600 s x 1e12 FLOP/s) = 7.92e17 / 1.584e18 = 0.5
    assert training.implied_mfu(m, 100e12, 10, 440, 1e12) == pytest.approx(0.5)
    # 6N only: 6 x 1,160 x 100e12 = 6.96e17 / 1.584e18 = 29/66
    assert training.implied_mfu(m, 100e12, 10, 440, 1e12, attention=False) == pytest.approx(29 / 66)
    # an exact 100 % is allowed; 220 h -> 1.0, 100 h -> 2.2 is rejected
    assert training.implied_mfu(m, 100e12, 10, 220, 1e12) == pytest.approx(1.0)
    with pytest.raises(ValueError, match=r"^implied MFU is 2\.200 > 1: the work claimed exceeds peak x time"):
        training.implied_mfu(m, 100e12, 10, 100, 1e12)
    # just above 1: 792,000 / (200 h x 3,600) = 1.1 is rejected too, and the message says what to check
    with pytest.raises(ValueError, match=r"^implied MFU is 1\.100 > 1: .*; check device_hours, "
                                         r"peak_flops \(dense, not sparse\) and tokens$"):
        training.implied_mfu(m, 100e12, 10, 200, 1e12)
    with pytest.raises(ValueError, match=r"^peak_flops must be > 0"):
        training.implied_mfu(m, 100, 10, 1, 0.0)
    for bad, args in (("tokens", (0, 10)), ("seq_len", (100, 0))):
        with pytest.raises(ValueError, match=rf"^{bad} must be "):
            training.model_train_flops(m, *args)
    with pytest.raises(ValueError, match=r"^n_devices must be a whole number >= 1"):
        training.model_train_time_s(m, 100, 10, 0, 1e12, 0.5)
    with pytest.raises(ValueError, match=r"^peak_flops must be > 0"):
        training.model_train_time_s(m, 100, 10, 1, 0.0, 0.5)
    with pytest.raises(ValueError, match=r"^mfu must be a fraction in"):
        training.model_train_time_s(m, 100, 10, 1, 1e12, 1.5)
    with pytest.raises(ValueError, match=r"^device_hours must be > 0"):
        training.implied_mfu(m, 100, 10, 0, 1e12)
    with pytest.raises(ValueError, match=r"^tokens must be > 0"):
        training.implied_mfu(m, 0, 10, 1, 1e12, attention=False)
    # the Model-based pair has its own names: llm.train_flops / llm.train_time_s are the scalar 6 N T rules
    assert not hasattr(training, "train_flops") and not hasattr(training, "train_time_s")


def test_training_time_with_attention_and_implied_mfu():
    m = models.get("llama-3.1-405b")
    # 15.6e12 x (6 x 405,853,388,800 + 6 x 126 x 16384 x 8192) / (30.84e6 h x 3600 x 989.4e12)
    flops = 15.6e12 * (6 * 405_853_388_800 + 6 * 126 * 16384 * 8192)
    mfu = training.implied_mfu(m, 15.6e12, 8192, 30.84e6, 989.4e12)
    assert mfu == pytest.approx(flops / (30.84e6 * 3600 * 989.4e12))
    assert 0.35 < mfu < 0.38   # below the paper's 38-43 %: GPU-hours include restarts and idle time
    with pytest.raises(ValueError, match="> 1"):
        training.implied_mfu(m, 15.6e12, 8192, 1e6, 989.4e12)


# --- fine-tuning memory -----------------------------------------------------------------------------------------
def test_lora_shapes_by_hand():
    # q (8, 8), k (8, 4), v (8, 4), o (8, 8), gate (8, 12), up (8, 12), down (12, 8)
    assert training.lora_shapes(tiny()) == [(8, 8), (8, 4), (8, 4), (8, 8), (8, 12), (8, 12), (12, 8)]
    moe = training.lora_shapes(llm.Model.from_hf_config(TINY_MOE))
    assert moe == [(8, 8), (8, 4), (8, 4), (8, 8)] + [(8, 12), (8, 12), (12, 8)] * 4
    assert training.lora_shapes(tiny(head_dim=3))[:4] == [(8, 12), (8, 6), (8, 6), (12, 8)]


# a wider tiny model so that a rank-16 adapter stays smaller than the base:
# V = 1000, d = 64, I = 128, L = 2, H = 4 = KV heads, head_dim 16
# embed + head 2 x 64,000; attention 64 x 192 + 64 x 64 = 16,384; MLP 3 x 64 x 128 = 24,576; norms 128
# layer 41,088; total 128,000 + 64 + 82,176 = 210,240
WIDE = {"model_type": "llama", "vocab_size": 1000, "hidden_size": 64, "intermediate_size": 128,
        "num_hidden_layers": 2, "num_attention_heads": 4}


def test_finetune_memory_by_hand():
    m = llm.Model.from_hf_config(WIDE)
    assert m.n_params == 210_240
    n = 210_240
    # full, s = 4, b = 1: Korthikanti s b h (34 + 5 a s / h) = 4 x 64 x (34 + 5 x 4 x 4 / 64) = 256 x 35.25 = 9,024
    # per layer, x 2 layers = 18,048; AdamW mixed 2 + 2 + 4 + 4 + 4 bytes per parameter
    full = training.finetune_memory(m, "full", seq_len=4, batch=1)
    assert full == {"weights": 2 * n, "gradients": 2 * n, "adam_m": 4 * n, "adam_v": 4 * n,
                    "master_weights": 4 * n, "activations": 18_048}
    # batch 3 triples the activations
    assert training.finetune_memory(m, "full", seq_len=4, batch=3)["activations"] == 3 * 18_048
    # LoRA: recomputation + FlashAttention: 2 layers x 2 s b h + one layer s b h x 34 = 1,024 + 8,704 = 9,728
    # adapter rank 2: per layer (64+64) x 4 (q, k, v, o) + (64+128) x 3 (gate, up, down) = 512 + 576 = 1,088;
    # x 2 layers x rank 2 = 4,352 params, 16 B each (AdamW mixed) = 69,632 B; base 2 B x n
    lora = training.finetune_memory(m, "lora", seq_len=4, batch=1, rank=2)
    assert lora == {"base_weights": 2 * n, "adapter_state": 69_632, "activations": 9_728}
    # QLoRA: NF4 with double quantisation, 4.127 bits per weight (Dettmers et al. 2023), but bitsandbytes keeps the
    # embedding and lm_head (2 x 1,000 x 64 = 128,000) in 16-bit: 82,240 x 4.127 / 8 + 128,000 x 2
    # = 42,425.56 + 256,000 = 298,425.56 B (all in NF4 it would be 108,457.56)
    q = training.finetune_memory(m, "qlora", seq_len=4, batch=1, rank=2)
    assert q["base_weights"] == pytest.approx(298_425.56) and q["adapter_state"] == 69_632
    assert q["activations"] == 9_728
    # defaults: seq_len 2048, batch 1, rank 16
    # full: 2 layers x 2048 x 64 x (34 + 5 x 4 x 2048 / 64 = 674) = 2 x 131,072 x 674 = 176,685,056
    assert training.finetune_memory(m, "full")["activations"] == 176_685_056
    # LoRA: 2 x 2 x 131,072 + 131,072 x 34 = 524,288 + 4,456,448 = 4,980,736; adapter 2 x 16 x 1,088 x 16 B
    d = training.finetune_memory(m, "lora")
    assert d["activations"] == 4_980_736 and d["adapter_state"] == 2 * 16 * 1088 * 16
    # the rank is only read by the adapter methods: full fine-tuning accepts any value
    assert training.finetune_memory(m, "full", seq_len=4, rank=0) == full
    with pytest.raises(ValueError, match=r"^method must be 'full', 'lora' or 'qlora', got 'qlor'"):
        training.finetune_memory(m, "qlor")


# --- the published runs -----------------------------------------------------------------------------------------
def test_run_source_and_errors():
    s = training.run_source("llama2-paper")
    assert s.url == "https://arxiv.org/abs/2307.09288"
    with pytest.raises(KeyError, match=r"^\Wunknown source id 'nope' in llm_training_runs\.json; "
                                       r"known: llama31-card, llama3-paper, llama2-paper"):
        training.run_source("nope")
    with pytest.raises(KeyError, match=r"^\Wunknown training run key 'nope'; known keys: llama-3.1-405b, llama-3.1-70b, "
                                       r"llama-3.1-8b, llama-2-7b, llama-2-70b\W$"):
        training.run("nope")
    assert training.RUNS.file == "llm_training_runs.json"
    assert [r["key"] for r in training.runs()] == ["llama-3.1-405b", "llama-3.1-70b", "llama-3.1-8b",
                                                        "llama-2-7b", "llama-2-70b"]


def test_run_mfu_defaults_to_the_attention_term():
    # Llama 2 70B with attention, worked in tests/render/test_llm_tables.py: 8.59932e23 / 1.93226e24 = 0.44504
    r = training.run("llama-2-70b")
    assert training.run_mfu(r) == pytest.approx(0.445039, abs=1e-6)


def test_attention_given_as_a_string_is_refused():
    import pytest
    from xpucalc.llm import models, training
    with pytest.raises(ValueError, match=r"^attention must be True or False, got 'False'"):
        training.implied_mfu(models.get("llama-3-8b"), 1e12, 4096, 1e6, 1e15, "False")
