"""Tests of the timing harness xpucalc.bench on a CPU (no GPU or TPU needed)."""
from __future__ import annotations

import math
import statistics
import time
import warnings

import numpy as np
import pytest

from xpucalc import bench, evidence

# tiny repetition counts on a shared CPU are often noisy; the flag itself is tested on synthetic timings
pytestmark = pytest.mark.filterwarnings("ignore::xpucalc.bench.NoisyTimingWarning")

torch = pytest.importorskip("torch")
jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")


# --------------------------------------------------------------------------- statistics

def test_summarize_quartiles_by_hand():
    # sorted: 1 2 3 4 5 6 7 8 9 ms; inclusive quartiles: position (n-1)/4 = 2 -> 3 ms, 3*(n-1)/4 = 6 -> 7 ms
    xs = [9, 1, 8, 2, 7, 3, 6, 4, 5]
    t = bench.summarize([x * 1e-3 for x in xs], warn=False)
    assert t.median_s == pytest.approx(5e-3)
    assert t.q1_s == pytest.approx(3e-3)
    assert t.q3_s == pytest.approx(7e-3)
    assert t.iqr_s == pytest.approx(4e-3)
    assert t.rel_iqr == pytest.approx(0.8)
    assert t.noisy
    assert t.n == 9


def test_summarize_interpolates_between_order_statistics():
    # n = 4: positions 0.75 and 2.25 -> q1 = 10 + 0.75*(20-10) = 17.5, q3 = 30 + 0.25*(40-30) = 32.5
    t = bench.summarize([10.0, 20.0, 30.0, 40.0], warn=False)
    assert (t.q1_s, t.median_s, t.q3_s) == pytest.approx((17.5, 25.0, 32.5))


def test_noisy_flag_threshold_and_warning():
    # 100 samples: 80 of them 1.00 ms; both quartiles (positions 24.75 and 74.25) are 1.00 ms -> IQR 0
    quiet = [1e-3] * 40 + [0.98e-3] * 10 + [1.02e-3] * 10 + [1e-3] * 40
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        t = bench.summarize(quiet)
    assert not t.noisy and t.rel_iqr == pytest.approx(0.0)

    # n = 9, inclusive quartiles at sorted positions 2 and 6:
    # q1 = 0.96, q3 = 1.04, median 1.00 -> IQR/median = 8 % (not noisy)
    calm = [1.2, 0.8, 0.9, 0.96, 1.0, 1.0, 1.0, 1.04, 1.3]  # sorted: .8 .9 .96 1 1 1 1.04 1.2 1.3
    t = bench.summarize(calm, warn=False)
    assert (t.q1_s, t.median_s, t.q3_s) == pytest.approx((0.96, 1.0, 1.04))
    assert t.rel_iqr == pytest.approx(0.08) and not t.noisy
    # q1 = 0.94, q3 = 1.06 -> 12 % > 10 %: noisy, and a warning
    noisy = [1.2, 0.8, 0.9, 0.94, 1.0, 1.0, 1.0, 1.06, 1.3]
    t = bench.summarize(noisy, warn=False)
    assert (t.q1_s, t.q3_s) == pytest.approx((0.94, 1.06))
    assert t.rel_iqr == pytest.approx(0.12) and t.noisy
    with pytest.warns(bench.NoisyTimingWarning, match="IQR/median"):
        bench.summarize(noisy, label="x")
    # a looser threshold accepts it
    assert not bench.summarize(noisy, noisy_threshold=0.2, warn=False).noisy


@pytest.mark.parametrize("bad", [[], [1.0, -1.0], [float("nan")], [float("inf")]])
def test_summarize_rejects_bad_samples(bad):
    with pytest.raises(ValueError, match="samples_s"):
        bench.summarize(bad, warn=False)


# --------------------------------------------------------------------------- bad input

