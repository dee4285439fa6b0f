"""A small, honest timing harness for Y = ReLU(XW + b) on PyTorch and JAX.

It measures three boundaries and never mixes them:

1. **first call** -- the first invocation in a run, including compilation
   (``torch.compile`` / ``jax.jit``; caches are cleared first) and lazy
   initialisation, with the inputs already on the device;
2. **device-resident steady state** -- X, W, b live on the device; after a
   warm-up, every repetition is timed on its own and waited for (CUDA events
   plus ``synchronize`` on a GPU, ``block_until_ready`` on JAX, a
   ``perf_counter`` around a synchronous call on a CPU);
3. **steady state with copies** -- each repetition copies X host->device,
   computes, and copies Y device->host.

Each boundary is summarised by the median and the inter-quartile range (IQR);
a result whose IQR/median exceeds 10 % is flagged ``noisy`` and a
:class:`NoisyTimingWarning` is issued. The output is checked against a CPU
float64 reference, the environment is recorded, and the evidence label follows
from it: an accelerator run is ``실측``, a CPU run is ``CPU 동작 확인``.
Whatever a backend cannot do (no GPU, no TPU, a failing ``torch.compile``, a
missing framework) comes back as a :class:`BenchResult` with
``status="unsupported"`` and a reason -- never as an exception.

torch and jax are imported only inside the functions that use them.
All times are seconds; milliseconds appear only in tables and plots.
"""
from __future__ import annotations

import datetime as _dt
import gc
import math
import os
import platform as _platform
import statistics
import time
import warnings
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from . import evidence
from ._check import positive
from .table import Table
from .units import GB, GiB, MS, TFLOPS
from .workload import LinearLayer, linear_layer

#: Execution paths: the framework's default (eager) and its compiler (torch.compile / jax.jit).
PATHS: tuple[str, ...] = ("eager", "compiled")
#: Precisions: FP32 (TF32 off / Precision.HIGHEST) and BF16 (Precision.DEFAULT).
PRECISIONS: tuple[str, ...] = ("fp32", "bf16")
#: Bytes per element of each precision.
DTYPE_BYTES: dict[str, int] = {"fp32": 4, "bf16": 2}

#: Unit roundoff u = 2**-p of each precision (p = significand bits incl. the implicit one).
UNIT_ROUNDOFF: dict[str, float] = {"fp32": 2.0**-24, "bf16": 2.0**-8}

#: Default max-abs-error tolerances against the float64 reference (see :func:`check_accuracy`).
TOLERANCE: dict[str, float] = {"fp32": 1e-4, "bf16": 2.0**-4}

#: The source's repetition counts, used on accelerators.
DEFAULT_WARMUP = 50
DEFAULT_REPS = 500
#: Light counts for a CPU run (behaviour check, not a measurement of an accelerator).
CPU_WARMUP = 3
CPU_REPS = 30

#: IQR / median above which a timing is flagged noisy.
NOISY_THRESHOLD = 0.10

OK = "ok"
UNSUPPORTED = "unsupported"

#: Display names of the paths per framework.
PATH_LABELS: dict[tuple[str, str], str] = {
    ("torch", "eager"): "PyTorch Eager",
    ("torch", "compiled"): "torch.compile",
    ("jax", "eager"): "JAX Eager",
    ("jax", "compiled"): "jax.jit (XLA)",
}


class NoisyTimingWarning(UserWarning):
    """Issued when a timing's IQR/median exceeds the noisy threshold."""


# --------------------------------------------------------------------------- checks

def _check_count(value: object, name: str, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{name} must be a whole number >= {minimum}, got {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value!r}")
    return int(value)


def _check_choice(value: object, name: str, choices: Sequence[str]) -> str:
    if value not in choices:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, choices))}, got {value!r}")
    return str(value)


# --------------------------------------------------------------------------- statistics

@dataclass(frozen=True)
class Timing:
    """Summary of repeated timings of one boundary (seconds).

    Attributes:
        samples_s: every timed repetition, seconds, in the order measured.
        median_s: the median, seconds.
        q1_s, q3_s: first and third quartiles, seconds (linear interpolation between
            order statistics -- numpy's default, ``statistics.quantiles(method="inclusive")``).
        noisy_threshold: the IQR/median ratio above which :attr:`noisy` is True.
    """

    samples_s: tuple[float, ...]
    median_s: float
    q1_s: float
    q3_s: float
    noisy_threshold: float = NOISY_THRESHOLD

    @property
    def n(self) -> int:
        """Number of samples."""
        return len(self.samples_s)

    @property
    def iqr_s(self) -> float:
        """Inter-quartile range q3 - q1, seconds."""
        return self.q3_s - self.q1_s

    @property
    def rel_iqr(self) -> float:
        """IQR / median (dimensionless spread)."""
        return self.iqr_s / self.median_s if self.median_s > 0 else math.inf

    @property
    def noisy(self) -> bool:
        """True when IQR/median exceeds :attr:`noisy_threshold`."""
        return self.rel_iqr > self.noisy_threshold

    @property
    def min_s(self) -> float:
        return min(self.samples_s)


