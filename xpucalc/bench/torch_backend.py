"""PyTorch runner: Y = ReLU(XW + b) on CPU, CUDA or MPS, eager or ``torch.compile``.

What :func:`run_torch` does, in order:

1. records the environment, sets the CPU thread count (1 by default), FP32
   matmul precision ``"ieee"`` through the current API (restored after), and
   records the BF16 reduced-precision-reduction flag;
2. runs the one-time process setup on its own (:func:`process_setup`), so it is
   not charged to whichever condition happens to run first;
3. times the first call (compile included for ``torch.compile``) and checks its
   output; optionally also a cold compile in a fresh process (``coldstart``);
4. steady state: on a CPU, device-resident and with-copies calls interleaved in
   rounds after a time-based warm-up; on a CUDA GPU, the three GPU numbers
   (``cuda_timing``), L2-warm and L2-cold, and pageable and pinned copies;
5. checks the last timed output too, and reports recompiles and CUDA-graph skips.
"""
from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Iterator
from typing import Any

from . import cuda_timing
from .accuracy import check_accuracy, make_inputs, reference_output
from .environment import default_reps, torch_device, torch_environment
from .results import BenchResult, GpuTimings, reason, unsupported, validate
from .timing import NOISY_THRESHOLD, WARMUP_MIN_S, LastOutput, interleaved, summarize, time_calls, warm_up

#: CPU threads PyTorch uses during a run unless told otherwise (one: see the measurements page).
DEFAULT_THREADS = 1
#: Calls per back-to-back group and per CUDA graph.
GPU_BATCH = 50

_SETUP_S: dict[str, float] = {}


def compile_counters() -> dict[str, int]:
    """Snapshot of torch.compile's counters: ``graphs`` compiled so far, on-disk ``cache_hit`` s, ``cudagraph_skips``.

    Read from ``torch._dynamo.utils.counters`` (a private API: returns ``{}`` if it
    is missing). :func:`run_torch` takes one snapshot after the first call and one
    after the timed loops; a larger ``graphs`` in the second means the steady-state
    loop recompiled (a guard failed), and the run reports it.
    """
    try:
        from torch._dynamo.utils import counters
    except Exception:  # noqa: BLE001 - private API; absent means "unknown"
        return {}
    return {"graphs": int(counters["stats"]["unique_graphs"]),
            "cache_hit": int(counters["inductor"]["fxgraph_cache_hit"])
            + int(counters["aot_autograd"]["autograd_cache_hit"]),
            "cudagraph_skips": int(counters["inductor"]["cudagraph_skips"])}


@contextlib.contextmanager
def matmul_precision(torch: Any, precision: str) -> Iterator[tuple[tuple[str, str], ...]]:
    """Inside: FP32 matmuls in IEEE FP32 (no TF32) when ``precision == "fp32"``; restored on exit.

    Uses the current API, ``torch.backends.cuda.matmul.fp32_precision = "ieee"``
    (PyTorch >= 2.9), and falls back to ``torch.set_float32_matmul_precision("highest")``
    on older versions; it never reads or writes the legacy ``allow_tf32`` flag, so a
    caller who used ``set_float32_matmul_precision`` is left in a consistent state.
    Yields the settings in force, for the record (incl. the BF16
    reduced-precision-reduction flag, which is read, not changed).
    """
    matmul = torch.backends.cuda.matmul
    new_api = hasattr(matmul, "fp32_precision")
    before = matmul.fp32_precision if new_api else torch.get_float32_matmul_precision()
    bf16_rr = getattr(matmul, "allow_bf16_reduced_precision_reduction", None)
    try:
        if precision == "fp32":
            if new_api:
                matmul.fp32_precision = "ieee"
            else:
                torch.set_float32_matmul_precision("highest")
        now = matmul.fp32_precision if new_api else torch.get_float32_matmul_precision()
        key = "cuda.matmul.fp32_precision" if new_api else "float32_matmul_precision"
        yield ((key, str(now)), ("cuda.matmul.allow_bf16_reduced_precision_reduction", str(bf16_rr)))
    finally:
        if new_api:
            matmul.fp32_precision = before
        else:
            torch.set_float32_matmul_precision(before)


@contextlib.contextmanager
def cpu_threads(torch: Any, threads: int | None) -> Iterator[int]:
    """Inside: ``torch.set_num_threads(threads)`` (None: leave as is); restored on exit. Yields the count in force."""
    before = torch.get_num_threads()
    try:
        if threads is not None:
            torch.set_num_threads(threads)
        yield torch.get_num_threads()
    finally:
        torch.set_num_threads(before)


