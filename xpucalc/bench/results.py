"""What one grid cell measured: :class:`BenchResult`, :class:`GpuTimings` and the unsupported record."""
from __future__ import annotations

import statistics
from dataclasses import dataclass

from .. import evidence
from .._check import positive, positive_int
from ..core.workload import LinearLayer, linear_layer
from .accuracy import Accuracy, worst
from .conditions import DTYPE_BYTES, PATH_LABELS, PATHS, PRECISIONS, check_choice
from .environment import Environment, short
from .timing import Timing, check_count

OK = "ok"
UNSUPPORTED = "unsupported"


@dataclass(frozen=True)
class GpuTimings:
    """The three GPU numbers of one condition, each a :class:`Timing` of seconds *per call*.

    Attributes:
        per_call: one call between two CUDA events, waited for after each call: what a
            single request sees on an idle GPU (Python dispatch, launch, kernel).
        back_to_back: ``batch`` calls enqueued between two events, divided by ``batch``:
            the rate when the CPU keeps the GPU queue full (launch overlaps the previous kernel).
        kernel: a CUDA graph of ``batch`` calls replayed between two events, divided by
            ``batch``: almost only GPU work (no Python, no per-kernel launch from the CPU).
        per_call_l2_cold: as ``per_call`` with the L2 cache flushed (a buffer of at least 2x the
            L2 size overwritten) before each repetition, outside the timed interval. The flush kernel
            is still running while the call is enqueued, so this is closer to the cold kernel time.
        kernel_l2_cold: one graph replay after a flush, per repetition.
        batch: calls per back-to-back group and per graph.
        flush_bytes: size of the flush buffer, bytes (0 when no flush was done).
        per_call_host: one call timed with the host clock (``perf_counter`` around call + synchronize),
            the clock JAX uses: compare PyTorch with JAX on this one.
        clock: ``"cuda-event"`` (PyTorch) or ``"host"`` (JAX: ``perf_counter`` + ``block_until_ready``).
    """

    per_call: Timing
    back_to_back: Timing
    kernel: Timing | None = None
    per_call_l2_cold: Timing | None = None
    kernel_l2_cold: Timing | None = None
    batch: int = 1
    flush_bytes: float = 0.0
    per_call_host: Timing | None = None
    clock: str = "cuda-event"

    def named(self) -> list[tuple[str, Timing | None]]:
        """(Korean name, timing) in the order the labs show them."""
        return [("호출 1회 지연 (L2 웜)", self.per_call), ("연속 호출 (L2 웜)", self.back_to_back),
                ("커널 (CUDA 그래프, L2 웜)", self.kernel), ("호출 1회 (L2 콜드)", self.per_call_l2_cold),
                ("커널 (CUDA 그래프, L2 콜드)", self.kernel_l2_cold), ("호출 1회 (호스트 시계)", self.per_call_host)]


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
        first_call_s: first call of this condition incl. compile (with whatever compile cache the
            process found, see ``compile_cache_hit``), seconds; one-time process setup is *not* in it.
        device: steady-state timing with all tensors on the device (on a GPU: per-call latency).
        with_transfer: steady-state timing incl. host->device copy of X and device->host copy of Y
            (pageable host memory, synchronous copies).
        accuracy_first, accuracy_last: error of the first output and of the last timed output
            against the float64 reference.
        recompiles: compiles observed after the first call (compiled path; None if not applicable).
        compile_cache_hit: True if the first call was served by an on-disk compile cache
            (its first-call time is then not a cold compile); None if unknown.
        warmup, reps: warm-up calls (at least; warm-up also runs by time) and timed repetitions.
        notes: remarks for the reader (Korean).
        gpu: the three GPU numbers and their L2-cold variants (None off a CUDA GPU).
        with_transfer_pinned: as ``with_transfer`` with pinned host buffers and ``non_blocking`` copies.
        first_call_cold_s: first call in a fresh process with empty compile caches, seconds (None if not run).
        setup_s: one-time process setup (runtime/context start, first kernels) measured on its own, seconds.
        settings: framework settings in force during the run, e.g. ``(("fp32_precision", "ieee"), ...)``.
        cudagraph_skips: reasons torch.compile gave for not using CUDA graphs (reduce-overhead).
        rounds: interleaved rounds the steady-state repetitions were split into.
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
    accuracy_first: Accuracy | None = None
    recompiles: int | None = None
    compile_cache_hit: bool | None = None
    warmup: int = 0
    reps: int = 0
    notes: tuple[str, ...] = ()
    accuracy_last: Accuracy | None = None
    gpu: GpuTimings | None = None
    with_transfer_pinned: Timing | None = None
    first_call_cold_s: float | None = None
    setup_s: float | None = None
    settings: tuple[tuple[str, str], ...] = ()
    cudagraph_skips: tuple[str, ...] | None = None
    rounds: int = 1

    @property
    def ok(self) -> bool:
        """True when the condition ran (status ``"ok"``)."""
        return self.status == OK

    @property
    def accuracy(self) -> Accuracy | None:
        """The worse of the first and the last output's accuracy (both must pass)."""
        return worst(self.accuracy_first, self.accuracy_last)

    @property
    def workload(self) -> LinearLayer:
        """The analytic workload (F = 2mkn, Q_min, I) at this precision."""
        return linear_layer(self.m, self.k, self.n, DTYPE_BYTES[self.precision])

    @property
    def path_label(self) -> str:
        """Display name of the path, e.g. ``"torch.compile"``."""
        return PATH_LABELS.get((self.framework, self.path), f"{self.framework} {self.path}")

    @property
    def evidence(self) -> str:
        """Evidence label: from the environment for a run, ``아직 미측정`` for an unsupported cell."""
        if not self.ok or self.environment is None:
            return evidence.NOT_MEASURED
        return self.environment.evidence

    @property
    def device_median_s(self) -> float | None:
        """Median of the device-resident timing, seconds (None if not measured)."""
        return self.device.median_s if self.device is not None else None

    @property
    def achieved_flops(self) -> float | None:
        """F / device-resident median, FLOP/s."""
        t = self.device_median_s
        return self.workload.flops / t if t else None

    @property
    def effective_bandwidth(self) -> float | None:
        """Q_min / device-resident median, bytes/s (the source's "유효 대역폭": neither HBM nor L2 bandwidth)."""
        t = self.device_median_s
        return self.workload.bytes / t if t else None

    @property
    def transfer_ratio(self) -> float | None:
        """With-copies median / device-resident median (on a CPU both boundaries do the same work: ~1)."""
        if self.device is None or self.with_transfer is None or self.device.median_s <= 0:
            return None
        return self.with_transfer.median_s / self.device.median_s

    @property
    def transfer_ratio_min(self) -> float | None:
        """Fastest with-copies call / fastest device-resident call: the ratio a loaded machine disturbs least
        (a stalled call only gets longer, so the minimum of each boundary is its least disturbed call)."""
        if self.device is None or self.with_transfer is None or self.device.min_s <= 0:
            return None
        return self.with_transfer.min_s / self.device.min_s

    @property
    def transfer_ratio_paired(self) -> float | None:
        """Median over rounds of (with-copies call / device-resident call) of the same round.

        The two calls of a round run back to back, so a slow spell of the machine usually hits both; a stall
        that hits only one moves that round's ratio up or down alike, and the median ignores it. Needs
        interleaved samples (same count, round order); None otherwise.
        """
        if self.device is None or self.with_transfer is None or self.device.n != self.with_transfer.n:
            return None
        pairs = [c / d for d, c in zip(self.device.samples_s, self.with_transfer.samples_s) if d > 0]
        return statistics.median(pairs) if pairs else None

    def key(self) -> tuple[str, str, int]:
        """(path, precision, m): how results line up with reference runs."""
        return (self.path, self.precision, self.m)