def summarize(samples_s: Iterable[float], noisy_threshold: float = NOISY_THRESHOLD, warn: bool = True,
              label: str = "timing") -> Timing:
    """Median, quartiles and noisy flag of ``samples_s`` (seconds).

    Args:
        samples_s: at least one non-negative duration, seconds.
        noisy_threshold: IQR/median ratio above which the timing is noisy (default 0.10).
        warn: issue a :class:`NoisyTimingWarning` when the timing is noisy.
        label: what was timed, for the warning message.
    """
    xs = tuple(float(x) for x in samples_s)
    if not xs:
        raise ValueError("samples_s must hold at least one duration")
    for x in xs:
        if not math.isfinite(x) or x < 0:
            raise ValueError(f"samples_s must hold finite durations >= 0, got {x!r}")
    thr = positive(noisy_threshold, "noisy_threshold")
    if len(xs) == 1:
        q1 = q3 = xs[0]
    else:
        q1, _, q3 = statistics.quantiles(xs, n=4, method="inclusive")
    t = Timing(xs, statistics.median(xs), q1, q3, thr)
    if warn and t.noisy:
        warnings.warn(f"{label}: IQR/median = {t.rel_iqr:.0%} > {thr:.0%} over {t.n} samples; "
                      "the median is unreliable (another process, frequency scaling, too few reps?)",
                      NoisyTimingWarning, stacklevel=2)
    return t


# --------------------------------------------------------------------------- timers

def time_calls(fn: Callable[[], Any], warmup: int, reps: int, sync: Callable[[Any], Any] | None = None,
               clock: Callable[[], float] = time.perf_counter) -> list[float]:
    """Time ``reps`` calls of ``fn`` after ``warmup`` untimed calls, seconds each.

    Each timed interval covers ``fn()`` and then ``sync(result)``, so work that
    ``fn`` only *dispatches* (JAX, CUDA) is waited for before the clock stops.
    With ``sync=None`` nothing is waited for -- correct only for synchronous
    calls (PyTorch on a CPU, or a function that already blocks). The garbage
    collector is paused during the timed loop and each output is released
    before the next call, as ``timeit`` and ``torch.utils.benchmark`` do.

    Args:
        fn: the call to time, no arguments.
        warmup: untimed calls first (>= 0).
        reps: timed calls (>= 1).
        sync: called with ``fn``'s result inside the timed interval, e.g.
            ``lambda y: y.block_until_ready()``.
        clock: a monotonic clock in seconds.
    """
    warmup = _check_count(warmup, "warmup", 0)
    reps = _check_count(reps, "reps", 1)
    for _ in range(warmup):
        out = fn()
        if sync is not None:
            sync(out)
        out = None
    samples = []
    gc_was_enabled = gc.isenabled()
    gc.disable()  # as timeit does: a collection inside one repetition would be charged to it
    try:
        for _ in range(reps):
            t0 = clock()
            out = fn()
            if sync is not None:
                sync(out)
            samples.append(clock() - t0)
            out = None  # free the output now, so the next call can reuse its memory
    finally:
        if gc_was_enabled:
            gc.enable()
    return samples


def time_calls_cuda(fn: Callable[[], Any], warmup: int, reps: int, device: Any = None) -> list[float]:
    """Time ``reps`` calls of ``fn`` on the current CUDA stream with CUDA events, seconds each.

    Each repetition records a start event, calls ``fn``, records an end event and
    waits for it; the sample is the GPU-side time between the two events.
    """
    import torch

    warmup = _check_count(warmup, "warmup", 0)
    reps = _check_count(reps, "reps", 1)
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize(device)
    samples = []
    for _ in range(reps):
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        samples.append(start.elapsed_time(end) * MS)  # elapsed_time is in ms
    return samples


# --------------------------------------------------------------------------- environment

def _host_memory_bytes() -> float | None:
    try:
        return float(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError, AttributeError):
        return None


def _cpu_name() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return _platform.processor() or _platform.machine() or "CPU"