def process_setup(torch: Any, dev: str) -> float:
    """One-time setup of ``dev`` in this process (context, BLAS handles, first kernels), seconds; cached.

    The first run in a process pays for starting the runtime (CUDA context, cuBLAS
    handles, CPU BLAS thread pools, lazy module imports). Doing it here, once per
    device and timed on its own, keeps it out of the first condition's first call.
    Later calls return the time measured the first time.
    """
    if dev in _SETUP_S:
        return _SETUP_S[dev]
    t0 = time.perf_counter()
    for dtype in (torch.float32, torch.bfloat16):
        a = torch.ones(8, 8, dtype=dtype, device=dev)
        torch.relu(torch.addmm(a[0], a, a))
    if dev.startswith("cuda"):
        torch.cuda.synchronize(dev)
    _SETUP_S[dev] = time.perf_counter() - t0
    return _SETUP_S[dev]


class _SkipLog(logging.Handler):
    """Collects the messages of torch.compile's cudagraph logger (why CUDA graphs were skipped)."""

    NAME = "torch._inductor.cudagraph_utils.__cudagraphs"

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        msg = record.getMessage().strip()
        if msg and msg not in self.messages:
            self.messages.append(msg)

    @contextlib.contextmanager
    def attached(self) -> Iterator[_SkipLog]:
        log = logging.getLogger(self.NAME)
        saved = (log.level, log.disabled)
        log.addHandler(self)
        log.disabled = False
        if log.level == logging.NOTSET or log.level > logging.WARNING:
            log.setLevel(logging.WARNING)
        try:
            yield self
        finally:
            log.removeHandler(self)
            log.setLevel(saved[0])
            log.disabled = saved[1]


