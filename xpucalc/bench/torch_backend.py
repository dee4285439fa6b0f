"""PyTorch runner: Y = ReLU(XW + b) on CPU, CUDA or MPS, eager or ``torch.compile``.

What :func:`run_torch` does, in order:

1. records the environment, sets the CPU thread count (1 by default), FP32
   matmul precision ``"ieee"`` through the current API (restored after), and
   records the BF16 reduced-precision-reduction flag (``xpucalc.bench.settings``);
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
from collections.abc import Callable, Iterator
from typing import Any

from . import cuda_timing
from .accuracy import check_accuracy, make_inputs, reference_output
from .conditions import GPU_BATCH, Condition, Options
from .environment import Environment, torch_device, torch_environment
from .results import BenchResult, GpuTimings, reason, startup_reason, unsupported
from .settings import DEFAULT_CPU_THREADS, fp32_matmul_precision, torch_threads
from .timing import NOISY_THRESHOLD, WARMUP_MIN_S, LastOutput, Timing, interleaved, summarize, time_calls, warm_up

_SETUP_S: dict[str, float] = {}

#: ``torch.compile`` modes whose Inductor output runs as CUDA graphs (cudagraph trees) on a CUDA GPU.
CUDAGRAPH_MODES = ("reduce-overhead", "max-autotune")


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


def layer_module(torch: Any, w: Any, b: Any) -> Any:
    """``nn.Module`` holding W and b as parameters: static for CUDA graphs (no copy into static buffers per replay)."""

    class Layer(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.w = torch.nn.Parameter(w, requires_grad=False)
            self.b = torch.nn.Parameter(b, requires_grad=False)

        def forward(self, x: Any) -> Any:
            return torch.relu(torch.addmm(self.b, x, self.w))

    return Layer()


def _gpu_steady(torch: Any, call: Callable[[], Any], env: Environment, reps: int, batch: int, notes: list[str],
                noisy_threshold: float, label: str, cuda: Any = None, own_graphs: str | None = None) -> GpuTimings:
    """The three GPU numbers of ``call`` (and L2-cold variants) on ``env``'s device.

    Args:
        torch: the ``torch`` module (``empty`` for the flush buffer).
        call: one call of the layer on resident inputs, no arguments.
        env: the environment (``device_index``, ``l2_bytes``).
        reps: per-call repetitions; batch: calls per back-to-back group and per CUDA graph.
        notes: Korean notes of the run, appended to.
        noisy_threshold: IQR/median ratio above which a timing is flagged noisy.
        label: the condition's label for the timings.
        cuda: the CUDA module (``torch.cuda`` when None; tests pass a fake).
        own_graphs: the ``torch.compile`` mode when ``call`` already replays Inductor's CUDA graphs
            (``CUDAGRAPH_MODES``): no CUDA graph is captured on top of them, and a note says so.
    """
    idx = env.device_index
    cuda = cuda or torch.cuda
    capture = own_graphs is None
    three = cuda_timing.three_numbers(call, reps, batch, groups=max(1, reps // batch) * 2, device=idx, cuda=cuda,
                                      capture=capture)
    nbytes = cuda_timing.flush_bytes(env.l2_bytes)
    flush = cuda_timing.l2_flusher(nbytes, f"cuda:{idx}", torch)
    per_cold = cuda_timing.per_call(call, reps, device=idx, flush=flush, cuda=cuda)
    with cuda.device(idx):
        host = time_calls(call, 0, reps, sync=lambda _: cuda.synchronize(idx))
    kernel = kernel_cold = None
    error = three.error
    if not capture:
        notes.append(f"{own_graphs}: torch.compile이 이미 CUDA 그래프로 실행하므로 그 위에 CUDA 그래프를 다시 "
                     "캡처하지 않았습니다(커널 시간 없음). 연속 호출 시간에 그래프 재생이 들어 있습니다")
    if three.kernel is not None:
        kernel = summarize(three.kernel, noisy_threshold, label=f"{label} (CUDA 그래프)")
        try:
            one = cuda_timing.capture_graph(call, 1, device=idx, cuda=cuda)
            kernel_cold = summarize(cuda_timing.graph_replay(one, reps, 1, device=idx, flush=flush, cuda=cuda),
                                    noisy_threshold, label=f"{label} (CUDA 그래프, L2 콜드)")
        except Exception as exc:  # noqa: BLE001 - e.g. reduce-overhead already captures its own graph
            error = exc
    if error is not None:
        notes.append(f"CUDA 그래프로 커널 시간을 재지 못했습니다: {reason(error)}")
    return GpuTimings(summarize(three.per_call, noisy_threshold, label=f"{label} (호출 1회)"),
                      summarize(three.back_to_back, noisy_threshold, label=f"{label} (연속 호출)"), kernel,
                      summarize(per_cold, noisy_threshold, label=f"{label} (호출 1회, L2 콜드)"), kernel_cold,
                      batch, float(nbytes), summarize(host, noisy_threshold, label=f"{label} (호스트 시계)"))


def run_torch(path: str, precision: str, m: int, k: int = 1024, n: int = 1024, *, device: str = "auto",
              warmup: int | None = None, reps: int | None = None, seed: int = 0, compile_mode: str = "default",
              tolerance: float | None = None, noisy_threshold: float = NOISY_THRESHOLD,
              threads: int | None = DEFAULT_CPU_THREADS, rounds: int | None = None, warmup_s: float = WARMUP_MIN_S,
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
    cond = Condition("torch", path, precision, m, k, n)
    opts = Options(warmup=warmup, reps=reps, seed=seed, tolerance=tolerance, noisy_threshold=noisy_threshold,
                   rounds=rounds, warmup_s=warmup_s, cold_compile=cold_compile, batch=batch)
    try:
        import torch
    except ImportError:
        return unsupported(cond, "PyTorch가 설치되어 있지 않습니다")
    with torch_threads(torch, threads):
        try:
            env = torch_environment(device)
        except Exception as exc:  # noqa: BLE001
            return unsupported(cond, startup_reason(exc))
        with fp32_matmul_precision(torch, precision) as settings:
            return _run(torch, env, cond, opts, device, compile_mode, settings)


def _run(torch: Any, env: Environment, cond: Condition, opts: Options, device: str, compile_mode: str,
         settings: tuple[tuple[str, str], ...]) -> BenchResult:
    warmup, reps = opts.counts(env)
    dev = f"cuda:{env.device_index}" if env.kind == "cuda" else torch_device(device)
    dtype = torch.float32 if cond.precision == "fp32" else torch.bfloat16
    x_np, w_np, b_np = make_inputs(cond.m, cond.k, cond.n, opts.seed)
    y_ref = reference_output(x_np, w_np, b_np)
    notes: list[str] = list(env.caveats())
    try:
        setup_s = process_setup(torch, dev)
        x_host = torch.from_numpy(x_np).to(dtype)
        x = x_host.to(dev)
        w = torch.from_numpy(w_np).to(dtype).to(dev)
        b = torch.from_numpy(b_np).to(dtype).to(dev)
    except Exception as exc:  # noqa: BLE001 - e.g. bf16 on a device without it
        return unsupported(cond, f"{cond.precision}/{dev} 텐서 생성 실패: {reason(exc)}", env)
    sync = _waiter(torch, env.kind, dev)
    compiled = cond.path == "compiled"
    if compiled:
        try:
            torch._dynamo.reset()
            before = compile_counters()
            module = torch.compile(layer_module(torch, w, b), mode=compile_mode, dynamic=False)
        except Exception as exc:  # noqa: BLE001
            return unsupported(cond, f"torch.compile 사용 불가: {reason(exc)}", env)

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
            what = "torch.compile 실패" if compiled else "실행 실패"
            return unsupported(cond, f"{what}: {reason(exc)}", env)
        first = time.perf_counter() - t0
        after_first = compile_counters() if compiled else {}
        acc_first = check_accuracy(y.float().cpu().numpy(), y_ref, cond.precision, opts.tolerance)
        device_call = LastOutput(lambda: fn(x))
        own_graphs = compile_mode if compiled and env.kind == "cuda" and compile_mode in CUDAGRAPH_MODES else None
        steady = _Steady(torch, env, cond, opts, warmup, reps, sync, notes, own_graphs=own_graphs)
        dev_t, xfer = steady.measure(device_call, fn, x_host, dev, dtype)
        acc_last = check_accuracy(steady.last_output.float().cpu().numpy(), y_ref, cond.precision, opts.tolerance)
        end = compile_counters() if compiled else {}

    recompiles = cache_hit = graph_skips = None
    if compiled and after_first and end:
        recompiles, cache_hit, graph_skips = _compile_report(before, after_first, end, compile_mode, skips, notes)
    cold = None
    if opts.cold_compile and compiled:
        from .coldstart import cold_start

        report = cold_start(cond, device=dev, compile_mode=compile_mode)
        cold = report.first_call_s
        if cold is None:
            notes.append(f"새 프로세스의 콜드 컴파일 측정에 실패했습니다: {report.reason}")
    if env.kind == "cpu":
        notes.append("CPU 실행: 호스트와 장치가 같아 '전송 포함'에도 실제 복사가 없습니다")
    return BenchResult(cond, environment=env, first_call_s=first, device=dev_t,
                       with_transfer=summarize(xfer, opts.noisy_threshold, label=f"{cond.label} (전송 포함)"),
                       accuracy_first=acc_first, recompiles=recompiles, compile_cache_hit=cache_hit, warmup=warmup,
                       reps=reps, notes=tuple(notes), accuracy_last=acc_last, gpu=steady.gpu,
                       with_transfer_pinned=steady.pinned, first_call_cold_s=cold, setup_s=setup_s,
                       settings=settings, cudagraph_skips=graph_skips, rounds=steady.rounds)


def _waiter(torch: Any, kind: str, dev: str) -> Callable[..., None]:
    """The wait that ends a timed call on ``kind``: CUDA or MPS synchronize; nothing on a CPU."""
    def sync(_: Any = None) -> None:
        if kind in ("cuda", "rocm"):
            torch.cuda.synchronize(dev)
        elif kind == "mps":
            torch.mps.synchronize()

    return sync


class _Steady:
    """The steady-state boundaries of one condition: device-resident and with copies (and pinned copies on CUDA).

    After :meth:`measure`: ``gpu`` (the three GPU numbers, CUDA only), ``pinned`` (CUDA only), ``rounds``
    and ``last_output``, a copy of the last device-resident output made right after the device-resident
    timing, before any other call: with ``torch.compile(mode="reduce-overhead")`` a later call replays the
    CUDA graph into the same output memory, and reading an earlier output raises ("accessing tensor output
    of CUDAGraphs that has been overwritten by a subsequent run").

    ``own_graphs``: the compile mode when the calls replay Inductor's CUDA graphs (see :func:`_gpu_steady`);
    ``cuda``: the CUDA module (``torch.cuda`` when None; tests pass a fake).
    """

    def __init__(self, torch: Any, env: Environment, cond: Condition, opts: Options, warmup: int, reps: int,
                 sync: Callable[..., None], notes: list[str], *, own_graphs: str | None = None,
                 cuda: Any = None) -> None:
        self.torch, self.env, self.cond, self.opts = torch, env, cond, opts
        self.warmup, self.reps, self.sync, self.notes = warmup, reps, sync, notes
        self.own_graphs, self.cuda = own_graphs, cuda
        self.gpu: GpuTimings | None = None
        self.pinned: Timing | None = None
        self.rounds = 1
        self.last_output: Any = None

    def measure(self, device_call: Callable[[], Any], fn: Callable[[Any], Any], x_host: Any, dev: str,
                dtype: Any) -> tuple[Timing, list[float]]:
        """(device-resident timing, with-copies samples in seconds) of the layer ``fn`` on the environment's device.

        ``device_call`` calls ``fn`` on the resident X; the copies move ``x_host`` to ``dev`` and Y back.
        """
        opts, label, warmup, reps = self.opts, self.cond.label, self.warmup, self.reps

        def copies() -> Any:
            return fn(x_host.to(dev)).to("cpu")

        if self.env.kind == "cuda":
            idx = self.env.device_index
            cuda = self.cuda or self.torch.cuda
            warm_up(device_call, self.sync, min_time_s=opts.warmup_s, min_calls=warmup)
            self.gpu = _gpu_steady(self.torch, device_call, self.env, reps, opts.batch, self.notes,
                                   opts.noisy_threshold, label, cuda=cuda, own_graphs=self.own_graphs)
            self.last_output = _kept(device_call.value)
            xfer = cuda_timing.per_call(copies, reps, device=idx, cuda=cuda)
            x_pin = x_host.pin_memory()
            y_pin = self.torch.empty((self.cond.m, self.cond.n), dtype=dtype, pin_memory=True)

            def pinned_call() -> Any:
                return y_pin.copy_(fn(x_pin.to(dev, non_blocking=True)), non_blocking=True)

            warm_up(pinned_call, self.sync, min_time_s=opts.warmup_s / 4, min_calls=warmup)
            self.pinned = summarize(cuda_timing.per_call(pinned_call, reps, device=idx, cuda=cuda),
                                    opts.noisy_threshold, label=f"{label} (전송 포함, pinned)")
            return self.gpu.per_call, xfer
        if self.env.kind == "cpu":
            self.rounds = opts.rounds if opts.rounds is not None else reps  # one call of each boundary per round
            s = interleaved({"device": device_call, "copies": copies}, warmup, reps, self.rounds,
                            warmup_s=opts.warmup_s)
            self.last_output = _kept(device_call.value)   # a CPU has no CUDA graphs: not overwritten meanwhile
            return summarize(s["device"], opts.noisy_threshold, label=f"{label} (장치 상주)"), s["copies"]
        dev_t = summarize(time_calls(device_call, warmup, reps, sync=self.sync, warmup_s=opts.warmup_s),
                          opts.noisy_threshold, label=f"{label} (장치 상주)")
        self.last_output = _kept(device_call.value)
        return dev_t, time_calls(copies, warmup, reps, sync=self.sync)


def _kept(output: Any) -> Any:
    """A copy of ``output`` that no later call can overwrite (``clone()``; the object itself if it has none)."""
    clone = getattr(output, "clone", None)
    return clone() if callable(clone) else output


def _compile_report(before: dict[str, int], after_first: dict[str, int], end: dict[str, int], compile_mode: str,
                    skips: _SkipLog, notes: list[str]) -> tuple[int, bool, tuple[str, ...] | None]:
    """(recompiles, compile-cache hit, CUDA-graph skips) from the compile counters; appends the notes they call for."""
    recompiles = end["graphs"] - after_first["graphs"]
    cache_hit = after_first["cache_hit"] > before.get("cache_hit", 0)
    if recompiles:
        notes.append(f"첫 호출 뒤 재컴파일 {recompiles}회: 반복 측정에 컴파일 시간이 섞였을 수 있습니다")
    notes.append("첫 호출이 디스크 컴파일 캐시를 사용했습니다(웜 캐시): 콜드 컴파일 시간이 아닙니다" if cache_hit
                 else "첫 호출에 컴파일이 들어 있습니다(디스크 캐시 적중 없음)")
    graph_skips = None
    if compile_mode in CUDAGRAPH_MODES:
        n_skips = end.get("cudagraph_skips", 0) - before.get("cudagraph_skips", 0)
        graph_skips = tuple(skips.messages) or ((f"CUDA 그래프 건너뜀 {n_skips}회 (이유: TORCH_LOGS=cudagraphs로 "
                                                 "다시 실행하면 보입니다)",) if n_skips else ())
        if graph_skips:
            notes.append(f"{compile_mode}: CUDA 그래프를 쓰지 않았습니다 ({'; '.join(graph_skips)})")
    return recompiles, cache_hit, graph_skips


__all__ = ["compile_counters", "process_setup", "run_torch"]