@pytest.mark.parametrize("kwargs, name", [
    ({"warmup": 0, "reps": 0}, "reps"),
    ({"warmup": -1, "reps": 5}, "warmup"),
    ({"warmup": 1, "reps": 2.5}, "reps"),
    ({"warmup": True, "reps": 5}, "warmup"),
])
def test_time_calls_bad_counts_name_the_argument(kwargs, name):
    with pytest.raises(ValueError, match=name):
        bench.time_calls(lambda: None, **kwargs)


@pytest.mark.parametrize("runner", [bench.run_torch, bench.run_jax])
@pytest.mark.parametrize("kwargs, name", [
    ({"reps": 0}, "reps"),
    ({"warmup": -1}, "warmup"),
    ({"m": 0}, "m"),
    ({"path": "graph"}, "path"),
    ({"precision": "fp16"}, "precision"),
    ({"noisy_threshold": 0}, "noisy_threshold"),
])
def test_runners_bad_input_raise_value_error(runner, kwargs, name):
    args = {"path": "eager", "precision": "fp32", "m": 1}
    args.update(kwargs)
    with pytest.raises(ValueError, match=name):
        runner(args.pop("path"), args.pop("precision"), args.pop("m"), k=8, n=8, **args)


# --------------------------------------------------------------------------- it waits

def test_jax_timing_waits_for_async_work():
    """Dispatch returns before the matmul finishes; timing with block_until_ready must see the full time."""
    x = jnp.ones((1536, 1536), jnp.float32)
    f = jax.jit(lambda a: a @ a)
    f(x).block_until_ready()
    no_wait = bench.summarize(bench.time_calls(lambda: f(x), 2, 15), warn=False)
    jax.block_until_ready(f(x))
    waited = bench.summarize(bench.time_calls(lambda: f(x), 2, 15, sync=lambda y: y.block_until_ready()),
                             warn=False)
    # a 1536^3 matmul is ~7 GFLOP: tens of ms on a CPU, while a dispatch takes well under 1 ms
    assert no_wait.median_s < waited.median_s / 5
    assert waited.median_s > 1e-3


def test_time_calls_puts_sync_inside_the_timed_interval():
    def slow_sync(_):
        time.sleep(0.005)
    t = bench.summarize(bench.time_calls(lambda: None, 0, 5, sync=slow_sync), warn=False)
    assert t.median_s >= 0.005


# --------------------------------------------------------------------------- agrees with torch.utils.benchmark

def harness_vs_timer(rounds: int = 24) -> float:
    """Median of the harness / median of torch.utils.benchmark.Timer on one 512x512 matmul.

    The two are interleaved in short rounds (harness 15 calls, Timer ~0.05 s) and each side's samples
    are pooled, so a change in machine load hits both alike.
    """
    from torch.utils import benchmark as tb

    torch.manual_seed(0)
    a, b = torch.randn(512, 512), torch.randn(512, 512)
    # One thread on both sides (Timer's default): a multi-threaded matmul on a 2-core machine that other
    # processes share slows down in bursts whenever one of its threads is descheduled.
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        timer = tb.Timer("a @ b", globals={"a": a, "b": b}, num_threads=1)
        mine: list[float] = []
        theirs: list[float] = []
        bench.time_calls(lambda: a @ b, 20, 1)
        for _ in range(rounds):
            mine += bench.time_calls(lambda: a @ b, 1, 15)
            theirs += timer.blocked_autorange(min_run_time=0.05).times
    finally:
        torch.set_num_threads(threads)
    return statistics.median(mine) / statistics.median(theirs)


def test_median_agrees_with_torch_utils_benchmark():
    """Harness median vs torch.utils.benchmark.Timer median on the same kernel: within the issue's band
    0.8-1.25 (tools/bench-consistency reports the figure; on a quiet machine it is within a few %)."""
    ratios = []
    for _ in range(3):  # a burst of load from another process can still spoil one attempt; each is a full check
        ratios.append(harness_vs_timer())
        if 0.8 <= ratios[-1] <= 1.25:
            break
    assert 0.8 <= ratios[-1] <= 1.25, f"harness/Timer median ratios {ratios}"


