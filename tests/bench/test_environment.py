"""xpucalc.bench.environment: where a run happened, and the evidence label and repetition counts that follow."""
from __future__ import annotations

import types

import pytest

from xpucalc import bench, evidence
from xpucalc.bench import environment
from xpucalc.bench.environment import Environment


def test_environment_evidence_from_kind():
    cpu = bench.Environment("torch", "2", "cpu", "x", 1)
    gpu = bench.Environment("torch", "2", "cuda", "NVIDIA H200", 1, 141e9, 132, "CUDA 12.8")
    assert cpu.evidence == evidence.CPU_CHECKED and not cpu.accelerator
    assert gpu.evidence == evidence.MEASURED and gpu.accelerator
    assert "SM 개수" in gpu.summary() and "실측" in gpu.summary()
    assert bench.default_reps(gpu) == (50, 500)
    assert bench.default_reps(cpu) == (bench.CPU_WARMUP, bench.CPU_REPS)
    assert cpu.label() == "CPU (x)" and gpu.label() == "NVIDIA H200 x1"


def test_caveat_for_a_low_sm_clock():
    slow = Environment("torch", "x", "cuda", "G", 1, sm_clock_hz=600e6, sm_clock_max_hz=1000e6)   # 60 % < 80 %
    assert len(slow.caveats()) == 1 and "600 MHz" in slow.caveats()[0] and "1000 MHz" in slow.caveats()[0]
    assert Environment("torch", "x", "cuda", "G", 1, sm_clock_hz=800e6, sm_clock_max_hz=1000e6).caveats() == ()


def test_torch_and_jax_environments_of_this_cpu():
    torch = pytest.importorskip("torch")
    env = bench.torch_environment("cpu")
    assert env.kind == "cpu" and env.framework_version == torch.__version__ and env.date
    assert env.threads == torch.get_num_threads() and env.evidence == evidence.CPU_CHECKED
    jax = pytest.importorskip("jax")
    env = bench.jax_environment("cpu")
    assert env.kind == "cpu" and env.framework_version == jax.__version__
    if not torch.cuda.is_available():
        with pytest.raises(RuntimeError, match="CUDA"):
            bench.torch_environment("cuda")
    with pytest.raises(RuntimeError, match="지원하지 않는 torch 장치"):
        bench.torch_environment("xpu")


def test_cuda_environment_records_the_named_device(monkeypatch):
    torch = pytest.importorskip("torch")
    from xpucalc.bench import environment

    asked = []
    props = types.SimpleNamespace(name="Tesla T4", major=7, minor=5, total_memory=15_836_381_184,
                                  multi_processor_count=40, L2_cache_size=4 * 2**20)

    def get_props(i):
        asked.append(i)
        return props
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "get_device_properties", get_props)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 2)
    monkeypatch.setattr(torch.cuda, "current_device", lambda: 0)
    monkeypatch.setattr(environment, "nvidia_smi", lambda i, f: ["550.54.15", "585 MHz", "1590 MHz"])
    env = environment.torch_environment("cuda:1")
    assert asked == [1] and env.device_index == 1
    assert env.compute_capability == (7, 5) and env.l2_bytes == 4 * 2**20
    assert env.driver == "550.54.15" and env.sm_clock_hz == 585e6 and env.sm_clock_max_hz == 1590e6
    assert env.bf16_emulated
    text = env.summary()
    assert "BF16" in text and "에뮬레이션" in text and "7.5" in text and "550.54.15" in text
    a100 = Environment("torch", "x", "cuda", "A100", 1, compute_capability=(8, 0))
    assert not a100.bf16_emulated and a100.caveats() == ()