@dataclass(frozen=True)
class Environment:
    """Where a run happened. ``kind`` is ``"cuda"``, ``"rocm"``, ``"mps"``, ``"tpu"``, ``"gpu"`` or ``"cpu"``.

    Attributes:
        framework: ``"torch"`` or ``"jax"``.
        framework_version: e.g. ``"2.13.0+cpu"``.
        kind: device kind (see above).
        name: device name as the runtime reports it (``"NVIDIA A100-SXM4-40GB"``, ``"TPU v5 lite"``, CPU model).
        count: devices of that kind visible to the framework.
        memory_bytes: memory of one device, bytes (host RAM for a CPU), None if unknown.
        sm_count: streaming multiprocessors (CUDA only).
        runtime: accelerator runtime, e.g. ``"CUDA 13.0"`` (None on CPU).
        threads: CPU threads the framework uses (CPU runs).
        python: Python version. platform: OS string. date: ISO date of the run.
        extra: anything else worth recording (jaxlib version, ...).
    """

    framework: str
    framework_version: str
    kind: str
    name: str
    count: int
    memory_bytes: float | None = None
    sm_count: int | None = None
    runtime: str | None = None
    threads: int | None = None
    python: str = field(default_factory=lambda: _platform.python_version())
    platform: str = field(default_factory=lambda: _platform.platform(terse=True))
    date: str = field(default_factory=lambda: _dt.date.today().isoformat())
    extra: tuple[tuple[str, str], ...] = ()

    @property
    def accelerator(self) -> bool:
        """True unless the run happened on a CPU."""
        return self.kind != "cpu"

    @property
    def evidence(self) -> str:
        """``실측`` on an accelerator, ``CPU 동작 확인`` on a CPU."""
        return evidence.MEASURED if self.accelerator else evidence.CPU_CHECKED

    def label(self) -> str:
        """Short device label for tables and legends, e.g. ``"NVIDIA A100-SXM4-40GB x1"``."""
        return f"{self.name} x{self.count}" if self.accelerator else f"CPU ({self.name})"

    def summary(self) -> str:
        """Several lines describing the environment (Korean labels)."""
        mem = "알 수 없음" if self.memory_bytes is None else \
            f"{self.memory_bytes / GB:.2f} GB ({self.memory_bytes / GiB:.2f} GiB)"
        lines = [
            f"프레임워크      : {self.framework} {self.framework_version}",
            f"장치 종류       : {self.kind} ({'가속기' if self.accelerator else '가속기 없음'})",
            f"장치 이름       : {self.name}",
            f"장치 개수       : {self.count}",
            f"메모리          : {mem}{' (호스트 RAM)' if not self.accelerator else ''}",
        ]
        if self.sm_count is not None:
            lines.append(f"SM 개수         : {self.sm_count}")
        if self.runtime:
            lines.append(f"런타임          : {self.runtime}")
        if self.threads is not None:
            lines.append(f"CPU 스레드      : {self.threads}")
        lines += [f"{k:<15} : {v}" for k, v in self.extra]
        lines += [f"Python          : {self.python}", f"OS              : {self.platform}",
                  f"날짜            : {self.date}", f"근거 라벨       : {self.evidence}"]
        return "\n".join(lines)


def _torch_device(device: str) -> str:
    import torch

    if device != "auto":
        return device
    if torch.cuda.is_available():
        return "cuda"
    mps = getattr(torch.backends, "mps", None)
    if mps is not None and mps.is_available():
        return "mps"
    return "cpu"


def torch_environment(device: str = "auto") -> Environment:
    """Record the PyTorch environment for ``device`` (``"auto"``: CUDA, else MPS, else CPU).

    Raises RuntimeError if the requested device is not available (the runners turn
    that into an ``unsupported`` result).
    """
    import torch

    dev = _torch_device(device)
    kind = dev.split(":")[0]
    if kind == "cuda":
        if not torch.cuda.is_available():
            raise RuntimeError("CUDA 장치가 없습니다 (torch.cuda.is_available() == False)")
        idx = torch.device(dev).index or 0
        p = torch.cuda.get_device_properties(idx)
        hip = getattr(torch.version, "hip", None)
        runtime = f"ROCm {hip}" if hip else f"CUDA {torch.version.cuda}"
        return Environment("torch", torch.__version__, "rocm" if hip else "cuda", p.name,
                           torch.cuda.device_count(), float(p.total_memory), int(p.multi_processor_count),
                           runtime)
    if kind == "mps":
        mps = getattr(torch.backends, "mps", None)
        if mps is None or not mps.is_available():
            raise RuntimeError("MPS 장치가 없습니다")
        return Environment("torch", torch.__version__, "mps", "Apple GPU (MPS)", 1, None, None, "MPS")
    if kind == "cpu":
        return Environment("torch", torch.__version__, "cpu", _cpu_name(), 1, _host_memory_bytes(),
                           threads=torch.get_num_threads())
    raise RuntimeError(f"지원하지 않는 torch 장치입니다: {device!r}")


def jax_environment(platform: str | None = None) -> Environment:
    """Record the JAX environment of ``platform`` (``None``: JAX's default backend; or ``"cpu"``, ``"gpu"``, ``"tpu"``).

    Raises RuntimeError if that platform has no device.
    """
    import jax

    try:
        devs = jax.devices(platform) if platform else jax.devices()
    except RuntimeError as exc:
        raise RuntimeError(f"JAX에서 {platform!r} 장치를 찾지 못했습니다 ({_short(str(exc), 90)})") from None
    d = devs[0]
    kind = d.platform.lower()
    if kind in ("cuda", "rocm"):
        kind = "gpu"
    memory = None
    try:
        stats = d.memory_stats()
        if stats and "bytes_limit" in stats:
            memory = float(stats["bytes_limit"])
    except Exception:  # noqa: BLE001 - memory_stats is optional per backend
        memory = None
    name = getattr(d, "device_kind", str(d))
    if kind == "cpu":
        name, memory = _cpu_name(), _host_memory_bytes()
    extra: list[tuple[str, str]] = []
    try:
        import jaxlib

        extra.append(("jaxlib", jaxlib.__version__))
    except Exception:  # noqa: BLE001
        pass
    runtime = None if kind == "cpu" else f"{d.platform} ({jax.default_backend()})"
    return Environment("jax", jax.__version__, kind, name, len(devs), memory, None, runtime,
                       os.cpu_count() if kind == "cpu" else None, extra=tuple(extra))