# --------------------------------------------------------------------------- accuracy

def test_check_accuracy_known_inputs():
    ref = np.array([[0.0, 1.0], [2.0, 3.0]])
    acc = bench.check_accuracy(ref + np.array([[0, 5e-5], [0, -2e-5]]), ref, "fp32")
    assert acc.max_abs_err == pytest.approx(5e-5) and acc.passed and acc.verdict == "통과"
    acc = bench.check_accuracy(ref + 2e-4, ref, "fp32")
    assert not acc.passed and acc.verdict == "실패"
    assert bench.check_accuracy(ref + 0.05, ref, "bf16").passed
    assert not bench.check_accuracy(ref + 0.07, ref, "bf16").passed
    assert not bench.check_accuracy(ref + 0.05, ref, tolerance=0.01).passed
    nan = ref.copy()
    nan[0, 0] = np.nan
    assert not bench.check_accuracy(nan, ref, "fp32").passed
    with pytest.raises(ValueError, match="shape"):
        bench.check_accuracy(ref[:1], ref, "fp32")
    with pytest.raises(ValueError, match="precision"):
        bench.check_accuracy(ref, ref)
    with pytest.raises(ValueError, match="tolerance"):
        bench.check_accuracy(ref, ref, tolerance=-1)


def test_tolerances_separate_fp32_tf32_bf16():
    """The fp32 tolerance passes FP32 and catches TF32-rounded inputs; bf16 passes a BF16 product."""
    x, w, b = bench.make_inputs(128, 1024, 1024, seed=0)
    ref = bench.reference_output(x, w, b)
    y32 = np.maximum(x @ w + b, 0)
    assert bench.check_accuracy(y32, ref, "fp32").passed

    def round_mantissa(a, bits):  # keep `bits` explicit mantissa bits (round to nearest)
        m, e = np.frexp(a.astype(np.float64))
        return np.ldexp(np.round(m * 2.0 ** (bits + 1)) / 2.0 ** (bits + 1), e)
    y_tf32 = np.maximum(round_mantissa(x, 10) @ round_mantissa(w, 10) + b, 0)
    assert not bench.check_accuracy(y_tf32, ref, "fp32").passed
    y_bf16 = round_mantissa(np.maximum(round_mantissa(x, 7) @ round_mantissa(w, 7) + round_mantissa(b, 7), 0), 7)
    acc = bench.check_accuracy(y_bf16, ref, "bf16")
    assert acc.passed and acc.max_abs_err > bench.UNIT_ROUNDOFF["bf16"]


def test_make_inputs_deterministic_and_scaled():
    a = bench.make_inputs(4, 64, 32, seed=3)
    b = bench.make_inputs(4, 64, 32, seed=3)
    for u, v in zip(a, b):
        np.testing.assert_array_equal(u, v)
    assert [t.shape for t in a] == [(4, 64), (64, 32), (32,)]
    assert all(t.dtype == np.float32 for t in a)


# --------------------------------------------------------------------------- runs on CPU

def _check_ok(r, framework, path, precision):
    assert r.ok, r.reason
    assert (r.framework, r.path, r.precision) == (framework, path, precision)
    assert r.environment.kind == "cpu"
    assert r.evidence == evidence.CPU_CHECKED
    assert r.accuracy.passed
    assert r.first_call_s > 0 and r.device.median_s > 0 and r.with_transfer.median_s > 0
    assert r.device.n == 4 and r.with_transfer.n == 4
    assert r.accuracy_first.passed and r.accuracy_last.passed
    assert r.achieved_flops == pytest.approx(r.workload.flops / r.device.median_s)
    assert r.effective_bandwidth == pytest.approx(r.workload.bytes / r.device.median_s)