def _layer_module(torch: Any, w: Any, b: Any) -> Any:
    """``nn.Module`` holding W and b as parameters: static for CUDA graphs (no copy into static buffers per replay)."""

    class Layer(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.w = torch.nn.Parameter(w, requires_grad=False)
            self.b = torch.nn.Parameter(b, requires_grad=False)

        def forward(self, x: Any) -> Any:
            return torch.relu(torch.addmm(self.b, x, self.w))

    return Layer()


def _gpu_steady(torch: Any, call: Any, env: Any, reps: int, batch: int, notes: list[str],
                noisy_threshold: float, label: str, cuda: Any = None) -> GpuTimings:
    """The three GPU numbers of ``call`` (and L2-cold variants) on ``env``'s device."""
    idx = env.device_index
    cuda = cuda or torch.cuda
    timed = max(1, reps // batch) * 2
    per = cuda_timing.per_call(call, reps, device=idx, cuda=cuda)
    b2b = cuda_timing.back_to_back(call, timed, batch, device=idx, cuda=cuda)
    nbytes = cuda_timing.flush_bytes(env.l2_bytes)
    flush = cuda_timing.l2_flusher(nbytes, f"cuda:{idx}", torch)
    per_cold = cuda_timing.per_call(call, reps, device=idx, flush=flush, cuda=cuda)
    with cuda.device(idx):
        host = time_calls(call, 0, reps, sync=lambda _: cuda.synchronize(idx))
    kernel = kernel_cold = None
    try:
        graph = cuda_timing.capture_graph(call, batch, device=idx, cuda=cuda)
        kernel = summarize(cuda_timing.graph_replay(graph, timed, batch, device=idx, cuda=cuda), noisy_threshold,
                           label=f"{label} (CUDA 그래프)")
        one = cuda_timing.capture_graph(call, 1, device=idx, cuda=cuda)
        kernel_cold = summarize(cuda_timing.graph_replay(one, reps, 1, device=idx, flush=flush, cuda=cuda),
                                noisy_threshold, label=f"{label} (CUDA 그래프, L2 콜드)")
    except Exception as exc:  # noqa: BLE001 - e.g. reduce-overhead already captures its own graph
        notes.append(f"CUDA 그래프로 커널 시간을 재지 못했습니다: {reason(exc)}")
    return GpuTimings(summarize(per, noisy_threshold, label=f"{label} (호출 1회)"),
                      summarize(b2b, noisy_threshold, label=f"{label} (연속 호출)"), kernel,
                      summarize(per_cold, noisy_threshold, label=f"{label} (호출 1회, L2 콜드)"), kernel_cold,
                      batch, float(nbytes), summarize(host, noisy_threshold, label=f"{label} (호스트 시계)"))


def run_torch(path: str, precision: str, m: int, k: int = 1024, n: int = 1024, *, device: str = "auto",
              warmup: int | None = None, reps: int | None = None, seed: int = 0, compile_mode: str = "default",
              tolerance: float | None = None, noisy_threshold: float = NOISY_THRESHOLD,
              threads: int | None = DEFAULT_THREADS, rounds: int | None = None, warmup_s: float = WARMUP_MIN_S,
              cold_compile: bool = False, batch: int = GPU_BATCH) -> BenchResult:
    """Run Y = ReLU(XW + b) with PyTorch and measure the boundaries.

    Args:
        path: ``"eager"`` or ``"compiled"`` (``torch.compile(module, mode=compile_mode, dynamic=False)``
            after ``torch._dynamo.reset()``; W and b are the module's parameters).
        precision: ``"fp32"`` (matmul precision ``"ieee"``, restored after) or ``"bf16"``.
        m, k, n: X [m, k], W [k, n].
        device: ``"auto"`` (CUDA, else MPS, else CPU), ``"cuda"``, ``"cuda:1"``, ``"mps"`` or ``"cpu"``.
        warmup, reps: untimed and timed repetitions per boundary; None picks
            :func:`~xpucalc.bench.default_reps` (50 + 500 on an accelerator, 3 + 30 on a CPU).
        seed: input seed (:func:`~xpucalc.bench.make_inputs`).
        compile_mode: ``torch.compile`` mode (``"default"``, ``"reduce-overhead"``, ...).
        tolerance: max-abs-error tolerance; None uses ``TOLERANCE``.
        noisy_threshold: IQR/median ratio above which a timing is flagged noisy.
        threads: CPU threads for the run (default 1; None: PyTorch's current setting), restored after.
        rounds: interleaved rounds on a CPU (None: as many as ``reps``, one call of each boundary per round).
        warmup_s: least time-based warm-up per boundary, seconds.
        cold_compile: also time the first call in a fresh process with empty compile caches (compiled path).
        batch: calls per back-to-back group and per CUDA graph (GPU).

    Returns:
        a :class:`~xpucalc.bench.BenchResult`; ``status="unsupported"`` with a reason when torch,
        the device, the dtype or the compiler is not available.
    """
    mm, kk, nn = validate(path, precision, m, k, n, warmup, reps, noisy_threshold)
    try:
        import torch
    except ImportError:
        return unsupported("torch", path, precision, mm, kk, nn, "PyTorch가 설치되어 있지 않습니다")
    with cpu_threads(torch, threads):
        try:
            env = torch_environment(device)
        except Exception as exc:  # noqa: BLE001
            return unsupported("torch", path, precision, mm, kk, nn, str(exc) if isinstance(exc, RuntimeError)
                               else reason(exc))
        with matmul_precision(torch, precision) as settings:
            return _run(torch, env, path, precision, mm, kk, nn, device, warmup, reps, seed, compile_mode,
                        tolerance, noisy_threshold, rounds, warmup_s, cold_compile, batch, settings)


def _run(torch: Any, env: Any, path: str, precision: str, mm: int, kk: int, nn: int, device: str,
         warmup: int | None, reps: int | None, seed: int, compile_mode: str, tolerance: float | None,
         noisy_threshold: float, rounds: int | None, warmup_s: float, cold_compile: bool, batch: int,
         settings: tuple[tuple[str, str], ...]) -> BenchResult:
    w_, r_ = default_reps(env)
    warmup = w_ if warmup is None else warmup
    reps = r_ if reps is None else reps
    dev = torch_device(device)
    if env.kind == "cuda":
        dev = f"cuda:{env.device_index}"
    dtype = torch.float32 if precision == "fp32" else torch.bfloat16
    x_np, w_np, b_np = make_inputs(mm, kk, nn, seed)
    y_ref = reference_output(x_np, w_np, b_np)
    notes: list[str] = list(env.caveats())
    try:
        setup_s = process_setup(torch, dev)
        x_host = torch.from_numpy(x_np).to(dtype)
        x = x_host.to(dev)
        w = torch.from_numpy(w_np).to(dtype).to(dev)
        b = torch.from_numpy(b_np).to(dtype).to(dev)
    except Exception as exc:  # noqa: BLE001 - e.g. bf16 on a device without it
        return unsupported("torch", path, precision, mm, kk, nn, f"{precision}/{dev} 텐서 생성 실패: {reason(exc)}",
                           env)
    kind = env.kind

    def sync(_: Any = None) -> None:
        if kind in ("cuda", "rocm"):
            torch.cuda.synchronize(dev)
        elif kind == "mps":
            torch.mps.synchronize()

    if path == "compiled":
        try:
            torch._dynamo.reset()
            before = compile_counters()
            module = torch.compile(_layer_module(torch, w, b), mode=compile_mode, dynamic=False)
        except Exception as exc:  # noqa: BLE001
            return unsupported("torch", path, precision, mm, kk, nn, f"torch.compile 사용 불가: {reason(exc)}", env)

        def fn(x_: Any) -> Any:
            return module(x_)
    else:
        before = {}

        def fn(x_: Any) -> Any:
            return torch.relu(torch.addmm(b, x_, w))

    skips = _SkipLog()
    with torch.inference_mode(), skips.attached():
        sync()
        t0 = time.perf_counter()
        try:
            y = fn(x)
            sync()
        except Exception as exc:  # noqa: BLE001
            what = "torch.compile 실패" if path == "compiled" else "실행 실패"
            return unsupported("torch", path, precision, mm, kk, nn, f"{what}: {reason(exc)}", env)
        first = time.perf_counter() - t0
        after_first = compile_counters() if path == "compiled" else {}
        acc_first = check_accuracy(y.float().cpu().numpy(), y_ref, precision, tolerance)
        label = f"torch {path} {precision} M={mm}"
        device_call = LastOutput(lambda: fn(x))
        gpu = pinned = None
        if kind == "cuda":
            warm_up(device_call, sync, min_time_s=warmup_s, min_calls=warmup)
            gpu = _gpu_steady(torch, device_call, env, reps, batch, notes, noisy_threshold, label)
            dev_t = gpu.per_call
            xfer = cuda_timing.per_call(lambda: fn(x_host.to(dev)).to("cpu"), reps, device=env.device_index)
            x_pin = x_host.pin_memory()
            y_pin = torch.empty((mm, nn), dtype=dtype, pin_memory=True)
            pinned_call = (lambda: y_pin.copy_(fn(x_pin.to(dev, non_blocking=True)), non_blocking=True))
            warm_up(pinned_call, sync, min_time_s=warmup_s / 4, min_calls=warmup)
            pinned = summarize(cuda_timing.per_call(pinned_call, reps, device=env.device_index), noisy_threshold,
                               label=f"{label} (전송 포함, pinned)")
            n_rounds = 1
        elif kind == "cpu":
            n_rounds = rounds if rounds is not None else reps  # one call of each boundary per round
            s = interleaved({"device": device_call, "copies": lambda: fn(x_host.to(dev)).to("cpu")},
                            warmup, reps, n_rounds, warmup_s=warmup_s)
            dev_t = summarize(s["device"], noisy_threshold, label=f"{label} (장치 상주)")
            xfer = s["copies"]
        else:
            n_rounds = 1
            dev_t = summarize(time_calls(device_call, warmup, reps, sync=sync, warmup_s=warmup_s), noisy_threshold,
                              label=f"{label} (장치 상주)")
            xfer = time_calls(lambda: fn(x_host.to(dev)).to("cpu"), warmup, reps, sync=sync)
        acc_last = check_accuracy(device_call.value.float().cpu().numpy(), y_ref, precision, tolerance)
        end = compile_counters() if path == "compiled" else {}

    recompiles = cache_hit = None
    graph_skips = None
    if path == "compiled" and after_first and end:
        recompiles = end["graphs"] - after_first["graphs"]
        cache_hit = after_first["cache_hit"] > before.get("cache_hit", 0)
        if recompiles:
            notes.append(f"첫 호출 뒤 재컴파일 {recompiles}회: 반복 측정에 컴파일 시간이 섞였을 수 있습니다")
        notes.append("첫 호출이 디스크 컴파일 캐시를 사용했습니다(웜 캐시): 콜드 컴파일 시간이 아닙니다" if cache_hit
                     else "첫 호출에 컴파일이 들어 있습니다(디스크 캐시 적중 없음)")
        if compile_mode in ("reduce-overhead", "max-autotune"):
            n_skips = end.get("cudagraph_skips", 0) - before.get("cudagraph_skips", 0)
            graph_skips = tuple(skips.messages) or ((f"CUDA 그래프 건너뜀 {n_skips}회 (이유: TORCH_LOGS=cudagraphs로 "
                                                     "다시 실행하면 보입니다)",) if n_skips else ())
            if graph_skips:
                notes.append(f"{compile_mode}: CUDA 그래프를 쓰지 않았습니다 ({'; '.join(graph_skips)})")
    cold = None
    if cold_compile and path == "compiled":
        from .coldstart import cold_first_call

        cold = cold_first_call("torch", path, precision, mm, kk, nn, device=dev, compile_mode=compile_mode)
        if cold is None:
            notes.append("새 프로세스의 콜드 컴파일 측정에 실패했습니다")
    if kind == "cpu":
        notes.append("CPU 실행: 호스트와 장치가 같아 '전송 포함'에도 실제 복사가 없습니다")
    return BenchResult("torch", path, precision, mm, kk, nn, "ok", "", env, first, dev_t,
                       summarize(xfer, noisy_threshold, label=f"{label} (전송 포함)"), acc_first, recompiles,
                       cache_hit, warmup, reps, tuple(notes), accuracy_last=acc_last, gpu=gpu,
                       with_transfer_pinned=pinned, first_call_cold_s=cold, setup_s=setup_s, settings=settings,
                       cudagraph_skips=graph_skips, rounds=n_rounds)


__all__ = ["DEFAULT_THREADS", "GPU_BATCH", "compile_counters", "cpu_threads", "matmul_precision", "process_setup",
           "run_torch"]
