"""xpucalc.render.bench_tables: a lab's results read on a phone (shared facts once above, narrow tables, L2 warm /
cold in one cell), the flat record, and the reference runs with their roofline floors. Every cell is worked out
from numbers given here, not from a run."""
from __future__ import annotations

import math

from xpucalc import bench, evidence
from xpucalc.bench import reference
from xpucalc.render import bench_tables
from xpucalc.render.bench_tables import gpu_row

RESULT_COL_ACC = bench_tables.RESULT_HEADERS.index("최대 절대 오차 (판정)")


def _t(us: float):
    return bench.summarize([us * 1e-6] * 3, warn=False)


GPU_ENV = bench.Environment("torch", "2.13.0", "cuda", "NVIDIA H200", 1, 141e9, 132, "CUDA 13.0")
CPU_ENV = bench.Environment("torch", "2.13.0", "cpu", "x", 1, threads=2)
PASS = bench.check_accuracy([1.0], [1.0], "fp32")


def test_gpu_table_folds_warm_and_cold_and_says_the_clock_once():
    # independent numbers in µs: per call 12 (cold 15), back to back 8, kernel 5 (cold 7), host clock 14, copies 40 / 30
    g = bench.GpuTimings(per_call=_t(12), back_to_back=_t(8), kernel=_t(5), per_call_l2_cold=_t(15),
                         kernel_l2_cold=_t(7), per_call_host=_t(14), batch=50, clock="cuda-event")
    r = bench.BenchResult(bench.Condition("torch", "compiled", "bf16", 128), environment=GPU_ENV, gpu=g, device=_t(12),
                          with_transfer=_t(40), with_transfer_pinned=_t(30), recompiles=2)
    rt = bench_tables.gpu_table([r], caption="c")
    (t,) = rt.tables
    assert t.headers == bench_tables.GPU_HEADERS and len(t.headers) == 7
    assert t.rows == [["torch.compile · BF16 · M=128", "12.0 / 15.0", "8.0", "5.0 / 7.0", "14.0", "40.0", "30.0"]]
    assert "시계: CUDA 이벤트" in rt.line and "NVIDIA H200 x1" in rt.line and f"근거: {evidence.MEASURED}" in rt.line
    assert "재컴파일: torch.compile · BF16 · M=128 2회" in rt.notes


def test_a_condition_without_gpu_numbers_is_dashes_and_mixed_evidence_gets_a_column():
    bad = bench.unsupported(bench.Condition("torch", "eager", "fp32", 1, 16, 16), "CUDA 없음")
    assert gpu_row(bad) == ["Eager · FP32 · M=1"] + ["—"] * 6
    ok = bench.BenchResult(bench.Condition("torch", "eager", "fp32", 2, 16, 16), environment=GPU_ENV, device=_t(10),
                           with_transfer=_t(20), accuracy_first=bench.check_accuracy([1.0], [1.0], "fp32"))
    rt = bench_tables.gpu_table([ok, bad])
    assert rt.tables[0].column("근거") == [evidence.MEASURED, evidence.NOT_MEASURED] and "근거" not in rt.line
    rt = bench_tables.results_table([ok, bad])
    assert rt.table("시간").rows[1] == ["Eager · FP32 · M=1", "미지원: CUDA 없음", "—", "—", "—"]
    assert rt.table("처리율").headers[-1] == "근거"


def test_two_devices_get_a_device_column():
    cpu = bench.Environment("torch", "2.13.0", "cpu", "x", 1, threads=1)
    acc = bench.check_accuracy([1.0], [1.0], "fp32")
    rs = [bench.BenchResult(bench.Condition("torch", "eager", "fp32", 2, 16, 16), environment=env, device=_t(10), with_transfer=_t(20),
                            accuracy_first=acc) for env in (cpu, GPU_ENV)]
    rates = bench_tables.results_table(rs).table("처리율")
    assert rates.column("장치") == ["CPU (x)", "NVIDIA H200 x1"]