@pytest.mark.parametrize("precision", bench.PRECISIONS)
@pytest.mark.parametrize("path", bench.PATHS)
def test_run_jax_cpu(path, precision):
    r = bench.run_jax(path, precision, 8, 256, 128, platform="cpu", warmup=1, reps=4)
    _check_ok(r, "jax", path, precision)
    assert r.recompiles == (0 if path == "compiled" else None)


@pytest.mark.parametrize("precision", bench.PRECISIONS)
def test_run_torch_eager_cpu(precision):
    r = bench.run_torch("eager", precision, 8, 256, 128, device="cpu", warmup=1, reps=4)
    _check_ok(r, "torch", "eager", precision)
    assert r.recompiles is None


def test_run_torch_sets_ieee_fp32_and_restores_the_callers_precision():
    """After set_float32_matmul_precision("medium") the run uses IEEE FP32 and leaves "medium" readable
    (reading it raised RuntimeError when the harness flipped the legacy allow_tf32 flag)."""
    before = torch.get_float32_matmul_precision()
    torch.set_float32_matmul_precision("medium")
    try:
        r = bench.run_torch("eager", "fp32", 2, 16, 16, device="cpu", warmup=0, reps=1, warmup_s=0)
        assert dict(r.settings)["cuda.matmul.fp32_precision"] == "ieee"
        assert "cuda.matmul.allow_bf16_reduced_precision_reduction" in dict(r.settings)
        assert torch.get_float32_matmul_precision() == "medium"
        assert torch.backends.cuda.matmul.fp32_precision == "tf32"
    finally:
        torch.set_float32_matmul_precision(before)


def test_cpu_run_uses_one_thread_by_default_and_restores():
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        r = bench.run_torch("eager", "fp32", 2, 16, 16, device="cpu", warmup=0, reps=2, warmup_s=0)
        assert r.environment.threads == 1 and torch.get_num_threads() == 2
        r = bench.run_torch("eager", "fp32", 2, 16, 16, device="cpu", warmup=0, reps=2, warmup_s=0, threads=2)
        assert r.environment.threads == 2
        assert "CPU 스레드 2" in bench.results_table([r]).line
    finally:
        torch.set_num_threads(before)


def test_accuracy_is_checked_on_the_last_timed_output_too(monkeypatch):
    """A kernel that is right on the first call and wrong later (a race, a stale buffer) must fail."""
    real = torch.addmm
    calls = [0]

    def drifting(*args, **kwargs):
        calls[0] += 1
        y = real(*args, **kwargs)
        return y if calls[0] == 1 else y + 0.5
    monkeypatch.setattr(torch, "addmm", drifting)
    r = bench.run_torch("eager", "fp32", 4, 32, 32, device="cpu", warmup=0, reps=3, warmup_s=0)
    assert r.accuracy_first.passed and not r.accuracy_last.passed
    assert not r.accuracy.passed and r.accuracy.max_abs_err == pytest.approx(0.5, rel=1e-3)
    assert "실패" in bench.result_row(r)[RESULT_COL_ACC]


RESULT_COL_ACC = bench.RESULT_HEADERS.index("최대 절대 오차 (판정)")


def test_cpu_boundaries_are_interleaved_in_rounds():
    r = bench.run_torch("eager", "fp32", 2, 16, 16, device="cpu", warmup=0, reps=20, warmup_s=0)
    assert r.rounds == 20 and r.device.n == r.with_transfer.n == 20  # default: one call of each per round
    r = bench.run_jax("eager", "fp32", 2, 16, 16, platform="cpu", warmup=0, reps=6, rounds=3, warmup_s=0)
    assert r.rounds == 3 and r.device.n == 6


