"""xpucalc.bench.results: what one grid cell measured, the unsupported record, and both as JSON."""
from __future__ import annotations

import json

import pytest

from xpucalc import bench, evidence
from xpucalc.bench import results

ONE = bench.Condition("torch", "eager", "fp32", 1)


def _t(*samples_s):
    return bench.summarize(samples_s, warn=False)


def test_result_reads_its_condition():
    c = bench.Condition("jax", "compiled", "bf16", 4, 32, 16)
    r = bench.BenchResult(c)
    assert (r.framework, r.path, r.precision, r.m, r.k, r.n) == ("jax", "compiled", "bf16", 4, 32, 16)
    assert r.condition is c and r.key() == ("compiled", "bf16", 4) and r.path_label == "jax.jit (XLA)"
    assert r.ok and r.rounds == 1 and r.device is None and r.evidence == evidence.NOT_MEASURED  # no environment
    assert r.device_median_s is None and r.achieved_flops is None and r.effective_bandwidth is None
    assert r.transfer_ratio is None and r.transfer_ratio_paired is None and r.accuracy is None


def test_result_workload_uses_the_element_size_of_its_precision():
    # M = 128, K = N = 1024: Q_min = s (MK + KN + N + MN) = s (131072 + 1048576 + 1024 + 131072) = 1 311 744 s
    # F = 2 MKN = 268 435 456 FLOP; BF16 s = 2 bytes, FP32 s = 4 bytes (worked by hand)
    bf16 = bench.BenchResult(bench.Condition("torch", "eager", "bf16", 128))
    fp32 = bench.BenchResult(bench.Condition("torch", "eager", "fp32", 128))
    assert bf16.workload.bytes == 2_623_488 and fp32.workload.bytes == 5_246_976
    assert bf16.workload.flops == fp32.workload.flops == 268_435_456
    assert bench.DTYPE_BYTES == {"fp32": 4, "bf16": 2}


def test_rates_from_the_device_median():
    # F = 2 x 2 x 16 x 16 = 1,024 FLOP over 1 ms = 1.024 MFLOP/s; Q_min = 4 (32 + 256 + 16 + 32) = 1,344 B -> 1.344 MB/s
    cpu = bench.Environment("torch", "2", "cpu", "x", 1)
    r = bench.BenchResult(bench.Condition("torch", "eager", "fp32", 2, 16, 16), environment=cpu,
                          device=_t(1e-3, 1e-3, 2e-3))
    assert r.device_median_s == 1e-3 and r.achieved_flops == pytest.approx(1.024e6)
    assert r.effective_bandwidth == pytest.approx(1.344e6) and r.evidence == evidence.CPU_CHECKED


def test_transfer_ratios_median_and_fastest_call():
    # device calls 1, 2, 3, 4, 10 ms; copies 1.1, 2, 3, 9, 9 ms: medians 3 and 3 -> 1.0; fastest 1.1 / 1 = 1.1
    dev = bench.summarize([1e-3, 2e-3, 3e-3, 4e-3, 10e-3], warn=False)
    cop = bench.summarize([1.1e-3, 2e-3, 3e-3, 9e-3, 9e-3], warn=False)
    r = bench.BenchResult(ONE, device=dev, with_transfer=cop)
    assert r.transfer_ratio == pytest.approx(1.0) and r.transfer_ratio_min == pytest.approx(1.1)
    assert bench.BenchResult(ONE).transfer_ratio_min is None
    # paired by round: 1.1/1, 2/2, 3/3, 9/4, 9/10 -> sorted 0.9, 1, 1, 1.1, 2.25 -> median 1.0
    assert r.transfer_ratio_paired == pytest.approx(1.0)
    short = bench.BenchResult(ONE, device=dev, with_transfer=bench.summarize([1e-3], warn=False))
    assert short.transfer_ratio_paired is None


