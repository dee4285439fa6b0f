"""LLM arithmetic, including the corrected figures of design §7 (expected values by hand)."""
import pytest

from xpucalc import llm, units


def test_decode_bound_llama3_70b_h100():
    # 70e9 params x 2 B = 140 GB; 3.35e12 / 140e9 = 23.93 tokens/s
    assert llm.weights_bytes(70e9, 2) == 140e9
    assert llm.decode_tokens_per_s_bound(140e9, 3.35e12) == pytest.approx(23.928, rel=1e-4)


def test_compute_bound_vs_memory_bound_ratio():
    # 989e12 / 1.4e11 = 7,064 tokens/s; ~295x the memory bound
    c = llm.compute_tokens_per_s_bound(70e9, 989e12)
    assert c == pytest.approx(7064.3, rel=1e-4)
    assert c / llm.decode_tokens_per_s_bound(140e9, 3.35e12) == pytest.approx(295.2, rel=1e-3)


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
    # 6 x 7e9 x 10e9 = 4.2e20; / (312e12 x 0.5) = 2.69e6 s = 31.2 days; 8 GPUs: 3.9 days
    assert llm.train_flops(7e9, 10e9) == pytest.approx(4.2e20)
    assert llm.train_time_s(7e9, 10e9, 1, 312e12, 0.5) / units.DAY == pytest.approx(31.16, abs=0.01)
    assert llm.train_time_s(7e9, 10e9, 8, 312e12, 0.5) / units.DAY == pytest.approx(3.895, abs=0.01)


def test_chinchilla():
    assert llm.chinchilla_tokens(7e9) == 140e9
    assert llm.train_flops(7e9, llm.chinchilla_tokens(7e9)) == pytest.approx(5.88e21)
    assert llm.train_flops(70e9, llm.chinchilla_tokens(70e9)) == pytest.approx(5.88e23)


def test_kv_cache_corrected():
    # 2 x 80 x 1 x 8192 x 8 x 128 x 2 = 2,684,354,560 B = 2.68 GB = 2.5 GiB
    kv = llm.kv_cache_bytes(80, 8, 128, 8192, batch=1, dtype_bytes=2)
    assert kv == 2_684_354_560
    assert kv / units.GiB == pytest.approx(2.5)
    long = llm.kv_cache_bytes(80, 8, 128, 128 * 1024)
    assert long / units.GiB == pytest.approx(40.0)
    assert long / units.GB == pytest.approx(42.95, abs=0.01)
    # the source's formula (hidden instead of kv_heads x head_dim, no K/V factor) gives 10.7 GB
    assert 80 * 1 * 8192 * 8192 * 2 == pytest.approx(10.7e9, rel=0.01)


def test_attention_term_condition():
    # Llama-3-70B-ish: L = 80, d = 8192, N = 70e9; ratio 12 L d s / 6N
    r = llm.attention_ratio(70e9, 80, 8192, 8192)
    assert r == pytest.approx(12 * 80 * 8192 * 8192 / (6 * 70e9))
    # with N = 12 L d^2 exactly, the ratio is s / (6 d)
    L, d, s = 32, 4096, 2048
    assert llm.attention_ratio(12 * L * d * d, L, d, s) == pytest.approx(s / (6 * d))
    assert llm.attention_flops_per_token(L, d, s, training=False) == 4 * L * d * s


def test_ring_allreduce_corrected():
    # 14 GB over 32 GB/s: S/B = 0.4375 s; ring 2(n-1)/n S/B -> 0.4375 (n=2), 0.765625 (n=8), 0.875 (limit)
    assert llm.allreduce_time_s(14e9, 32e9, 2) == pytest.approx(0.4375)
    assert llm.allreduce_time_s(14e9, 32e9, 8) == pytest.approx(0.765625)
    assert llm.allreduce_time_s(14e9, 32e9) == pytest.approx(0.875)
    # 70B FP16 grads over NVLink 4 one way (450 GB/s): 2 x 140 / 450 = 0.622 s; PCIe Gen4 x16 (32 GB/s): 8.75 s
    assert llm.allreduce_time_s(140e9, 450e9) == pytest.approx(0.6222, abs=1e-4)
    assert llm.allreduce_time_s(140e9, 32e9) == pytest.approx(8.75)
    assert llm.allreduce_traffic_bytes(100, 4) == pytest.approx(150)


def test_tp_activation_traffic():
    # 4096 x 8192 x 2 B = 67.1 MB per all-reduce; x 80 layers x 2 = 10.7 GB per forward
    assert llm.tp_activation_bytes_per_forward(80, 8192, 4096) == pytest.approx(80 * 2 * 67_108_864)
    assert llm.tp_activation_bytes_per_forward(80, 8192, 4096) / 1e9 == pytest.approx(10.74, abs=0.01)


def test_mfu_llama2_from_gpu_hours():
    # Llama 2 70B: 2e12 tokens, 1,720,320 A100-80GB GPU-hours, 312 TFLOP/s dense BF16
    # 6 x 70e9 x 2e12 = 8.4e23; / (1,720,320 x 3600 x 312e12) = 0.4347
    assert llm.mfu_from_device_hours(70e9, 2e12, 1_720_320, 312e12) == pytest.approx(0.4347, abs=1e-4)
    assert llm.mfu(1e9, 1000, 1, 6e12 * 2) == pytest.approx(0.5)


def test_memory_rules():
    assert llm.weights_bytes(7e9, 2) == 14e9
    assert llm.weights_bytes(7e9, 0.5) == 3.5e9
    assert llm.inference_vram_bytes(7e9, 2) == pytest.approx(16.8e9)
    assert llm.lora_vram_bytes(7e9) == pytest.approx(21e9)
    assert llm.full_finetune_vram_bytes(7e9) == pytest.approx(140e9)
    assert sum(llm.training_state_bytes(1e9).values()) == pytest.approx(16e9)


def test_decode_batching_turns_compute_bound():
    # H100 SXM dense BF16 989.4e12, 3.35e12 B/s, 2 B/param: critical batch = 989.4 x 2 / (2 x 3.35) = 295.3
    b = llm.decode_critical_batch(70e9, 2, 989.4e12, 3.35e12)
    assert b == pytest.approx(295.34, abs=0.01)
    t1 = llm.decode_throughput(70e9, 1, 2, 989.4e12, 3.35e12)
    assert t1 == pytest.approx(3.35e12 / 140e9)
    # below the critical batch throughput grows linearly; above it is capped at peak / 2N
    assert llm.decode_throughput(70e9, 64, 2, 989.4e12, 3.35e12) == pytest.approx(64 * t1)
    assert llm.decode_throughput(70e9, 1024, 2, 989.4e12, 3.35e12) == pytest.approx(989.4e12 / 140e9)