def test_one_time_setup_is_measured_apart():
    r = bench.run_torch("eager", "bf16", 2, 16, 16, device="cpu", warmup=0, reps=1, warmup_s=0)
    assert r.setup_s is not None and r.setup_s > 0
    assert any("프로세스 1회 준비" in n for n in bench.results_table([r]).notes)


def test_run_torch_median_agrees_with_torch_utils_benchmark():
    """run_torch's device-resident median against torch.utils.benchmark.Timer on the lab's layer (FP32, M = 128,
    K = N = 1024), one thread: a second method. The two alternate in rounds and each side's samples are pooled,
    so a change of machine load hits both. Random or wrong times, or a boundary that times something else,
    fall outside 0.67-1.5x."""
    from torch.utils import benchmark as tb

    x_np, w_np, b_np = bench.make_inputs(128, 1024, 1024)
    x, w, b = (torch.from_numpy(a) for a in (x_np, w_np, b_np))
    timer = tb.Timer("torch.relu(torch.addmm(b, x, w))", globals={"torch": torch, "x": x, "w": w, "b": b},
                     num_threads=1)
    ratios = []
    for _ in range(3):
        mine: list[float] = []
        theirs: list[float] = []
        for _ in range(4):
            r = bench.run_torch("eager", "fp32", 128, 1024, 1024, device="cpu", warmup=1, reps=8, warmup_s=0.03)
            mine += r.device.samples_s
            theirs += timer.blocked_autorange(min_run_time=0.1).times
        ratios.append(statistics.median(mine) / statistics.median(theirs))
        if 0.67 <= ratios[-1] <= 1.5:
            break
    assert 0.67 <= ratios[-1] <= 1.5, ratios


def test_jax_timed_loop_waits_for_the_device():
    """run_jax's median against the same jitted call timed here with block_until_ready, alternating in rounds:
    a harness that stops the clock at dispatch (no block_until_ready) reads a small fraction of it."""
    x_np, w_np, b_np = bench.make_inputs(512, 1024, 1024)
    x, w, b = (jnp.asarray(a) for a in (x_np, w_np, b_np))
    f = jax.jit(lambda x, w, b: jnp.maximum(jnp.dot(x, w, precision=jax.lax.Precision.HIGHEST) + b, 0))
    f(x, w, b).block_until_ready()
    ratios = []
    for _ in range(3):
        mine: list[float] = []
        ref: list[float] = []
        for _ in range(3):
            ref += bench.time_calls(lambda: f(x, w, b), 1, 4, sync=lambda y: y.block_until_ready())
            r = bench.run_jax("compiled", "fp32", 512, 1024, 1024, platform="cpu", warmup=1, reps=4, warmup_s=0)
            mine += r.device.samples_s
        ratios.append(statistics.median(mine) / statistics.median(ref))
        if 0.5 <= ratios[-1] <= 2.0:
            break
    assert 0.5 <= ratios[-1] <= 2.0, ratios


def test_cold_first_call_in_a_fresh_process():
    from xpucalc.bench import coldstart

    env = coldstart.fresh_cache_env("/tmp/x", base={"PATH": "/bin"})
    assert env["TORCHINDUCTOR_CACHE_DIR"].startswith("/tmp/x/") and env["JAX_ENABLE_COMPILATION_CACHE"] == "false"
    assert env["TRITON_CACHE_DIR"] != env["TORCHINDUCTOR_CACHE_DIR"] and env["PATH"] == "/bin"
    before = jax.config.jax_enable_compilation_cache
    r = bench.run_jax("compiled", "fp32", 4, 16, 16, platform="cpu", warmup=0, reps=1, warmup_s=0, cold_compile=True)
    assert r.first_call_cold_s is not None and r.first_call_cold_s > 0
    assert dict(r.settings)["jax_enable_compilation_cache"] in ("True", "False")
    assert jax.config.jax_enable_compilation_cache == before  # disabled for the first call only, then restored


