"""The lab's layer Y = ReLU(XW + b) over M, its launch floor, and what the profiler says ran.

* ``layer_sweep`` -- the layer at M = 1 ... 8192 (W [k, n] fixed): time per
  call (calls back to back, as a kernel's throughput), achieved FLOP/s and the
  intensity F / Q_min of each point, ready to plot on a roofline.
* ``launch_overhead`` -- for a small M, the three GPU numbers side by side:
  per-call latency (each call waited for alone), back-to-back time (``batch``
  calls between two events / ``batch``) and CUDA-graph replay (nearly pure
  kernel time). On a CPU the first two are measured and the graph is
  unsupported; on CUDA they are ``xpucalc.bench.cuda_timing.three_numbers``.
* ``kernel_summary`` -- ``torch.profiler`` over a few calls: kernel (GPU)
  or operator (CPU) names and counts per call, and whether bias + ReLU ran
  inside the matrix-multiply kernel.
"""
from __future__ import annotations

import contextlib
import os
import re
import sys
import tempfile
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from .. import evidence
from .._check import positive_int
from ..core.workload import LinearLayer, linear_layer
from . import cuda_timing
from .accuracy import make_inputs
from .conditions import DTYPE_BYTES, PRECISIONS, check_choice
from .target import Target, calibrate, cpu_threads, resolve, time_kernel, wait_for
from .timing import Timing, batched, check_count, summarize, time_rounds, warm_up

#: The lab's M values: powers of two from 1 to 8192.
DEFAULT_MS: tuple[int, ...] = tuple(2**i for i in range(14))
#: Substrings that mark a matrix-multiply kernel in a profiler trace (lower case), after the prefix rules of
#: :func:`kernel_kind`: cuBLAS/cuBLASLt (``nvjet_*`` on Hopper with recent cuBLAS, ``sm90_xmma_gemm_*``,
#: ``ampere_*gemm*``, ``cutlass_80_tensorop_*gemm*``, ``splitKreduce_kernel``), gemv (``gemv2T_kernel_val``,
#: ``gemvx_kernel``, ``internal::gemvx::kernel``) and user Triton ``matmul`` kernels.
GEMM_MARKERS: tuple[str, ...] = ("gemm", "gemv", "nvjet", "matmul", "splitkreduce")
#: CPU operators (``aten::`` names, whole) that are a matrix multiply.
GEMM_OPERATORS: frozenset[str] = frozenset({
    "aten::addmm", "aten::mm", "aten::bmm", "aten::baddbmm", "aten::matmul", "aten::linear", "aten::addmv",
    "aten::mv", "aten::dot", "aten::_scaled_mm", "aten::_addmm_activation"})
#: Inductor's Triton kernel prefixes and what they are: a template (``triton_tem_``) is the matrix multiply
#: with its epilogue fused; pointwise, persistent-reduction, reduction and foreach kernels are not GEMMs,
#: even when their name carries the op they came from (``triton_poi_fused_addmm_relu_0`` is bias + ReLU).
TRITON_PREFIXES: dict[str, str] = {"triton_tem_": "gemm", "triton_poi_": "pointwise", "triton_per_": "reduction",
                                   "triton_red_": "reduction", "triton_for_": "foreach"}
#: Lines that Kineto prints on stderr when a profiler starts or stops (``USDT:<date> ... profiler_start``).
PROFILER_NOISE = re.compile(r"^(USDT|STAGE):\d{4}-\d\d-\d\d ")

def make_layer(m: int, k: int, n: int, precision: str, target: Target, seed: int = 0) -> Callable[[], Any]:
    """One call of Y = ReLU(XW + b) on ``target`` with inputs already there (PyTorch ``addmm`` + ``relu``, or ``jax.jit``);
    the inputs are :func:`~xpucalc.bench.accuracy.make_inputs` of ``seed``."""
    x, w, b = make_inputs(m, k, n, seed)
    if target.framework == "jax":
        import jax
        import jax.numpy as jnp
        from jax import lax

        d = jax.devices(target.device)[target.index]
        dt = jnp.float32 if precision == "fp32" else jnp.bfloat16
        xj, wj, bj = (jax.device_put(a.astype(dt), d) for a in (x, w, b))
        prec = lax.Precision.HIGHEST if precision == "fp32" else lax.Precision.DEFAULT
        f = jax.jit(lambda x, w, b: jnp.maximum(jnp.dot(x, w, precision=prec) + b, 0))
        return lambda: f(xj, wj, bj)
    import torch

    dt = torch.float32 if precision == "fp32" else torch.bfloat16
    xt, wt, bt = (torch.from_numpy(a).to(dt).to(target.device) for a in (x, w, b))
    return lambda: torch.relu(torch.addmm(bt, xt, wt))


