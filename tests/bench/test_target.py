"""xpucalc.bench.target: where a micro-benchmark runs (devices, threads, caches) and how its calls are timed."""
from __future__ import annotations

from pathlib import Path

import pytest
from _fake_cuda import US, FakeGpu, fake_cuda

from xpucalc.bench import target

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("bad", ["", "gpu", "cuda:x", "cpu:0", "jax:metal", "mps:1", 3])
def test_resolve_refuses_unknown_devices(bad):
    with pytest.raises(ValueError, match="device"):
        target.resolve(bad)


def test_resolve_cpu_and_missing_cuda():
    t = target.resolve("cpu")
    assert (t.framework, t.kind, t.device, t.accelerator) == ("torch", "cpu", "cpu", False)
    if not torch.cuda.is_available():
        with pytest.raises(RuntimeError, match="CUDA"):
            target.resolve("cuda:0")
        assert target.resolve("auto").kind in ("cpu", "tpu")


def test_cpu_threads_default_one_and_restored():
    before = torch.get_num_threads()
    cpu = target.resolve("cpu")
    with target.cpu_threads(cpu, None) as used:
        assert used == 1 == torch.get_num_threads()
    assert torch.get_num_threads() == before
    with pytest.raises(ValueError, match="threads"):
        with target.cpu_threads(cpu, 0):
            pass
    with pytest.raises(ValueError, match="threads"):
        with target.cpu_threads(target.Target("jax", "tpu", "tpu"), 2):
            pass
    with target.cpu_threads(cpu, 2) as used:
        assert used == 2 == torch.get_num_threads()
    assert torch.get_num_threads() == before
    with target.cpu_threads(target.Target("jax", "tpu", "tpu"), None) as used:
        assert used is None                     # JAX's pool is fixed at start-up: unknown, not set
    with target.cpu_threads(target.Target("torch", "cuda", "cuda:0"), 3) as used:
        assert used == before == torch.get_num_threads()   # an accelerator's host threads are left alone


@pytest.mark.parametrize("text, nbytes", [("48K", 48 * 1024), ("2048K", 2 * 2**20), ("300 MiB", 300 * 2**20),
                                          ("1.5M", 3 * 2**19), ("64", 64)])
def test_parse_size(text, nbytes):
    assert target.parse_size(text) == nbytes


def _fake_sysfs(root: Path) -> Path:
    # two CPUs: private L1d 48K, L1i 32K, L2 2048K each; one L3 of 300 MiB shared by both
    for cpu in (0, 1):
        for idx, (level, kind, size, shared) in enumerate([(1, "Data", "48K", str(cpu)),
                                                            (1, "Instruction", "32K", str(cpu)),
                                                            (2, "Unified", "2048K", str(cpu)),
                                                            (3, "Unified", "307200K", "0-1")]):
            d = root / f"cpu{cpu}" / "cache" / f"index{idx}"
            d.mkdir(parents=True)
            for name, value in (("level", level), ("type", kind), ("size", size), ("shared_cpu_list", shared)):
                (d / name).write_text(f"{value}\n")
    return root


def test_cache_sizes_from_sysfs(tmp_path):
    caches = target.cache_sizes(_fake_sysfs(tmp_path))
    assert sorted(caches) == [1, 2, 3]  # the instruction cache is left out
    assert (caches[1].size_bytes, caches[1].instances) == (48 * 1024, 2)
    assert caches[2].total_bytes == 2 * 2 * 2**20      # two private 2 MiB L2s
    assert caches[3].total_bytes == 300 * 2**20        # one shared L3, counted once
    assert target.llc_bytes(tmp_path) == 300 * 2**20


def test_cache_sizes_fall_back_to_lscpu(tmp_path, monkeypatch):
    text = "L1d cache:  96 KiB (2 instances)\nL2 cache:  4 MiB (2 instances)\nL3 cache:  300 MiB (1 instance)\n"

    class Done:
        stdout = text

    monkeypatch.setattr(target.subprocess, "run", lambda *a, **k: Done())
    caches = target.cache_sizes(tmp_path / "empty")
    assert caches[2].size_bytes == 2 * 2**20 and caches[2].instances == 2
    assert target.llc_bytes(tmp_path / "empty") == 300 * 2**20