def test_reduce_overhead_reports_skipped_cuda_graphs():
    r = bench.run_torch("compiled", "fp32", 4, 64, 64, device="cpu", compile_mode="reduce-overhead", warmup=0,
                        reps=2, warmup_s=0)
    if not r.ok:  # no C++ compiler for inductor here: a record, not a crash
        assert r.status == bench.UNSUPPORTED and "torch.compile" in r.reason
        return
    assert r.cudagraph_skips and "CUDA 그래프" in r.cudagraph_skips[0]
    assert any("reduce-overhead" in n for n in r.notes)


def test_run_torch_compiled_cpu_ok_or_unsupported():
    r = bench.run_torch("compiled", "fp32", 4, 64, 64, device="cpu", warmup=1, reps=4)
    if r.ok:
        _check_ok(r, "torch", "compiled", "fp32")
        assert r.recompiles == 0
    else:  # e.g. no C++ compiler for inductor: a record, not a crash
        assert r.status == bench.UNSUPPORTED and r.reason


def test_compile_counters_notice_a_recompile():
    torch._dynamo.reset()
    f = torch.compile(lambda x: torch.relu(x) + 1, backend="eager", dynamic=False)
    f(torch.ones(4))
    first = bench.compile_counters()
    f(torch.ones(4))  # same guards: no new graph
    assert bench.compile_counters()["graphs"] == first["graphs"]
    f(torch.ones(4, dtype=torch.float64))  # dtype guard fails: recompiles
    assert bench.compile_counters()["graphs"] == first["graphs"] + 1


# --------------------------------------------------------------------------- unsupported, never a crash

def test_missing_backends_are_records():
    r = bench.run_torch("eager", "fp32", 1, 16, 16, device="cuda") if not torch.cuda.is_available() else None
    if r is not None:
        assert r.status == bench.UNSUPPORTED and "CUDA" in r.reason
        assert r.evidence == evidence.NOT_MEASURED
    try:
        jax.devices("tpu")
        has_tpu = True
    except RuntimeError:
        has_tpu = False
    if not has_tpu:
        r = bench.run_jax("compiled", "bf16", 1, 16, 16, platform="tpu")
        assert r.status == bench.UNSUPPORTED and "tpu" in r.reason
        row = bench.result_row(r)
        assert "미지원" in row[4] and row[-1] == evidence.NOT_MEASURED


