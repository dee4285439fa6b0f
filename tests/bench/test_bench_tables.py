"""The labs' result tables read on a phone: shared facts once above, narrow tables, L2 warm / cold in one cell."""
from __future__ import annotations

from xpucalc import bench, evidence
from xpucalc.bench.report import gpu_row


def _t(us: float):
    return bench.summarize([us * 1e-6] * 3, warn=False)


GPU_ENV = bench.Environment("torch", "2.13.0", "cuda", "NVIDIA H200", 1, 141e9, 132, "CUDA 13.0")


def test_gpu_table_folds_warm_and_cold_and_says_the_clock_once():
    # independent numbers in µs: per call 12 (cold 15), back to back 8, kernel 5 (cold 7), host clock 14, copies 40 / 30
    g = bench.GpuTimings(per_call=_t(12), back_to_back=_t(8), kernel=_t(5), per_call_l2_cold=_t(15),
                         kernel_l2_cold=_t(7), per_call_host=_t(14), batch=50, clock="cuda-event")
    r = bench.BenchResult("torch", "compiled", "bf16", 128, environment=GPU_ENV, gpu=g, device=_t(12),
                          with_transfer=_t(40), with_transfer_pinned=_t(30), recompiles=2)
    rt = bench.gpu_table([r], caption="c")
    (t,) = rt.tables
    assert t.headers == bench.GPU_HEADERS and len(t.headers) == 7
    assert t.rows == [["torch.compile · BF16 · M=128", "12.0 / 15.0", "8.0", "5.0 / 7.0", "14.0", "40.0", "30.0"]]
    assert "시계: CUDA 이벤트" in rt.line and "NVIDIA H200 x1" in rt.line and f"근거: {evidence.MEASURED}" in rt.line
    assert "재컴파일: torch.compile · BF16 · M=128 2회" in rt.notes


def test_a_condition_without_gpu_numbers_is_dashes_and_mixed_evidence_gets_a_column():
    bad = bench.unsupported("torch", "eager", "fp32", 1, 16, 16, "CUDA 없음")
    assert gpu_row(bad) == ["Eager · FP32 · M=1"] + ["—"] * 6
    ok = bench.BenchResult("torch", "eager", "fp32", 2, 16, 16, environment=GPU_ENV, device=_t(10),
                           with_transfer=_t(20), accuracy_first=bench.check_accuracy([1.0], [1.0], "fp32"))
    rt = bench.gpu_table([ok, bad])
    assert rt.tables[0].column("근거") == [evidence.MEASURED, evidence.NOT_MEASURED] and "근거" not in rt.line
    rt = bench.results_table([ok, bad])
    assert rt.table("시간").rows[1] == ["Eager · FP32 · M=1", "미지원: CUDA 없음", "—", "—", "—"]
    assert rt.table("처리율").headers[-1] == "근거"


def test_two_devices_get_a_device_column():
    cpu = bench.Environment("torch", "2.13.0", "cpu", "x", 1, threads=1)
    acc = bench.check_accuracy([1.0], [1.0], "fp32")
    rs = [bench.BenchResult("torch", "eager", "fp32", 2, 16, 16, environment=env, device=_t(10), with_transfer=_t(20),
                            accuracy_first=acc) for env in (cpu, GPU_ENV)]
    rates = bench.results_table(rs).table("처리율")
    assert rates.column("장치") == ["CPU (x)", "NVIDIA H200 x1"]