def default_reps(env: Environment | None) -> tuple[int, int]:
    """(warmup, reps): the source's 50 + 500 on an accelerator, a light 3 + 30 on a CPU or unknown device."""
    if env is not None and env.accelerator:
        return DEFAULT_WARMUP, DEFAULT_REPS
    return CPU_WARMUP, CPU_REPS


# --------------------------------------------------------------------------- accuracy

def make_inputs(m: int, k: int = 1024, n: int = 1024, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Float32 inputs X [m, k], W [k, n], b [n] with unit-variance outputs.

    X ~ N(0, 1), W ~ N(0, 1/k), b ~ N(0, 0.01): each entry of XW + b is about
    N(0, 1), so the tolerances of :func:`check_accuracy` are absolute errors on
    numbers of order 1. The same seed gives the same inputs on every machine.
    """
    from ._check import positive_int

    m, k, n = positive_int(m, "m"), positive_int(k, "k"), positive_int(n, "n")
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((m, k), dtype=np.float32)
    w = (rng.standard_normal((k, n), dtype=np.float32) / np.float32(math.sqrt(k))).astype(np.float32)
    b = (0.1 * rng.standard_normal(n, dtype=np.float32)).astype(np.float32)
    return x, w, b


def reference_output(x: np.ndarray, w: np.ndarray, b: np.ndarray) -> np.ndarray:
    """ReLU(XW + b) in float64 on the CPU -- the ground truth every run is compared with."""
    x64, w64, b64 = (np.asarray(a, dtype=np.float64) for a in (x, w, b))
    return np.maximum(x64 @ w64 + b64, 0.0)


@dataclass(frozen=True)
class Accuracy:
    """Max absolute error against the float64 reference and its verdict."""

    max_abs_err: float
    tolerance: float

    @property
    def passed(self) -> bool:
        return self.max_abs_err <= self.tolerance

    @property
    def verdict(self) -> str:
        """``통과`` or ``실패``."""
        return "통과" if self.passed else "실패"


def check_accuracy(y: Any, y_ref: Any, precision: str | None = None, tolerance: float | None = None) -> Accuracy:
    """Compare an output with the float64 reference: max abs(y - y_ref) against a tolerance.

    The default tolerances are for K = 1024 and the unit-variance inputs of
    :func:`make_inputs` (abs(Y) mostly below 5):

    * **fp32: 1e-4.** Unit roundoff u = 2^-24 ~ 6e-8. Rounding errors of the
      1024 products and sums are independent-ish, so the error of one output is
      about sqrt(K) u abs(y) ~ 2e-6 (the source measured 3.7e-7 - 2.0e-6); even the
      worst-case bound K u sum(abs(x w)) ~ 1.5e-3 is rarely approached. With TF32
      (u = 2^-11 ~ 4.9e-4) the inputs' rounding alone gives about u ~ 5e-4 per
      output and over 1e-3 at the max over 131 072 outputs, so 1e-4 passes FP32
      with a margin of ~50x and catches TF32 sneaking in.
    * **bf16: 2^-4 = 0.0625.** u = 2^-8 ~ 3.9e-3. Rounding X and W to bf16
      perturbs each output by about u (sum of K terms of size u/sqrt(K)), i.e.
      up to ~4.5 u ~ 0.018 at the max over 10^5 outputs; rounding Y itself to
      bf16 adds up to half an ulp, 2^-6 ~ 0.016 for abs(Y) in [4, 8). Expected
      max ~ 0.03 (the source measured 0.014 - 0.029), so 0.0625 (two ulps at
      abs(Y) ~ 4) passes BF16 with accumulation in FP32 and fails if the
      accumulation itself is done in BF16 (errors ~ sqrt(K) u ~ 0.1).

    Args:
        y: the device output (any array convertible by numpy, incl. torch CPU tensors).
        y_ref: the float64 reference.
        precision: ``"fp32"`` or ``"bf16"`` to pick the default tolerance.
        tolerance: explicit tolerance (overrides ``precision``).
    """
    if tolerance is None:
        if precision is None:
            raise ValueError("pass precision ('fp32' or 'bf16') or an explicit tolerance")
        tol = TOLERANCE[_check_choice(precision, "precision", PRECISIONS)]
    else:
        tol = positive(tolerance, "tolerance")
    a = np.asarray(y, dtype=np.float64)
    r = np.asarray(y_ref, dtype=np.float64)
    if a.shape != r.shape:
        raise ValueError(f"y has shape {a.shape} but y_ref has shape {r.shape}")
    err = float(np.max(np.abs(a - r))) if a.size else 0.0
    if math.isnan(err):
        err = math.inf
    return Accuracy(err, tol)


# --------------------------------------------------------------------------- results

@dataclass(frozen=True)
class BenchResult:
    """One cell of the grid (framework x path x precision x M) and what was measured.

    Attributes:
        framework: ``"torch"`` or ``"jax"``.
        path: ``"eager"`` or ``"compiled"``.
        precision: ``"fp32"`` or ``"bf16"``.
        m, k, n: shapes of X [m, k] and W [k, n].
        status: ``"ok"`` or ``"unsupported"``.
        reason: why a result is unsupported (Korean, for the table).
        environment: where it ran (None if the framework could not even start).
        first_call_s: first call incl. compile/initialisation, seconds.
        device: steady-state timing with all tensors on the device.
        with_transfer: steady-state timing incl. host->device copy of X and device->host copy of Y.
        accuracy: max abs error against the float64 reference and its verdict.
        recompiles: compiles observed after the first call (compiled path; None if not applicable).
        compile_cache_hit: True if the first call was served by an on-disk compile cache
            (its first-call time is then not a cold compile); None if unknown.
        warmup, reps: repetition counts used.
        notes: remarks for the reader (Korean).
    """

    framework: str
    path: str
    precision: str
    m: int
    k: int = 1024
    n: int = 1024
    status: str = OK
    reason: str = ""
    environment: Environment | None = None
    first_call_s: float | None = None
    device: Timing | None = None
    with_transfer: Timing | None = None
    accuracy: Accuracy | None = None
    recompiles: int | None = None
    compile_cache_hit: bool | None = None
    warmup: int = 0
    reps: int = 0
    notes: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return self.status == OK

    @property
    def workload(self) -> LinearLayer:
        """The analytic workload (F = 2mkn, Q_min, I) at this precision."""
        return linear_layer(self.m, self.k, self.n, DTYPE_BYTES[self.precision])

    @property
    def path_label(self) -> str:
        return PATH_LABELS.get((self.framework, self.path), f"{self.framework} {self.path}")

    @property
    def evidence(self) -> str:
        """Evidence label: from the environment for a run, ``아직 미측정`` for an unsupported cell."""
        if not self.ok or self.environment is None:
            return evidence.NOT_MEASURED
        return self.environment.evidence

    @property
    def device_median_s(self) -> float | None:
        return self.device.median_s if self.device is not None else None

    @property
    def achieved_flops(self) -> float | None:
        """F / device-resident median, FLOP/s."""
        t = self.device_median_s
        return self.workload.flops / t if t else None

    @property
    def effective_bandwidth(self) -> float | None:
        """Q_min / device-resident median, bytes/s (the source's "유효 대역폭")."""
        t = self.device_median_s
        return self.workload.bytes / t if t else None

    def key(self) -> tuple[str, str, int]:
        """(path, precision, m): how results line up with reference runs."""
        return (self.path, self.precision, self.m)


def unsupported(framework: str, path: str, precision: str, m: int, k: int, n: int, reason: str,
                environment: Environment | None = None) -> BenchResult:
    """A result for something a backend cannot do: status ``unsupported`` and the reason."""
    return BenchResult(framework, path, precision, m, k, n, status=UNSUPPORTED, reason=reason,
                       environment=environment)


def _short(text: str, limit: int = 160) -> str:
    first = (text.strip().splitlines() or [""])[0]
    return first if len(first) <= limit else first[: limit - 1] + "…"


def _reason(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {_short(str(exc))}"


def _validate(path: str, precision: str, m: int, k: int, n: int, warmup: int | None, reps: int | None,
              noisy_threshold: float) -> tuple[int, int, int]:
    _check_choice(path, "path", PATHS)
    _check_choice(precision, "precision", PRECISIONS)
    from ._check import positive_int

    mm, kk, nn = positive_int(m, "m"), positive_int(k, "k"), positive_int(n, "n")
    if warmup is not None:
        _check_count(warmup, "warmup", 0)
    if reps is not None:
        _check_count(reps, "reps", 1)
    positive(noisy_threshold, "noisy_threshold")
    return mm, kk, nn


# --------------------------------------------------------------------------- torch

def compile_counters() -> dict[str, int]:
    """Snapshot of torch.compile's counters: ``graphs`` compiled so far and on-disk ``cache_hit`` s.

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
            + int(counters["aot_autograd"]["autograd_cache_hit"])}


def run_torch(path: str, precision: str, m: int, k: int = 1024, n: int = 1024, *, device: str = "auto",
              warmup: int | None = None, reps: int | None = None, seed: int = 0, compile_mode: str = "default",
              tolerance: float | None = None, noisy_threshold: float = NOISY_THRESHOLD) -> BenchResult:
    """Run Y = ReLU(XW + b) with PyTorch and measure the three boundaries.

    Args:
        path: ``"eager"`` or ``"compiled"`` (``torch.compile(fn, mode=compile_mode, dynamic=False)``
            after ``torch._dynamo.reset()``, so the first call includes a compile).
        precision: ``"fp32"`` (TF32 switched off for the run and restored after) or ``"bf16"``.
        m, k, n: X [m, k], W [k, n].
        device: ``"auto"`` (CUDA, else MPS, else CPU), ``"cuda"``, ``"cuda:1"``, ``"mps"`` or ``"cpu"``.
        warmup, reps: untimed and timed repetitions per boundary; None picks
            :func:`default_reps` (50 + 500 on an accelerator, 3 + 30 on a CPU).
        seed: input seed (:func:`make_inputs`).
        compile_mode: ``torch.compile`` mode (``"default"``, ``"reduce-overhead"``, ...).
        tolerance: max-abs-error tolerance; None uses :data:`TOLERANCE`.
        noisy_threshold: IQR/median ratio above which a timing is flagged noisy.

    Returns:
        a :class:`BenchResult`; ``status="unsupported"`` with a reason when torch,
        the device, the dtype or the compiler is not available.
    """
    mm, kk, nn = _validate(path, precision, m, k, n, warmup, reps, noisy_threshold)
    try:
        import torch
    except ImportError:
        return unsupported("torch", path, precision, mm, kk, nn, "PyTorch가 설치되어 있지 않습니다")
    try:
        env = torch_environment(device)
    except Exception as exc:  # noqa: BLE001
        return unsupported("torch", path, precision, mm, kk, nn, str(exc) if isinstance(exc, RuntimeError)
                           else _reason(exc))
    w_, r_ = default_reps(env)
    warmup = w_ if warmup is None else warmup
    reps = r_ if reps is None else reps
    dev = _torch_device(device)
    dtype = torch.float32 if precision == "fp32" else torch.bfloat16
    x_np, w_np, b_np = make_inputs(mm, kk, nn, seed)
    y_ref = reference_output(x_np, w_np, b_np)

    def layer(x, w, b):
        return torch.relu(torch.addmm(b, x, w))

    tf32_before = torch.backends.cuda.matmul.allow_tf32
    cudnn_tf32_before = torch.backends.cudnn.allow_tf32
    notes: list[str] = []
    try:
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False
        try:
            x_host = torch.from_numpy(x_np).to(dtype)
            x = x_host.to(dev)
            w = torch.from_numpy(w_np).to(dtype).to(dev)
            b = torch.from_numpy(b_np).to(dtype).to(dev)
        except Exception as exc:  # noqa: BLE001 - e.g. bf16 on a device without it
            return unsupported("torch", path, precision, mm, kk, nn, f"{precision}/{dev} 텐서 생성 실패: {_reason(exc)}", env)

        kind = env.kind

        def sync(_: Any = None) -> None:
            if kind in ("cuda", "rocm"):
                torch.cuda.synchronize()
            elif kind == "mps":
                torch.mps.synchronize()

        fn = layer
        before = {}
        if path == "compiled":
            try:
                torch._dynamo.reset()
                before = compile_counters()
                fn = torch.compile(layer, mode=compile_mode, dynamic=False)
            except Exception as exc:  # noqa: BLE001
                return unsupported("torch", path, precision, mm, kk, nn, f"torch.compile 사용 불가: {_reason(exc)}", env)

        with torch.inference_mode():
            sync()
            t0 = time.perf_counter()
            try:
                y = fn(x, w, b)
                sync()
            except Exception as exc:  # noqa: BLE001
                what = "torch.compile 실패" if path == "compiled" else "실행 실패"
                return unsupported("torch", path, precision, mm, kk, nn, f"{what}: {_reason(exc)}", env)
            first = time.perf_counter() - t0
            after_first = compile_counters() if path == "compiled" else {}
            acc = check_accuracy(y.float().cpu().numpy(), y_ref, precision, tolerance)

            if kind in ("cuda", "rocm"):
                dev_samples = time_calls_cuda(lambda: fn(x, w, b), warmup, reps)
                xfer_samples = time_calls_cuda(lambda: fn(x_host.to(dev), w, b).to("cpu"), warmup, reps)
            else:
                dev_samples = time_calls(lambda: fn(x, w, b), warmup, reps, sync=sync if kind != "cpu" else None)
                xfer_samples = time_calls(lambda: fn(x_host.to(dev), w, b).to("cpu"), warmup, reps,
                                          sync=sync if kind != "cpu" else None)
            end = compile_counters() if path == "compiled" else {}
    finally:
        torch.backends.cuda.matmul.allow_tf32 = tf32_before
        torch.backends.cudnn.allow_tf32 = cudnn_tf32_before

    recompiles = cache_hit = None
    if path == "compiled" and after_first and end:
        recompiles = end["graphs"] - after_first["graphs"]
        cache_hit = after_first["cache_hit"] > before.get("cache_hit", 0)
        if recompiles:
            notes.append(f"첫 호출 뒤 재컴파일 {recompiles}회: 반복 측정에 컴파일 시간이 섞였을 수 있습니다")
        if cache_hit:
            notes.append("첫 호출이 디스크 컴파일 캐시(FX graph cache)를 사용했습니다: 콜드 컴파일 시간이 아닙니다")
    if env.kind == "cpu":
        notes.append("CPU 실행: 호스트와 장치가 같아 '전송 포함'에도 실제 복사가 없습니다")
    label = f"torch {path} {precision} M={mm}"
    return BenchResult("torch", path, precision, mm, kk, nn, OK, "", env, first,
                       summarize(dev_samples, noisy_threshold, label=f"{label} (장치 상주)"),
                       summarize(xfer_samples, noisy_threshold, label=f"{label} (전송 포함)"),
                       acc, recompiles, cache_hit, warmup, reps, tuple(notes))


# --------------------------------------------------------------------------- jax

def run_jax(path: str, precision: str, m: int, k: int = 1024, n: int = 1024, *, platform: str | None = None,
            warmup: int | None = None, reps: int | None = None, seed: int = 0, tolerance: float | None = None,
            noisy_threshold: float = NOISY_THRESHOLD) -> BenchResult:
    """Run Y = ReLU(XW + b) with JAX and measure the three boundaries.

    Args:
        path: ``"eager"`` (each of dot, add, max dispatched on its own) or ``"compiled"``
            (``jax.jit``); ``jax.clear_caches()`` runs first, so the first call includes compilation.
        precision: ``"fp32"`` (float32 arrays, ``Precision.HIGHEST``) or ``"bf16"``
            (bfloat16 arrays, ``Precision.DEFAULT``).
        m, k, n: X [m, k], W [k, n].
        platform: ``None`` (JAX's default backend), ``"cpu"``, ``"gpu"`` or ``"tpu"``.
        warmup, reps, seed, tolerance, noisy_threshold: as in :func:`run_torch`.

    Every timed call ends with ``block_until_ready()``; the copy boundary uses
    ``jax.device_put`` for X and ``np.asarray`` (device->host) for Y.
    """
    mm, kk, nn = _validate(path, precision, m, k, n, warmup, reps, noisy_threshold)
    try:
        import jax
        import jax.numpy as jnp
        from jax import lax
    except ImportError:
        return unsupported("jax", path, precision, mm, kk, nn, "JAX가 설치되어 있지 않습니다")
    try:
        env = jax_environment(platform)
    except Exception as exc:  # noqa: BLE001
        return unsupported("jax", path, precision, mm, kk, nn, str(exc) if isinstance(exc, RuntimeError)
                           else _reason(exc))
    w_, r_ = default_reps(env)
    warmup = w_ if warmup is None else warmup
    reps = r_ if reps is None else reps
    d = (jax.devices(platform) if platform else jax.devices())[0]
    dtype = jnp.float32 if precision == "fp32" else jnp.bfloat16
    prec = lax.Precision.HIGHEST if precision == "fp32" else lax.Precision.DEFAULT
    x_np, w_np, b_np = make_inputs(mm, kk, nn, seed)
    y_ref = reference_output(x_np, w_np, b_np)

    def layer(x, w, b):
        return jnp.maximum(jnp.dot(x, w, precision=prec) + b, 0)

    try:
        np_dtype = np.dtype(dtype)
        x_host = x_np.astype(np_dtype)
        x, w, b = (jax.device_put(a.astype(np_dtype), d) for a in (x_np, w_np, b_np))
        jax.block_until_ready((x, w, b))
    except Exception as exc:  # noqa: BLE001
        return unsupported("jax", path, precision, mm, kk, nn, f"{precision} 배열 생성 실패: {_reason(exc)}", env)

    jax.clear_caches()
    fn = jax.jit(layer) if path == "compiled" else layer
    t0 = time.perf_counter()
    try:
        y = fn(x, w, b).block_until_ready()
    except Exception as exc:  # noqa: BLE001
        what = "jax.jit 실패" if path == "compiled" else "실행 실패"
        return unsupported("jax", path, precision, mm, kk, nn, f"{what}: {_reason(exc)}", env)
    first = time.perf_counter() - t0
    cache_size = getattr(fn, "_cache_size", None)
    after_first = cache_size() if (path == "compiled" and cache_size) else None
    acc = check_accuracy(np.asarray(y.astype(jnp.float32)), y_ref, precision, tolerance)

    def block(out: Any) -> Any:
        return out.block_until_ready()

    dev_samples = time_calls(lambda: fn(x, w, b), warmup, reps, sync=block)
    xfer_samples = time_calls(lambda: np.asarray(fn(jax.device_put(x_host, d), w, b)), warmup, reps)
    recompiles = None
    notes: list[str] = []
    if after_first is not None:
        recompiles = cache_size() - after_first
        if recompiles:
            notes.append(f"첫 호출 뒤 재컴파일 {recompiles}회: 반복 측정에 컴파일 시간이 섞였을 수 있습니다")
    if env.kind == "cpu":
        notes.append("CPU 실행: 호스트와 장치가 같아 '전송 포함'의 복사는 메모리 복사일 뿐입니다")
    label = f"jax {path} {precision} M={mm}"
    return BenchResult("jax", path, precision, mm, kk, nn, OK, "", env, first,
                       summarize(dev_samples, noisy_threshold, label=f"{label} (장치 상주)"),
                       summarize(xfer_samples, noisy_threshold, label=f"{label} (전송 포함)"),
                       acc, recompiles, None, warmup, reps, tuple(notes))


# --------------------------------------------------------------------------- grid and table

def run_grid(framework: str, *, paths: Sequence[str] = PATHS, precisions: Sequence[str] = PRECISIONS,
             ms: Sequence[int] = (128, 1), k: int = 1024, n: int = 1024, **kwargs: Any) -> list[BenchResult]:
    """Run every (path, precision, M) of the source's grid with ``run_torch`` or ``run_jax``.

    ``kwargs`` go to the runner (``device=``/``platform=``, ``warmup=``, ``reps=``, ...).
    Order: path, then precision, then M -- the source's table order.
    """
    runner = {"torch": run_torch, "jax": run_jax}[_check_choice(framework, "framework", ("torch", "jax"))]
    return [runner(p, prec, m, k, n, **kwargs) for p in paths for prec in precisions for m in ms]


def find(results: Sequence[BenchResult], path: str, precision: str, m: int) -> BenchResult | None:
    """The result for (path, precision, m) in ``results``, or None if the grid did not include it."""
    for r in results:
        if r.key() == (path, precision, m):
            return r
    return None


def _ms(seconds: float | None, digits: int = 4) -> str:
    return "—" if seconds is None else f"{seconds / MS:,.{digits}f}"


RESULT_HEADERS = ["실행 경로", "정밀도", "M", "산술 강도 I (FLOP/B)", "최초 1회 (ms)", "장치 상주 중앙값 (ms)",
                  "IQR/중앙값", "전송 포함 중앙값 (ms)", "처리율 (TFLOP/s)", "유효 대역폭 (GB/s)",
                  "최대 절대 오차 (판정)", "재컴파일", "장치", "근거"]


def result_row(r: BenchResult) -> list[str]:
    """One table row (Korean headers in ``RESULT_HEADERS``)."""
    head = [r.path_label, r.precision.upper(), str(r.m), f"{r.workload.intensity:.2f}"]
    if not r.ok:
        dev = r.environment.label() if r.environment else "—"
        return head + ["미지원", "—", "—", "—", "—", "—", f"미지원: {r.reason}", "—", dev, r.evidence]
    assert r.device is not None and r.with_transfer is not None and r.accuracy is not None
    spread = f"{r.device.rel_iqr:.0%}" + (" (불안정)" if r.device.noisy else "")
    recompiles = "해당 없음" if r.recompiles is None else f"{r.recompiles}회"
    return head + [_ms(r.first_call_s, 3), _ms(r.device.median_s), spread, _ms(r.with_transfer.median_s),
                   f"{(r.achieved_flops or 0) / TFLOPS:.3f}", f"{(r.effective_bandwidth or 0) / GB:.1f}",
                   f"{r.accuracy.max_abs_err:.2e} ({r.accuracy.verdict})", recompiles,
                   r.environment.label() if r.environment else "—", r.evidence]


def results_table(results: Sequence[BenchResult], caption: str = "") -> Table:
    """Render results as an xpucalc :class:`~xpucalc.table.Table` with an evidence column and notes."""
    t = Table(list(RESULT_HEADERS), caption=caption)
    notes: list[str] = []
    for r in results:
        t.add(*result_row(r))
        for note in r.notes:
            if note not in notes:
                notes.append(note)
    envs = {r.environment for r in results if r.environment is not None}
    for env in sorted(envs, key=lambda e: e.label()):
        notes.append(f"{env.label()}: {env.framework} {env.framework_version}"
                     f"{', ' + env.runtime if env.runtime else ''}, Python {env.python}, {env.date}, 근거: {env.evidence}")
    reps = {(r.warmup, r.reps) for r in results if r.ok}
    if reps:
        notes.append("반복 횟수(워밍업 + 측정): " + ", ".join(f"{w} + {n}" for w, n in sorted(reps)))
    t.notes = notes
    return t


__all__ = [
    "Accuracy", "BenchResult", "CPU_REPS", "CPU_WARMUP", "DEFAULT_REPS", "DEFAULT_WARMUP", "DTYPE_BYTES",
    "Environment", "NOISY_THRESHOLD", "NoisyTimingWarning", "PATHS", "PATH_LABELS", "PRECISIONS",
    "RESULT_HEADERS", "TOLERANCE", "Timing", "UNIT_ROUNDOFF", "check_accuracy", "compile_counters", "default_reps",
    "find", "jax_environment", "make_inputs", "reference_output", "result_row", "results_table", "run_grid",
    "run_jax", "run_torch", "summarize", "time_calls", "time_calls_cuda", "torch_environment", "unsupported",
]