def unsupported(framework: str, path: str, precision: str, m: int, k: int, n: int, reason: str,
                environment: Environment | None = None) -> BenchResult:
    """A result for something a backend cannot do: status ``unsupported`` and the reason."""
    return BenchResult(framework, path, precision, m, k, n, status=UNSUPPORTED, reason=reason,
                       environment=environment)


def reason(exc: BaseException) -> str:
    """``"TypeName: first line of the message"`` for a table cell."""
    return f"{type(exc).__name__}: {short(str(exc))}"


def validate(path: str, precision: str, m: int, k: int, n: int, warmup: int | None, reps: int | None,
             noisy_threshold: float) -> tuple[int, int, int]:
    """Check a runner's arguments (ValueError naming the bad one); returns ``(m, k, n)`` as ints."""
    check_choice(path, "path", PATHS)
    check_choice(precision, "precision", PRECISIONS)
    mm, kk, nn = positive_int(m, "m"), positive_int(k, "k"), positive_int(n, "n")
    if warmup is not None:
        check_count(warmup, "warmup", 0)
    if reps is not None:
        check_count(reps, "reps", 1)
    positive(noisy_threshold, "noisy_threshold")
    return mm, kk, nn


__all__ = ["BenchResult", "GpuTimings", "OK", "UNSUPPORTED", "reason", "unsupported", "validate"]