def test_results_table_has_evidence_and_notes():
    env = bench.Environment("jax", "0.7.2", "cpu", "x", 1)
    ok = bench.BenchResult(bench.Condition("jax", "eager", "fp32", 2, 32, 32), environment=env, first_call_s=0.01,
                           device=_t(10), with_transfer=_t(12), accuracy_first=bench.check_accuracy([1.0], [1.0], "fp32"))
    bad = bench.unsupported(bench.Condition("jax", "compiled", "bf16", 1, 32, 32), "TPU 없음")
    t = bench_tables.results_table([ok, bad], caption="c")
    rates, times = t.table("처리율"), t.table("시간")
    assert rates.headers[-1] == "근거"  # the rows' evidence differs: a column instead of the shared line
    assert rates.column("근거") == [evidence.CPU_CHECKED, evidence.NOT_MEASURED] and "근거" not in t.line
    assert [c.split("M=")[1] for c in times.column("조건")] == ["2", "1"]
    assert times.column("최초 1회 (ms)")[1] == "미지원: TPU 없음"
    assert "통과" in rates.column("최대 절대 오차 (판정)")[0]
    assert "장치: CPU" in t.line and "jax" in t.line  # the device once, above the tables
    assert "장치" not in rates.headers + times.headers
    assert "<table" in t.to_html() and t.to_html().count("<table") == 2 and "Table(" not in repr(t)
    assert math.isclose(float(rates.column("산술 강도 I (FLOP/B)")[0]), round(ok.workload.intensity, 2))


def test_results_table_columns_show_their_own_boundary():
    # independent numbers: device 1 ms each call, with copies 3 ms, first call 250 ms; F = 2*2*16*16 = 1024 FLOP
    env = bench.Environment("torch", "2", "cpu", "x", 1, threads=1)
    r = bench.BenchResult(bench.Condition("torch", "eager", "fp32", 2, 16, 16), environment=env, first_call_s=0.25,
                          device=bench.summarize([1e-3, 1e-3, 1e-3], warn=False),
                          with_transfer=bench.summarize([3e-3, 3e-3, 3e-3], warn=False),
                          accuracy_first=bench.check_accuracy([1.0], [1.0], "fp32"), warmup=1, reps=3)
    rt = bench_tables.results_table([r])
    t, rates = rt.table("시간"), rt.table("처리율")
    assert t.column("조건") == ["Eager · FP32 · M=2"]
    assert t.column("최초 1회 (ms)") == ["250.000"]
    assert t.column("장치 상주 (ms)") == ["1.0000 (0%)"]  # the median (IQR/median); equal samples: IQR 0
    assert t.column("전송 포함 (ms)") == ["3.0000 (0%)"]
    assert t.column("전송 포함/장치 상주") == ["3.00"]
    assert rates.column("장치 상주 최소 · p10 (ms)") == ["1.0000 · 1.0000"]
    assert rates.column("처리율 (TFLOP/s)") == ["0.000"] and rt.line.endswith(f"근거: {evidence.CPU_CHECKED}")
    # Q_min = 4 (2*16 + 16*16 + 16 + 2*16) = 4 * 336 = 1344 B over 1 ms = 1.344 MB/s -> "0.0" GB/s
    assert rates.column("유효 대역폭 (GB/s)") == ["0.0"]


def test_shared_line_and_notes_say_threads_setup_reps_and_recompiles():
    # threads 2 in the line; one-time setup 1.7 ms; 1 + 3 repetitions in 3 rounds; two compiled conditions, 0 recompiles
    rs = [bench.BenchResult(bench.Condition("torch", p, "fp32", 2, 16, 16), environment=CPU_ENV, first_call_s=0.1,
                            device=_t(10), with_transfer=_t(10), accuracy_first=PASS, warmup=1, reps=3, rounds=3,
                            setup_s=0.0017, recompiles=0 if p == "compiled" else None, notes=("n1", "n1", "n2"))
          for p in ("eager", "compiled", "compiled")]
    rt = bench_tables.results_table(rs)
    assert "CPU 스레드 2" in rt.line and "torch 2.13.0" in rt.line
    assert rt.notes[:2] == ["n1", "n2"]   # each remark once
    assert "반복(워밍업 최소 횟수 + 측정 횟수, 라운드): 1 + 3, 라운드 3번" in rt.notes
    assert any(n.startswith("프로세스 1회 준비") and n.endswith(": 1.7 ms") for n in rt.notes)
    assert "재컴파일: 컴파일 경로의 2개 조건 모두 0회" in rt.notes


