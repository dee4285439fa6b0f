"""The source's reference measurements (A100-SXM4-40GB / PyTorch, TPU v5 lite / JAX, 2026-10-19) as data.

The numbers live in ``xpucalc/catalog/data/reference_runs.csv`` (milliseconds, TFLOP/s and
GB/s, as published); :func:`load` returns them as typed records in SI units, and
:func:`floor_gap` holds each beside its roofline floor on the same device's spec sheet.
``xpucalc.render.bench_tables`` shows them as tables, ``xpucalc.render.bench_plots`` draws
them (and a reader's own :class:`~xpucalc.bench.BenchResult` list next to them).
"""
from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from .. import evidence
from ..catalog.store import read_text
from ..core.workload import LinearLayer, linear_layer
from ..units import GB, MS, TFLOPS
from .conditions import DTYPE_BYTES, PATH_LABELS

#: Columns of reference_runs.csv, in order.
COLUMNS: tuple[str, ...] = (
    "device", "device_key", "framework", "framework_version", "runtime", "path", "precision", "m", "k", "n",
    "intensity_flop_per_byte", "first_call_ms", "device_ms", "with_transfer_ms", "achieved_tflops",
    "effective_gbps", "max_abs_err", "passed", "date", "source",
)

#: The timing boundaries of a run: field of ReferenceRun / BenchResult, Korean name.
BOUNDARIES: dict[str, str] = {
    "device": "장치 상주, 호출 1회 중앙값",
    "with_transfer": "전송 포함, 호출 1회 중앙값",
    "first_call": "최초 1회 (컴파일·초기화 포함)",
}


@dataclass(frozen=True)
class ReferenceRun:
    """One row of the reference measurements, in SI units.

    Attributes:
        device: device name as the runtime reported it (``"NVIDIA A100-SXM4-40GB"``, ``"TPU v5 lite"``).
        device_key: spec-catalog key of that device (``"a100-sxm4-40gb"``, ``"tpu-v5e"``).
        framework, framework_version, runtime: software of the run.
        path: ``"eager"`` or ``"compiled"``; precision: ``"fp32"`` or ``"bf16"``.
        m, k, n: X [m, k], W [k, n].
        intensity: published arithmetic intensity, FLOP/byte (rounded to 2 decimals).
        first_call_s, device_s, with_transfer_s: the three boundaries, seconds (medians for the last two).
        achieved_flops: published throughput, FLOP/s. effective_bandwidth: published Q_min / time, bytes/s.
        max_abs_err: max abs(Y - Y_ref(float64)); passed: the run's verdict.
        date: ISO date of the measurement; source: where the row comes from.
        evidence_label: ``실측`` for every published row; a row read back from a ``tools/device-run``
            rehearsal on a CPU carries ``CPU 동작 확인`` (see ``xpucalc.bench.device_run``).
    """

    device: str
    device_key: str
    framework: str
    framework_version: str
    runtime: str
    path: str
    precision: str
    m: int
    k: int
    n: int
    intensity: float
    first_call_s: float
    device_s: float
    with_transfer_s: float
    achieved_flops: float
    effective_bandwidth: float
    max_abs_err: float
    passed: bool
    date: str
    source: str
    evidence_label: str = evidence.MEASURED

    @property
    def evidence(self) -> str:
        """``실측`` (measured on the named device, with date and software) unless the row says otherwise."""
        return self.evidence_label

    @property
    def workload(self) -> LinearLayer:
        """F = 2mkn, Q_min and I of the run's layer at its precision."""
        return linear_layer(self.m, self.k, self.n, DTYPE_BYTES[self.precision])

    @property
    def path_label(self) -> str:
        """Display name of the path, e.g. ``"torch.compile"``."""
        return PATH_LABELS.get((self.framework, self.path), self.path)

    def key(self) -> tuple[str, str, int]:
        """(path, precision, m): how reference rows line up with a reader's results."""
        return (self.path, self.precision, self.m)

    def time_s(self, boundary: str) -> float:
        """Time of ``boundary`` (``"device"``, ``"with_transfer"``, ``"first_call"``), seconds."""
        return {"device": self.device_s, "with_transfer": self.with_transfer_s,
                "first_call": self.first_call_s}[check_boundary(boundary)]


def check_boundary(boundary: str) -> str:
    """``boundary`` if it is one of :data:`BOUNDARIES`, else ValueError naming them."""
    if boundary not in BOUNDARIES:
        raise ValueError(f"boundary must be one of {', '.join(BOUNDARIES)}, got {boundary!r}")
    return boundary


def _parse(row: dict[str, str], line: int) -> ReferenceRun:
    try:
        passed = row["passed"].strip().lower()
        if passed not in ("true", "false"):
            raise ValueError(f"passed must be true or false, got {row['passed']!r}")
        return ReferenceRun(
            device=row["device"], device_key=row["device_key"], framework=row["framework"],
            framework_version=row["framework_version"], runtime=row["runtime"], path=row["path"],
            precision=row["precision"], m=int(row["m"]), k=int(row["k"]), n=int(row["n"]),
            intensity=float(row["intensity_flop_per_byte"]), first_call_s=float(row["first_call_ms"]) * MS,
            device_s=float(row["device_ms"]) * MS, with_transfer_s=float(row["with_transfer_ms"]) * MS,
            achieved_flops=float(row["achieved_tflops"]) * TFLOPS,
            effective_bandwidth=float(row["effective_gbps"]) * GB, max_abs_err=float(row["max_abs_err"]),
            passed=passed == "true", date=row["date"], source=row["source"])
    except (KeyError, ValueError) as exc:
        raise ValueError(f"reference_runs.csv line {line}: {exc}") from None