@pytest.mark.parametrize("name, key", [
    # torch.cuda.get_device_name() strings
    ("NVIDIA H100 80GB HBM3", "h100-sxm"), ("NVIDIA H100 PCIe", "h100-pcie"), ("NVIDIA H200", "h200"),
    ("NVIDIA A100-SXM4-40GB", "a100-sxm4-40gb"), ("NVIDIA A100-SXM4-80GB", "a100-80gb"), ("NVIDIA B200", "b200"),
    ("NVIDIA L40S", "l40s"), ("NVIDIA GeForce RTX 4090", "rtx-4090"), ("AMD Instinct MI300X", "mi300x"),
    ("  nvidia   H200 ", "h200"),
    # variants the catalog does not hold: no entry, never the neighbouring card's specs
    ("NVIDIA H100 NVL", None), ("NVIDIA GH200 480GB", None), ("NVIDIA H200 NVL", None),
    ("NVIDIA A100-PCIE-40GB", None), ("NVIDIA A100 80GB PCIe", None), ("NVIDIA H100 80GB HBM3 MIG 1g.10gb", None),
    ("NVIDIA GeForce RTX 4090 Laptop GPU", None), ("Tesla T4", None), ("NVIDIA L4", None),
    # JAX TPU device_kind strings
    ("TPU v5 lite", "tpu-v5e"), ("TPU v5e", "tpu-v5e"), ("TPU v5", None), ("TPU v4", None), ("TPU v6 lite", None),
    ("Intel(R) Xeon(R) Processor", None), ("", None)])
def test_catalog_key(name, key):
    assert target.catalog_key(name) == key
    if key is not None:
        from xpucalc.catalog import devices

        assert key in devices.keys()


def test_catalog_names_all_lead_to_catalog_entries():
    from xpucalc.catalog import devices

    assert {key for _, key in target.CATALOG_NAMES} <= set(devices.keys())


def test_calibrate_times_the_second_of_two_waited_calls():
    t = target.resolve("cpu")
    calls = []
    inner, per_call = target.calibrate(lambda: calls.append(1), t, min_sample_s=1.0, limit=7)
    assert len(calls) == 2 and per_call > 0 and inner == 7     # a call of microseconds: the limit
    inner, _ = target.calibrate(lambda: None, t, min_sample_s=1e-12)
    assert inner == 1 and target.inner_for(lambda: None, t, 1e-12) == 1


def test_time_kernel_cpu_groups_inner_calls():
    calls = []
    samples = target.time_kernel(lambda: calls.append(1), target.resolve("cpu"), reps=3, inner=4, warmup_s=0.0,
                                 per_call_s=1.0)   # a long call: no warm-up
    assert len(samples) == 3 and len(calls) == 12 and all(s >= 0 for s in samples)
    with pytest.raises(ValueError, match="inner"):
        target.time_kernel(lambda: None, target.resolve("cpu"), reps=1, inner=0)


def test_time_kernel_cuda_path_groups_calls_between_two_events():
    # each sample: 4 launches of 10 us, the last 2 us kernel ends at 42 us -> 42 / 4 = 10.5 us per call
    gpu = FakeGpu()
    t = target.Target("torch", "cuda", "cuda:1", 1)
    samples = target.time_kernel(gpu.call, t, reps=3, inner=4, warmup_s=1e-3, cuda=fake_cuda(gpu))
    assert samples == pytest.approx([10.5 * US] * 3)
    assert ("device", 1) in gpu.log and ("device", 0) not in gpu.log   # the named device, not the current one
    last = len(gpu.log) - 1 - gpu.log[::-1].index(("device", 1))
    # the timed part: on device 1, wait for it, then per sample: record, 4 calls, record, wait for the end event
    sample = [("record", 1)] + [("fn", 1)] * 4 + [("record", 1), ("event-sync", 1)]
    assert gpu.log[last:] == [("device", 1), ("sync", 1)] + sample * 3