@dataclass(frozen=True)
class LayerPoint:
    """One M of the sweep: seconds per call (back to back) and what follows from it.

    Attributes:
        m, k, n, precision: the layer's shape and precision.
        timing: seconds per call. device: where it ran. threads: PyTorch CPU threads (None for JAX).
    """

    m: int
    k: int
    n: int
    precision: str
    timing: Timing
    device: str
    threads: int | None

    @property
    def workload(self) -> LinearLayer:
        """F = 2mkn, Q_min = s(mk + kn + n + mn), I = F / Q_min."""
        return linear_layer(self.m, self.k, self.n, DTYPE_BYTES[self.precision])

    @property
    def intensity(self) -> float:
        return self.workload.intensity

    @property
    def flops_per_s(self) -> float:
        """F / median time, FLOP/s."""
        return self.workload.flops / self.timing.median_s

    @property
    def bytes_per_s(self) -> float:
        """Q_min / median time, bytes/s: the least traffic, so a lower bound on what moved."""
        return self.workload.bytes / self.timing.median_s

    @property
    def evidence(self) -> str:
        return evidence.CPU_CHECKED if self.device == "cpu" else evidence.MEASURED


def layer_sweep(ms: Sequence[int] = DEFAULT_MS, k: int = 1024, n: int = 1024, precision: str = "fp32",
                device: str = "auto", *, threads: int | None = None, reps: int | None = None,
                warmup_s: float = 0.05, target_s: float | None = None) -> list[LayerPoint]:
    """Time the layer at each M in ``ms``: calls grouped back to back (>= 1 ms per sample), median per call.

    Args:
        ms: batch sizes M (whole numbers >= 1). k, n: W [k, n].
        precision: ``"fp32"`` or ``"bf16"``.
        device: see ``xpucalc.bench.target.resolve``.
        threads: PyTorch CPU threads (None: one).
        reps: samples per M (None: about ``target_s`` seconds' worth, at least 5).
        warmup_s: warm-up per M, seconds.
        target_s: timed seconds per M when ``reps`` is None (default 0.2).
    """
    if not ms:
        raise ValueError("ms must hold at least one batch size M")
    mvals = [positive_int(m, "ms") for m in ms]
    kk, nn = positive_int(k, "k"), positive_int(n, "n")
    prec = check_choice(precision, "precision", PRECISIONS)
    if reps is not None:
        check_count(reps, "reps", 1)
    target = resolve(device)
    out = []
    with cpu_threads(target, threads) as used:
        for m in mvals:
            call = make_layer(m, kk, nn, prec, target)
            inner, per_call = calibrate(call, target, 1e-3, 1000)
            samples = time_kernel(call, target, reps, inner=inner, warmup_s=warmup_s, per_call_s=per_call,
                                  target_s=0.2 if target_s is None else target_s)
            out.append(LayerPoint(m, kk, nn, prec, summarize(samples, warn=False), target.device, used))
    return out


# --------------------------------------------------------------------------- launch overhead

@dataclass(frozen=True)
class LaunchOverhead:
    """Per-call latency, back-to-back time and CUDA-graph time of one small layer, seconds per call.

    Attributes:
        m, k, n, precision, device: the condition.
        per_call: each call started on an idle device and waited for.
        back_to_back: ``batch`` calls issued together, total / ``batch``.
        graph: CUDA-graph replay of ``batch`` calls / ``batch`` (None when not measured).
        graph_reason: why ``graph`` is None (Korean).
        batch: calls per group.
    """

    m: int
    k: int
    n: int
    precision: str
    device: str
    per_call: Timing
    back_to_back: Timing
    graph: Timing | None
    graph_reason: str
    batch: int

    @property
    def floor_s(self) -> float:
        """The least time per call seen by any method, seconds."""
        ts = [self.per_call.median_s, self.back_to_back.median_s] + ([self.graph.median_s] if self.graph else [])
        return min(ts)

    @property
    def per_call_over_floor(self) -> float:
        """per-call median / the least median: how much of a per-call time is not kernel time."""
        return self.per_call.median_s / self.floor_s


