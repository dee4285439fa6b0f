"""STREAM-style memory bandwidth: copy, scale, add and triad over arrays past the last-level cache.

The four kernels and their byte counts follow McCalpin's STREAM: each pass
reads and writes whole arrays, and only the bytes the kernel itself names are
counted -- copy ``c = a`` and scale ``b = s*c`` move 2 x ``nbytes`` (one read,
one write), add ``c = a + b`` and triad ``a = b + s*c`` move 3 x ``nbytes``
(two reads, one write). Write-allocate traffic (a CPU reading a line before it
overwrites it) is *not* counted, as in STREAM; a CPU that cannot avoid it
therefore reports less than its memory moves.

``nbytes`` is the size of **each** array. STREAM asks for arrays of at least
four times all last-level cache together (``default_nbytes`` does that on
a CPU; on a GPU it takes at least 1 GiB per array); smaller arrays measure a
cache, which ``stream_sweep`` shows on purpose.

Runs on PyTorch (CPU, CUDA, MPS) or JAX (TPU); see ``xpucalc.bench.target``.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .. import evidence
from .._check import positive, positive_int
from .environment import Environment
from .target import TARGET_TIMED_S, Target, calibrate, cpu_threads, environment_of, llc_bytes, resolve, time_kernel
from .timing import Timing, check_count, summarize, time_rounds, warm_up

#: The STREAM kernels, in STREAM's order.
KINDS: tuple[str, ...] = ("copy", "scale", "add", "triad")
#: Whole arrays each kernel reads + writes per pass (STREAM's counting).
ARRAYS_MOVED: dict[str, int] = {"copy": 2, "scale": 2, "add": 3, "triad": 3}
#: Arrays allocated by each kernel.
ARRAYS_USED: dict[str, int] = {"copy": 2, "scale": 2, "add": 3, "triad": 3}
#: Element types and their sizes, bytes.
DTYPES: dict[str, int] = {"float32": 4, "float64": 8, "bfloat16": 2}
#: Initial values a, b, c and the scalar s (STREAM's 1, 2, 0 with c = 0.5 so triad is not a copy of b).
A0, B0, C0, SCALAR = 1.0, 2.0, 0.5, 3.0
#: Expected value of the destination array after one pass of each kernel (exact in every dtype above).
EXPECTED: dict[str, float] = {"copy": A0, "scale": SCALAR * C0, "add": A0 + B0, "triad": B0 + SCALAR * C0}
#: Minimum array size on a GPU or TPU, bytes (1 GiB).
ACCEL_MIN_BYTES = 2**30
#: Each sample lasts at least this long (calls are grouped back to back), seconds.
MIN_SAMPLE_S = 1e-3
#: Share of available memory the arrays may take.
MEMORY_SHARE = 0.6


@dataclass(frozen=True)
class StreamResult:
    """One STREAM kernel at one array size.

    Attributes:
        kind: ``"copy"``, ``"scale"``, ``"add"`` or ``"triad"``.
        nbytes: size of each array, bytes.
        bytes_moved: bytes counted per pass (``ARRAYS_MOVED`` x ``nbytes``).
        timing: seconds per pass (median, min, p10, IQR ...).
        threads: CPU threads PyTorch used (host threads on an accelerator; None for JAX).
        device: where it ran (``"cpu"``, ``"cuda:0"``, ``"tpu"``).
        framework: ``"torch"`` or ``"jax"``.
        dtype: element type.
        inner: passes per timed sample.
        verified: the destination held the expected value after the timed passes.
        environment: the recorded environment.
    """

    kind: str
    nbytes: int
    bytes_moved: int
    timing: Timing
    threads: int | None
    device: str
    framework: str
    dtype: str
    inner: int
    verified: bool
    environment: Environment | None = None

    @property
    def bytes_per_s(self) -> float:
        """Counted bytes / median time per pass, bytes/s."""
        return self.bytes_moved / self.timing.median_s

    @property
    def best_bytes_per_s(self) -> float:
        """Counted bytes / fastest pass, bytes/s (STREAM's "best rate")."""
        return self.bytes_moved / self.timing.min_s

    @property
    def median_s(self) -> float:
        return self.timing.median_s

    @property
    def evidence(self) -> str:
        """``실측`` on an accelerator, ``CPU 동작 확인`` on a CPU."""
        return evidence.CPU_CHECKED if self.device == "cpu" else evidence.MEASURED


def _check_kind(kind: object) -> str:
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {', '.join(map(repr, KINDS))}, got {kind!r}")
    return str(kind)


def _check_dtype(dtype: object) -> str:
    if dtype not in DTYPES:
        raise ValueError(f"dtype must be one of {', '.join(map(repr, DTYPES))}, got {dtype!r}")
    return str(dtype)


def available_memory_bytes(target: Target) -> float | None:
    """Free memory where the arrays will live, bytes (MemAvailable on a CPU, free HBM on CUDA); None if unknown."""
    if target.kind == "cpu":
        try:
            with open("/proc/meminfo", encoding="utf-8") as fh:
                for line in fh:
                    if line.startswith("MemAvailable:"):
                        return float(line.split()[1]) * 1024
        except OSError:
            return None
        return None
    if target.kind == "cuda":
        import torch

        return float(torch.cuda.mem_get_info(target.index)[0])
    return None


def default_nbytes(device: str | Target = "auto") -> int:
    """Per-array size for a bandwidth measurement on ``device``, bytes.

    CPU: four times all last-level cache (``xpucalc.bench.target.llc_bytes``), STREAM's rule.
    CUDA GPU: at least 1 GiB and four times the L2. TPU / other: 1 GiB.
    Rounded up to a whole MiB.
    """
    target = device if isinstance(device, Target) else resolve(device)
    if target.kind == "cpu":
        n = 4 * llc_bytes()
    elif target.kind == "cuda":
        import torch

        l2 = getattr(torch.cuda.get_device_properties(target.index), "L2_cache_size", 0) or 0
        n = max(ACCEL_MIN_BYTES, 4 * int(l2))
    else:
        n = ACCEL_MIN_BYTES
    mib = 2**20
    return int(math.ceil(n / mib) * mib)


class _Arrays:
    """The arrays of one kernel and a call that runs one pass of it."""

    def __init__(self, kind: str, count: int, target: Target, dtype: str) -> None:
        self.kind, self.target = kind, target
        if target.framework == "jax":
            self._init_jax(count, dtype)
        else:
            self._init_torch(count, dtype)

    def _init_torch(self, count: int, dtype: str) -> None:
        import torch

        dt = getattr(torch, dtype)
        dev = self.target.device
        a, b, c = (torch.full((count,), v, dtype=dt, device=dev) for v in (A0, B0, C0))
        s = SCALAR
        self.arrays = (a, b, c)
        self.call = {
            "copy": lambda: c.copy_(a),
            "scale": lambda: torch.mul(c, s, out=b),
            "add": lambda: torch.add(a, b, out=c),
            "triad": lambda: torch.add(b, c, alpha=s, out=a),
        }[self.kind]
        self.dest = {"copy": c, "scale": b, "add": c, "triad": a}[self.kind]

    def _init_jax(self, count: int, dtype: str) -> None:
        import jax
        import jax.numpy as jnp

        d = jax.devices(self.target.device)[self.target.index]
        dt = getattr(jnp, dtype)
        with jax.default_device(d):
            a, b, c = (jnp.full((count,), v, dtype=dt) for v in (A0, B0, C0))
        s = SCALAR
        fn = {
            "copy": jax.jit(lambda a: jnp.copy(a)),
            "scale": jax.jit(lambda c: s * c),
            "add": jax.jit(lambda a, b: a + b),
            "triad": jax.jit(lambda b, c: b + s * c),
        }[self.kind]
        args = {"copy": (a,), "scale": (c,), "add": (a, b), "triad": (b, c)}[self.kind]
        self.arrays = (a, b, c)
        self.last: Any = None

        def call() -> Any:
            self.last = fn(*args)
            return self.last

        self.call = call

    def destination(self) -> Any:
        return self.last if self.target.framework == "jax" else self.dest

    def verified(self) -> bool:
        """Every 4099th element (and the last) of the destination equals ``EXPECTED``."""
        import numpy as np

        dest = self.destination()
        if self.target.framework == "jax":
            sample = np.asarray(dest[::4099].astype("float32"))
            last = float(dest[-1].astype("float32"))
        else:
            sample = dest[::4099].float().cpu().numpy()
            last = float(dest[-1].float())
        want = EXPECTED[self.kind]
        return bool(np.all(sample == want) and last == want)


def stream(kind: str, nbytes: int | None = None, device: str = "auto", *, threads: int | None = None,
           reps: int | None = None, inner: int | None = None, dtype: str = "float32",
           warmup_s: float = 0.1, target_s: float = TARGET_TIMED_S) -> StreamResult:
    """Measure one STREAM kernel: bytes/s counted as STREAM counts them.

    Args:
        kind: ``"copy"`` (c = a), ``"scale"`` (b = s c), ``"add"`` (c = a + b) or ``"triad"`` (a = b + s c).
        nbytes: size of **each** array, bytes (>= one element); None picks ``default_nbytes``.
            copy and scale count 2 x nbytes per pass, add and triad 3 x nbytes.
        device: ``"auto"``, ``"cpu"``, ``"cuda[:N]"``, ``"mps"``, ``"jax[:tpu]"`` (see ``xpucalc.bench.target.resolve``).
        threads: CPU threads (PyTorch CPU only; None: one thread, recorded in the result).
        reps: timed samples; None fills about ``target_s`` seconds (5 to 200 samples).
        inner: passes per sample; None makes each sample last >= 1 ms.
        dtype: ``"float32"`` (default), ``"float64"`` or ``"bfloat16"``.
        warmup_s: warm-up time before timing, seconds (skipped for passes of 50 ms or more:
            the two calibration passes have touched every page by then).
        target_s: timed seconds to aim for when ``reps`` is None.

    Returns:
        a ``StreamResult`` (``.bytes_per_s`` from the median pass, ``.best_bytes_per_s`` from the fastest).

    Raises:
        ValueError: bad ``kind``/``nbytes``/``dtype``/``reps``/``inner``, or arrays that would not fit in free memory.
        RuntimeError: ``device`` is not available.
    """
    kind = _check_kind(kind)
    dtype = _check_dtype(dtype)
    if reps is not None:
        check_count(reps, "reps", 1)
    if inner is not None:
        check_count(inner, "inner", 1)
    positive(warmup_s, "warmup_s")
    positive(target_s, "target_s")
    target = resolve(device)
    size = default_nbytes(target) if nbytes is None else positive_int(nbytes, "nbytes")
    elem = DTYPES[dtype]
    count = size // elem
    if count < 1:
        raise ValueError(f"nbytes must hold at least one {dtype} element ({elem} bytes), got {nbytes!r}")
    size = count * elem
    need = ARRAYS_USED[kind] * size
    free = available_memory_bytes(target)
    if free is not None and need > MEMORY_SHARE * free:
        raise ValueError(f"nbytes={size}: {kind} needs {ARRAYS_USED[kind]} arrays = {need / 2**30:.2f} GiB, more than "
                         f"{MEMORY_SHARE:.0%} of the {free / 2**30:.2f} GiB free; pass a smaller nbytes")
    with cpu_threads(target, threads) as used:
        arrays = _Arrays(kind, count, target, dtype)
        auto_inner, per_pass = calibrate(arrays.call, target, MIN_SAMPLE_S)
        n_inner = auto_inner if inner is None else inner
        samples = time_kernel(arrays.call, target, reps, inner=n_inner, warmup_s=warmup_s, per_call_s=per_pass,
                              target_s=target_s)
        ok = arrays.verified()
        env = environment_of(target)
    del arrays
    return StreamResult(kind, size, ARRAYS_MOVED[kind] * size, summarize(samples, warn=False), used, target.device,
                        target.framework, dtype, n_inner, ok, env)


def sweep_sizes(largest: int, smallest: int = 64 * 2**10, factor: int = 4) -> list[int]:
    """Array sizes from ``smallest`` up by ``factor`` to (and including) ``largest``, bytes."""
    largest, smallest = positive_int(largest, "largest"), positive_int(smallest, "smallest")
    factor = check_count(factor, "factor", 2)
    if smallest > largest:
        raise ValueError(f"smallest ({smallest}) must be <= largest ({largest})")
    out = []
    s = smallest
    while s < largest:
        out.append(s)
        s *= factor
    return out + [largest]


def stream_sweep(kind: str, sizes: Sequence[int], device: str = "auto", *, target_s: float = 0.25,
                 **kwargs: Any) -> list[StreamResult]:
    """``stream`` at each size of ``sizes`` (bytes per array), about ``target_s`` timed seconds each;
    ``kwargs`` go to ``stream``."""
    if not sizes:
        raise ValueError("sizes must hold at least one array size in bytes")
    return [stream(kind, s, device, target_s=target_s, **kwargs) for s in sizes]


@dataclass(frozen=True)
class CopyComparison:
    """``stream`` copy and ``numpy.copyto`` on the same arrays, timed in interleaved rounds.

    Attributes:
        nbytes: size of each array, bytes.
        stream: seconds per copy with PyTorch (the kernel ``stream`` times).
        numpy: seconds per ``numpy.copyto`` of the same memory.
        threads: PyTorch CPU threads (numpy's copy is single-threaded).
    """

    nbytes: int
    stream: Timing
    numpy: Timing
    threads: int

    @property
    def stream_bytes_per_s(self) -> float:
        return 2 * self.nbytes / self.stream.median_s

    @property
    def numpy_bytes_per_s(self) -> float:
        return 2 * self.nbytes / self.numpy.median_s

    @property
    def ratio(self) -> float:
        """stream bandwidth / numpy bandwidth (median times)."""
        return self.stream_bytes_per_s / self.numpy_bytes_per_s


def compare_copy_with_numpy(nbytes: int | None = None, *, rounds: int = 5, reps_per_round: int = 1,
                            threads: int | None = None) -> CopyComparison:
    """Time ``stream``'s CPU copy and ``numpy.copyto`` over the same two arrays, interleaved.

    A second method for the same number: if the two disagree by much more than
    the difference between their loops (numpy's ``memcpy`` may use streaming
    stores that skip the write-allocate read), one of them is measuring
    something else.
    """
    import numpy as np
    import torch

    rounds = check_count(rounds, "rounds", 1)
    reps_per_round = check_count(reps_per_round, "reps_per_round", 1)
    target = Target("torch", "cpu", "cpu")
    size = default_nbytes(target) if nbytes is None else positive_int(nbytes, "nbytes")
    count = max(1, size // 4)
    with cpu_threads(target, threads) as used:
        a = torch.full((count,), A0)
        c = torch.full((count,), C0)
        an, cn = a.numpy(), c.numpy()
        fns = {"stream": lambda: c.copy_(a), "numpy": lambda: np.copyto(cn, an)}
        for fn in fns.values():
            warm_up(fn, min_time_s=0.05, max_time_s=1.0, window=2)
        samples = time_rounds(fns, rounds, reps_per_round)
    return CopyComparison(count * 4, summarize(samples["stream"], warn=False), summarize(samples["numpy"], warn=False),
                          int(used or 1))


__all__ = ["ARRAYS_MOVED", "CopyComparison", "DTYPES", "EXPECTED", "KINDS", "StreamResult", "available_memory_bytes",
           "compare_copy_with_numpy", "default_nbytes", "stream", "stream_sweep", "sweep_sizes"]
