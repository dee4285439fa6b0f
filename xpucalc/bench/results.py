"""What one grid cell measured: :class:`BenchResult`, :class:`GpuTimings`, the unsupported record, and both as JSON."""
from __future__ import annotations

import statistics
from dataclasses import dataclass

from .. import evidence
from ..core.workload import LinearLayer
from .accuracy import Accuracy, worst
from .conditions import Condition
from .environment import Environment, short
from .timing import Timing

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
    """One cell of the grid (a :class:`~xpucalc.bench.conditions.Condition`) and what was measured.

    Attributes:
        condition: framework, path, precision and shape; also readable as ``framework``, ``path``,
            ``precision``, ``m``, ``k``, ``n``.
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
        compiler_setup_s: the compiler's one-time start-up (``run_grid`` compiles a throwaway shape before the
            first compiled condition), seconds; None when the run was not part of a grid or not compiled.
        settings: framework settings in force during the run, e.g. ``(("fp32_precision", "ieee"), ...)``.
        cudagraph_skips: reasons torch.compile gave for not using CUDA graphs (reduce-overhead).
        rounds: interleaved rounds the steady-state repetitions were split into.
    """

    condition: Condition
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
    compiler_setup_s: float | None = None
    settings: tuple[tuple[str, str], ...] = ()
    cudagraph_skips: tuple[str, ...] | None = None
    rounds: int = 1

    @property
    def framework(self) -> str:
        """``"torch"`` or ``"jax"``."""
        return self.condition.framework

    @property
    def path(self) -> str:
        """``"eager"`` or ``"compiled"``."""
        return self.condition.path

    @property
    def precision(self) -> str:
        """``"fp32"`` or ``"bf16"``."""
        return self.condition.precision

    @property
    def m(self) -> int:
        """Rows of X."""
        return self.condition.m

    @property
    def k(self) -> int:
        """Columns of X, rows of W."""
        return self.condition.k

    @property
    def n(self) -> int:
        """Columns of W."""
        return self.condition.n

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
        return self.condition.workload

    @property
    def path_label(self) -> str:
        """Display name of the path, e.g. ``"torch.compile"``."""
        return self.condition.path_label

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
        return self.condition.key()


def unsupported(condition: Condition, reason: str, environment: Environment | None = None) -> BenchResult:
    """A result for something a backend cannot do: status ``unsupported`` and the reason."""
    return BenchResult(condition, status=UNSUPPORTED, reason=reason, environment=environment)


def reason(exc: BaseException) -> str:
    """``"TypeName: first line of the message"`` for a table cell."""
    return f"{type(exc).__name__}: {short(str(exc))}"


def startup_reason(exc: BaseException) -> str:
    """Why a runner could not read its environment: a RuntimeError's own (Korean) message, else :func:`reason`."""
    return str(exc) if isinstance(exc, RuntimeError) else reason(exc)


# --------------------------------------------------------------------------- as JSON

def timing_record(t: Timing | None) -> dict | None:
    """A :class:`~xpucalc.bench.timing.Timing` as plain numbers (seconds), for JSON; None stays None."""
    if t is None:
        return None
    return {"median_s": t.median_s, "min_s": t.min_s, "p10_s": t.p10_s, "q1_s": t.q1_s, "q3_s": t.q3_s,
            "n": t.n, "noisy": t.noisy, "bimodal": t.bimodal}


def result_record(r: BenchResult) -> dict:
    """One result as a JSON-ready dict: the condition, every timing (seconds), accuracy, environment, evidence."""
    env = r.environment
    g = r.gpu
    return {
        "framework": r.framework, "path": r.path, "precision": r.precision, "m": r.m, "k": r.k, "n": r.n,
        "status": r.status, "reason": r.reason, "evidence": r.evidence,
        "first_call_s": r.first_call_s, "first_call_cold_s": r.first_call_cold_s, "setup_s": r.setup_s,
        "compiler_setup_s": r.compiler_setup_s,
        "compile_cache_hit": r.compile_cache_hit, "recompiles": r.recompiles, "cudagraph_skips": r.cudagraph_skips,
        "device": timing_record(r.device), "with_transfer": timing_record(r.with_transfer),
        "with_transfer_pinned": timing_record(r.with_transfer_pinned),
        "gpu": None if g is None else {
            "per_call": timing_record(g.per_call), "back_to_back": timing_record(g.back_to_back),
            "kernel": timing_record(g.kernel), "per_call_l2_cold": timing_record(g.per_call_l2_cold),
            "kernel_l2_cold": timing_record(g.kernel_l2_cold), "per_call_host": timing_record(g.per_call_host),
            "batch": g.batch, "flush_bytes": g.flush_bytes, "clock": g.clock},
        "accuracy_first": None if r.accuracy_first is None else r.accuracy_first.max_abs_err,
        "accuracy_last": None if r.accuracy_last is None else r.accuracy_last.max_abs_err,
        "accuracy_passed": None if r.accuracy is None else r.accuracy.passed,
        "settings": dict(r.settings), "warmup": r.warmup, "reps": r.reps, "rounds": r.rounds, "notes": list(r.notes),
        "environment": environment_record(env),
    }


def environment_record(env: Environment | None) -> dict | None:
    """An :class:`~xpucalc.bench.environment.Environment` as plain values for JSON, with its label and
    evidence; None stays None."""
    if env is None:
        return None
    return {
        "framework": env.framework, "framework_version": env.framework_version, "kind": env.kind,
        "name": env.name, "count": env.count, "device_index": env.device_index, "memory_bytes": env.memory_bytes,
        "compute_capability": env.compute_capability, "l2_bytes": env.l2_bytes, "sm_clock_hz": env.sm_clock_hz,
        "sm_clock_max_hz": env.sm_clock_max_hz, "driver": env.driver, "runtime": env.runtime,
        "threads": env.threads, "python": env.python, "platform": env.platform, "date": env.date,
        "caveats": list(env.caveats()), "extra": dict(env.extra), "label": env.label(), "evidence": env.evidence}


__all__ = ["BenchResult", "GpuTimings", "OK", "UNSUPPORTED", "environment_record", "reason", "result_record",
           "startup_reason", "timing_record", "unsupported"]