def test_accuracy_is_the_worse_of_first_and_last():
    first = bench.check_accuracy([1.0], [1.0], "fp32")
    last = bench.check_accuracy([1.5], [1.0], "fp32")
    r = bench.BenchResult(ONE, accuracy_first=first, accuracy_last=last)
    assert r.accuracy is last and not r.accuracy.passed
    assert bench.BenchResult(ONE, accuracy_first=first).accuracy is first


def test_unsupported_record_and_reasons():
    env = bench.Environment("jax", "0.7", "cpu", "x", 1)
    r = bench.unsupported(ONE, "TPU 없음", env)
    assert (r.status, r.reason, r.environment, r.ok) == (bench.UNSUPPORTED, "TPU 없음", env, False)
    assert r.evidence == evidence.NOT_MEASURED and r.condition is ONE
    assert bench.unsupported(ONE, "x").environment is None
    assert results.reason(ValueError("bad value\nsecond line")) == "ValueError: bad value"
    assert results.startup_reason(RuntimeError("CUDA 장치가 없습니다")) == "CUDA 장치가 없습니다"
    assert results.startup_reason(OSError("no driver")) == "OSError: no driver"


def test_gpu_timings_named_in_the_labs_order():
    g = bench.GpuTimings(per_call=_t(12e-6), back_to_back=_t(8e-6))
    names = [n for n, _ in g.named()]
    assert names[:3] == ["호출 1회 지연 (L2 웜)", "연속 호출 (L2 웜)", "커널 (CUDA 그래프, L2 웜)"] and len(names) == 6
    assert [t for _, t in g.named()][2:] == [None] * 4 and g.clock == "cuda-event" and g.batch == 1


def test_result_record_is_json_with_every_timing_in_seconds():
    env = bench.Environment("torch", "2.13.0", "cuda", "NVIDIA H200", 1, 141e9, 132, "CUDA 13.0",
                            compute_capability=(9, 0), extra=(("k", "v"),))
    g = bench.GpuTimings(per_call=_t(12e-6), back_to_back=_t(8e-6), batch=50)
    r = bench.BenchResult(bench.Condition("torch", "compiled", "bf16", 128), environment=env, first_call_s=2.5,
                          device=_t(1e-3, 2e-3, 3e-3), with_transfer=_t(4e-3), gpu=g, warmup=5, reps=3,
                          accuracy_first=bench.check_accuracy([1.0], [1.0], "bf16"), settings=(("a", "b"),),
                          notes=("n",), recompiles=0)
    d = json.loads(json.dumps(results.result_record(r)))
    assert (d["framework"], d["path"], d["precision"], d["m"], d["k"], d["n"]) == ("torch", "compiled", "bf16", 128,
                                                                                   1024, 1024)
    assert d["evidence"] == evidence.MEASURED and d["status"] == "ok" and d["first_call_s"] == 2.5
    # samples 1, 2, 3 ms: median 2, min 1, p10 at position 0.2 -> 1.2, q1 1.5, q3 2.5
    assert d["device"] == {"median_s": 2e-3, "min_s": 1e-3, "p10_s": pytest.approx(1.2e-3), "q1_s": 1.5e-3,
                           "q3_s": 2.5e-3, "n": 3, "noisy": True, "bimodal": False}
    assert d["with_transfer"]["median_s"] == 4e-3 and d["with_transfer_pinned"] is None
    assert d["gpu"]["per_call"]["median_s"] == 12e-6 and d["gpu"]["kernel"] is None and d["gpu"]["batch"] == 50
    assert d["accuracy_first"] == 0.0 and d["accuracy_last"] is None and d["accuracy_passed"] is True
    assert d["settings"] == {"a": "b"} and (d["warmup"], d["reps"], d["rounds"]) == (5, 3, 1) and d["notes"] == ["n"]
    assert d["environment"]["name"] == "NVIDIA H200" and d["environment"]["compute_capability"] == [9, 0]
    assert d["environment"]["extra"] == {"k": "v"} and d["recompiles"] == 0
    bad = results.result_record(bench.unsupported(ONE, "x"))
    assert bad["environment"] is None and bad["device"] is None and bad["gpu"] is None and bad["status"] == "unsupported"
    assert results.timing_record(None) is None