def test_failing_torch_compile_is_a_record(monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("no compiler here\nsecond line")
    monkeypatch.setattr(torch, "compile", broken)
    r = bench.run_torch("compiled", "fp32", 1, 16, 16, device="cpu", warmup=0, reps=1)
    assert r.status == bench.UNSUPPORTED
    assert "torch.compile" in r.reason and "no compiler here" in r.reason and "second" not in r.reason


def test_missing_framework_is_a_record(monkeypatch):
    import builtins

    real_import = builtins.__import__

    def fake_import(name, *args, **kwargs):
        if name == "jax" or name.startswith("jax."):
            raise ImportError("no jax")
        return real_import(name, *args, **kwargs)
    monkeypatch.setattr(builtins, "__import__", fake_import)
    r = bench.run_jax("eager", "fp32", 1, 16, 16)
    assert r.status == bench.UNSUPPORTED and "JAX" in r.reason


# --------------------------------------------------------------------------- environment and table

def test_environment_evidence_from_kind():
    cpu = bench.Environment("torch", "2", "cpu", "x", 1)
    gpu = bench.Environment("torch", "2", "cuda", "NVIDIA H200", 1, 141e9, 132, "CUDA 12.8")
    assert cpu.evidence == evidence.CPU_CHECKED and not cpu.accelerator
    assert gpu.evidence == evidence.MEASURED and gpu.accelerator
    assert "SM 개수" in gpu.summary() and "실측" in gpu.summary()
    assert bench.default_reps(gpu) == (50, 500)
    assert bench.default_reps(cpu) == (bench.CPU_WARMUP, bench.CPU_REPS)
    env = bench.torch_environment("cpu")
    assert env.kind == "cpu" and env.framework_version == torch.__version__ and env.date
    env = bench.jax_environment("cpu")
    assert env.kind == "cpu" and env.framework_version == jax.__version__


def test_results_table_has_evidence_and_notes():
    ok = bench.run_jax("eager", "fp32", 2, 32, 32, platform="cpu", warmup=0, reps=3)
    bad = bench.unsupported("jax", "compiled", "bf16", 1, 32, 32, "TPU 없음")
    t = bench.results_table([ok, bad], caption="c")
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


def test_run_grid_order_and_statistics_module_agrees():
    rs = bench.run_grid("jax", ms=(2, 1), k=16, n=16, platform="cpu", warmup=0, reps=3)
    assert [r.key() for r in rs] == [(p, q, m) for p in bench.PATHS for q in bench.PRECISIONS for m in (2, 1)]
    r = rs[0]
    assert r.device.median_s == statistics.median(r.device.samples_s)
    with pytest.raises(ValueError, match="framework"):
        bench.run_grid("tensorflow")


def test_result_workload_uses_the_element_size_of_its_precision():
    # M = 128, K = N = 1024: Q_min = s (MK + KN + N + MN) = s (131072 + 1048576 + 1024 + 131072) = 1 311 744 s
    # F = 2 MKN = 268 435 456 FLOP; BF16 s = 2 bytes, FP32 s = 4 bytes (worked by hand)
    bf16 = bench.BenchResult("torch", "eager", "bf16", 128)
    fp32 = bench.BenchResult("torch", "eager", "fp32", 128)
    assert bf16.workload.bytes == 2_623_488 and fp32.workload.bytes == 5_246_976
    assert bf16.workload.flops == fp32.workload.flops == 268_435_456
    assert bench.DTYPE_BYTES == {"fp32": 4, "bf16": 2}


def test_transfer_ratios_median_and_fastest_call():
    # device calls 1, 2, 3, 4, 10 ms; copies 1.1, 2, 3, 9, 9 ms: medians 3 and 3 -> 1.0; fastest 1.1 / 1 = 1.1
    dev = bench.summarize([1e-3, 2e-3, 3e-3, 4e-3, 10e-3], warn=False)
    cop = bench.summarize([1.1e-3, 2e-3, 3e-3, 9e-3, 9e-3], warn=False)
    r = bench.BenchResult("torch", "eager", "fp32", 1, device=dev, with_transfer=cop)
    assert r.transfer_ratio == pytest.approx(1.0) and r.transfer_ratio_min == pytest.approx(1.1)
    assert bench.BenchResult("torch", "eager", "fp32", 1).transfer_ratio_min is None
    # paired by round: 1.1/1, 2/2, 3/3, 9/4, 9/10 -> sorted 0.9, 1, 1, 1.1, 2.25 -> median 1.0
    assert r.transfer_ratio_paired == pytest.approx(1.0)
    short = bench.BenchResult("torch", "eager", "fp32", 1, device=dev, with_transfer=bench.summarize([1e-3], warn=False))
    assert short.transfer_ratio_paired is None


def test_results_table_columns_show_their_own_boundary():
    # independent numbers: device 1 ms each call, with copies 3 ms, first call 250 ms; F = 2*2*16*16 = 1024 FLOP
    env = bench.Environment("torch", "2", "cpu", "x", 1, threads=1)
    r = bench.BenchResult("torch", "eager", "fp32", 2, 16, 16, environment=env, first_call_s=0.25,
                          device=bench.summarize([1e-3, 1e-3, 1e-3], warn=False),
                          with_transfer=bench.summarize([3e-3, 3e-3, 3e-3], warn=False),
                          accuracy_first=bench.check_accuracy([1.0], [1.0], "fp32"), warmup=1, reps=3)
    rt = bench.results_table([r])
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