def test_result_row_is_the_flat_record():
    fail = bench.BenchResult(bench.Condition("torch", "eager", "fp32", 4, 32, 32), environment=CPU_ENV, first_call_s=0.1,
                             device=_t(10), with_transfer=_t(10), accuracy_first=PASS,
                             accuracy_last=bench.check_accuracy([1.5], [1.0], "fp32"))
    row = bench_tables.result_row(fail)
    assert len(row) == len(bench_tables.RESULT_HEADERS) and "실패" in row[RESULT_COL_ACC]
    assert row[:3] == ["PyTorch Eager", "FP32", "4"] and row[-1] == evidence.CPU_CHECKED and row[-3] == "해당 없음"
    bad = bench_tables.result_row(bench.unsupported(bench.Condition("jax", "compiled", "bf16", 1, 16, 16), "TPU 없음"))
    assert "미지원" in bad[4] and bad[-1] == evidence.NOT_MEASURED and bad[-2] == "—"
    assert bad[RESULT_COL_ACC] == "미지원: TPU 없음"


def test_table_renders_with_evidence_and_source():
    t = bench_tables.reference_table(reference.load("a100-sxm4-40gb"), caption="A100")
    assert len(t.rows) == 8
    assert set(t.column("근거")) == {evidence.MEASURED}
    assert t.column("장치 상주, 호출 1회 중앙값 (ms)")[4] == "0.0625"
    assert any("커널 시간이 아닙니다" in n for n in t.notes)
    assert any("2026-10-19" in n and "2.11.0+cu130" in n for n in t.notes)
    assert len(bench_tables.reference_table().rows) == 16   # default: every run


def test_floor_table_by_hand():
    # A100 BF16 eager M=128: floor 1.6871 us, 62.5 / 1.6871 = 37x; TPU v5e jax.jit BF16 M=128: 3.2033 us, 51x;
    # TPU v5e has no FP32 peak in the catalog: no floor
    tab = bench_tables.floor_table()
    assert tab.column("루프라인 하한 (µs)")[4] == "1.69" and tab.column("잰 값 / 하한 (배)")[4] == "37"
    assert tab.column("루프라인 하한 (µs)")[14] == "3.20" and tab.column("잰 값 / 하한 (배)")[14] == "51"
    assert tab.column("루프라인 하한 (µs)")[8] == "카탈로그에 없음"
    assert tab.column("장치 · 경로")[4] == "A100 · PyTorch Eager" and tab.column("하한을 정한 항")[4] == "메모리"
    assert tab.column("잰 값: 호출 1회 중앙값 (µs)")[4] == "62.5" and tab.column("근거")[4] == "실측 / 분석 계산"
    # 2,623,488 B / 62.5 us = 41.98 GB/s = 2.7 % of 1,555 GB/s
    assert tab.column("Q_min / 잰 값 ÷ 사양 대역폭")[4] == "2.7%"
    assert len(bench_tables.floor_table(reference.load("tpu-v5e")).rows) == 8


def test_source_ids_reach_the_reader_as_titles():
    from xpucalc.render.bench_tables import reference_table, source_title
    assert source_title("week05-s11.3") == "5주차 교안 §11.3의 실행 기록"
    assert source_title("nccl-1530") == "nccl-1530"
    notes = " ".join(reference_table().notes)
    assert "week05-s" not in notes and "5주차 교안 §11.3의 실행 기록" in notes