def launch_overhead(m: int = 1, k: int = 1024, n: int = 1024, precision: str = "fp32", device: str = "auto", *,
                    reps: int = 50, batch: int = 50, threads: int | None = None) -> LaunchOverhead:
    """Per-call vs back-to-back vs CUDA-graph time of the layer at a small ``m``.

    On CUDA: ``cuda_timing.three_numbers``. Elsewhere, in ``reps`` interleaved rounds:
    per call = one call and its wait; back to back = ``batch`` calls and one
    wait, / ``batch``; graph unsupported (there is no CUDA graph).
    """
    mm, kk, nn = positive_int(m, "m"), positive_int(k, "k"), positive_int(n, "n")
    prec = check_choice(precision, "precision", PRECISIONS)
    reps, batch = check_count(reps, "reps", 1), check_count(batch, "batch", 1)
    target = resolve(device)
    with cpu_threads(target, threads):
        call = make_layer(mm, kk, nn, prec, target)
        wait = wait_for(target)
        warm_up(call, wait, min_time_s=0.1, max_time_s=1.0)
        if target.kind == "cuda":
            per, b2b, graph, err = cuda_timing.three_numbers(call, reps, batch, device=target.index)
            why = "" if err is None else f"CUDA 그래프 캡처 실패: {type(err).__name__}: {str(err)[:100]}"
        else:
            calls = batched(call, batch)

            def one() -> Any:
                return wait(call())

            def group() -> Any:
                return wait(calls())

            # interleaved rounds, so a burst of load from another process hits both alike
            rounds = time_rounds({"per_call": one, "group": group}, rounds=reps, reps_per_round=1)
            per = rounds["per_call"]
            b2b = [s / batch for s in rounds["group"]]
            graph, why = None, "CUDA GPU가 아니어서 CUDA 그래프가 없습니다"
    return LaunchOverhead(mm, kk, nn, prec, target.device, summarize(per, warn=False), summarize(b2b, warn=False),
                          summarize(graph, warn=False) if graph else None, why, batch)


# --------------------------------------------------------------------------- profiler

@dataclass(frozen=True)
class KernelSummary:
    """What ran during ``calls`` calls, from ``torch.profiler``.

    Attributes:
        names: (name, count) of each kernel (CUDA) or top-level operator (CPU), most frequent first.
        calls: layer calls profiled. level: ``"kernel"`` (GPU kernels) or ``"operator"`` (CPU aten ops).
    """

    names: tuple[tuple[str, int], ...]
    calls: int
    level: str

    @property
    def per_call(self) -> float:
        """Kernels (or operators) per layer call."""
        return sum(c for _, c in self.names) / self.calls

    @property
    def gemm_names(self) -> tuple[str, ...]:
        """Names of the matrix-multiply kernels (operators), see :func:`kernel_kind`."""
        return tuple(nm for nm, _ in self.names if is_gemm(nm))

    @property
    def other_names(self) -> tuple[str, ...]:
        """Everything that is not the matrix multiply: separate bias / ReLU / copy launches."""
        return tuple(nm for nm, _ in self.names if not is_gemm(nm))

    @property
    def fused(self) -> bool:
        """True when bias and ReLU ran inside the matrix-multiply kernel: a GEMM ran and nothing else did.

        Eager CUDA (cuBLAS GEMM + an elementwise ReLU kernel) and Inductor with cuBLAS plus
        ``triton_poi_fused_addmm_relu_0`` are not fused; Inductor's template ``triton_tem_fused_addmm_relu_0``
        alone is.
        """
        return bool(self.gemm_names) and not self.other_names


def kernel_kind(name: str) -> str:
    """What a profiler kernel or operator name is: ``"gemm"``, ``"pointwise"``, ``"reduction"``, ``"foreach"``,
    ``"copy"`` or ``"other"``.

    Rules, in order: Inductor's Triton prefixes (``TRITON_PREFIXES``: ``triton_tem_`` is a GEMM,
    ``triton_poi_`` / ``triton_per_`` / ``triton_red_`` are not, whatever op names follow); ``aten::``
    operators by whole name (``GEMM_OPERATORS``; ``aten::relu``, ``aten::clamp_min`` are pointwise);
    memcpy / memset are copies; then the CUDA kernel markers ``GEMM_MARKERS``.
    """
    low = str(name).strip().lower()
    low = low[5:] if low.startswith("void ") else low
    for prefix, kind in TRITON_PREFIXES.items():
        if low.startswith(prefix):
            return kind
    if low.startswith("aten::"):
        return "gemm" if low in GEMM_OPERATORS else "pointwise" if low in _POINTWISE_OPERATORS else "other"
    if low.startswith(("memcpy", "memset")):
        return "copy"
    if any(mark in low for mark in GEMM_MARKERS):
        return "gemm"
    if "elementwise_kernel" in low:
        return "pointwise"
    return "other"