@lru_cache(maxsize=None)
def _all() -> tuple[ReferenceRun, ...]:
    text = read_text("reference_runs.csv")
    reader = csv.DictReader(io.StringIO(text))
    if tuple(reader.fieldnames or ()) != COLUMNS:
        raise ValueError(f"reference_runs.csv columns {reader.fieldnames} differ from {list(COLUMNS)}")
    return tuple(_parse(row, i + 2) for i, row in enumerate(reader))


def load(device_key: str | None = None, framework: str | None = None) -> list[ReferenceRun]:
    """Reference runs, optionally only those of ``device_key`` and/or ``framework``.

    Raises KeyError naming the known values when a filter matches nothing.
    """
    runs = list(_all())
    if device_key is not None:
        known = sorted({r.device_key for r in runs})
        if device_key not in known:
            raise KeyError(f"device_key {device_key!r} has no reference runs; known: {', '.join(known)}")
        runs = [r for r in runs if r.device_key == device_key]
    if framework is not None:
        known = sorted({r.framework for r in _all()})
        if framework not in known:
            raise KeyError(f"framework {framework!r} has no reference runs; known: {', '.join(known)}")
        runs = [r for r in runs if r.framework == framework]
    return runs


def get(device_key: str, path: str, precision: str, m: int) -> ReferenceRun:
    """The single reference run of ``device_key`` for (path, precision, m); KeyError if none."""
    for r in load(device_key):
        if r.key() == (path, precision, m):
            return r
    raise KeyError(f"no reference run for {device_key!r} path={path!r} precision={precision!r} m={m!r}")


# --------------------------------------------------------------------------- measured vs roofline floor

@dataclass(frozen=True)
class FloorGap:
    """A reference run beside its roofline floor on the same device's spec sheet.

    Attributes:
        run: the reference run.
        floor_s: roofline time max(F / peak, Q_min / bandwidth) with the catalog's dense peak of the
            run's precision and its memory bandwidth, seconds; None when the catalog has no such peak.
        bound: ``"memory"`` or ``"compute"`` (which term sets the floor); None with ``floor_s``.
        bandwidth: the catalog's memory bandwidth of the device, bytes/s (None with ``floor_s``).
        reason: why there is no floor (the catalog's message), else ``""``.
        compute_floor_s: the compute term F / peak alone, seconds (None with ``floor_s``). The memory term
            assumes every call reads Q_min from main memory; a repeated call whose weights stay in a cache can
            beat it, never the compute term.
    """

    run: ReferenceRun
    floor_s: float | None
    bound: str | None
    bandwidth: float | None = None
    reason: str = ""
    compute_floor_s: float | None = None

    @property
    def gap(self) -> float | None:
        """Measured per-call time / floor (how many floors the measurement is); None without a floor."""
        return self.run.device_s / self.floor_s if self.floor_s else None

    @property
    def bandwidth_share(self) -> float | None:
        """Q_min / measured time as a share of the spec bandwidth (0..1); None without a floor."""
        if self.bandwidth is None:
            return None
        return self.run.workload.bytes / self.run.device_s / self.bandwidth


def floor_gap(run: ReferenceRun) -> FloorGap:
    """The roofline floor of ``run``'s workload on its device (catalog peak of its precision, dense)."""
    from ..catalog import devices
    from ..core.roofline import roofline

    try:
        dev = devices.get(run.device_key, precision=run.precision)
    except (KeyError, ValueError) as exc:
        return FloorGap(run, None, None, None, str(exc))
    r = roofline(run.workload, dev)
    return FloorGap(run, r.time, r.bound, dev.bandwidth, compute_floor_s=r.compute_time)


def floor_gaps(runs: Sequence[ReferenceRun] | None = None) -> list[FloorGap]:
    """:func:`floor_gap` of every run (default: all reference runs)."""
    return [floor_gap(r) for r in (load() if runs is None else runs)]


def transfer_ratios(run: ReferenceRun) -> tuple[float, float]:
    """(total / device, extra / device) of a run's with-copies time: the two like-for-like transfer readings."""
    return run.with_transfer_s / run.device_s, (run.with_transfer_s - run.device_s) / run.device_s


def throughput_drop(big: ReferenceRun, small: ReferenceRun) -> float:
    """How many times lower the throughput F / time of ``small`` is than ``big``'s, from the times (not the
    rounded published throughputs): (F_big / t_big) / (F_small / t_small)."""
    return (big.workload.flops / big.device_s) / (small.workload.flops / small.device_s)


__all__ = ["BOUNDARIES", "COLUMNS", "FloorGap", "ReferenceRun", "check_boundary", "floor_gap", "floor_gaps", "get",
           "load", "throughput_drop", "transfer_ratios"]