_POINTWISE_OPERATORS = frozenset({"aten::relu", "aten::relu_", "aten::clamp_min", "aten::clamp_min_", "aten::add",
                                  "aten::add_", "aten::clamp", "aten::maximum"})


def is_gemm(name: str) -> bool:
    """True if a kernel or operator name is a matrix multiply (:func:`kernel_kind` is ``"gemm"``)."""
    return kernel_kind(name) == "gemm"


@contextlib.contextmanager
def quiet_profiler_stderr() -> Iterator[None]:
    """Drop Kineto's ``USDT:... profiler_start`` / ``profiler_stop`` lines (``PROFILER_NOISE``) from stderr.

    Kineto writes them from C++ straight to file descriptor 2, so ``sys.stderr`` cannot catch them: fd 2 is
    pointed at a temporary file for the duration, and every other line is written back to ``sys.stderr``.
    """
    fd = 2
    try:
        sys.stderr.flush()
        saved = os.dup(fd)
    except OSError:  # no usable fd 2: nothing to filter
        yield
        return
    with tempfile.TemporaryFile(mode="w+b") as tmp:
        os.dup2(tmp.fileno(), fd)
        try:
            yield
        finally:
            with contextlib.suppress(OSError, ValueError):
                sys.stderr.flush()
            os.dup2(saved, fd)
            os.close(saved)
            tmp.seek(0)
            kept = [ln for ln in tmp.read().decode(errors="replace").splitlines(keepends=True)
                    if not PROFILER_NOISE.match(ln)]
            if kept:
                sys.stderr.write("".join(kept))
                sys.stderr.flush()


def summarize_events(events: Iterable[tuple[str, str, Any]], calls: int, level: str) -> KernelSummary:
    """Count profiler events: ``events`` are (name, kind, parent) with kind ``"cuda"`` or ``"cpu"``.

    ``level="kernel"`` counts CUDA events except memcpy/memset; ``level="operator"``
    counts top-level CPU ``aten::`` operators (parent None).
    """
    calls = check_count(calls, "calls", 1)
    if level not in ("kernel", "operator"):
        raise ValueError(f"level must be 'kernel' or 'operator', got {level!r}")
    counts: dict[str, int] = {}
    for name, kind, parent in events:
        if level == "kernel":
            if kind != "cuda" or name.lower().startswith(("memcpy", "memset")):
                continue
        elif kind != "cpu" or parent is not None or not name.startswith("aten::"):
            continue
        counts[name] = counts.get(name, 0) + 1
    ordered = tuple(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))
    return KernelSummary(ordered, calls, level)


def kernel_summary(m: int = 128, k: int = 1024, n: int = 1024, precision: str = "fp32", device: str = "auto", *,
                   calls: int = 10, compiled: bool = False) -> KernelSummary:
    """Profile ``calls`` calls of the layer (eager, or ``torch.compile`` when ``compiled``) and count what ran.

    On CUDA the GPU kernels are counted; on a CPU the top-level ``aten::`` operators.
    """
    import torch
    from torch.profiler import ProfilerActivity, profile

    calls = check_count(calls, "calls", 1)
    target = resolve(device)
    if target.framework != "torch":
        raise ValueError(f"kernel_summary profiles PyTorch only; device {device!r} is a JAX device")
    prec = check_choice(precision, "precision", PRECISIONS)
    fn = make_layer(positive_int(m, "m"), positive_int(k, "k"), positive_int(n, "n"), prec, target)
    if compiled:
        body = torch.compile(lambda: fn(), dynamic=False)
    else:
        body = fn
    wait = wait_for(target)
    for _ in range(3):
        wait(body())
    cuda = target.kind == "cuda"
    acts = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if cuda else [])
    with quiet_profiler_stderr(), profile(activities=acts) as prof:
        for _ in range(calls):
            body()
        wait(None)
    events = []
    for e in prof.events():
        kind = "cuda" if "cuda" in str(getattr(e, "device_type", "")).lower() else "cpu"
        events.append((e.name, kind, getattr(e, "cpu_parent", None)))
    return summarize_events(events, calls, "kernel" if cuda else "operator")


__all__ = ["DEFAULT_MS", "GEMM_MARKERS", "GEMM_OPERATORS", "KernelSummary", "LaunchOverhead", "LayerPoint",
           "TRITON_PREFIXES", "is_gemm", "kernel_kind", "kernel_summary", "launch_overhead", "layer_sweep",
           "make_layer", "quiet_profiler_stderr", "summarize_events"]
