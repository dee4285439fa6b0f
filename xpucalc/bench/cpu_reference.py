"""Device measurements made once on the course's CPU build machine, shipped as data for the book.

The book must not run benchmarks while it builds, so its roofline and all-reduce
pages read ``xpucalc/catalog/data/cpu_reference_measurements.json``: STREAM copy/triad
over arrays of four times the LLC (and one inside the cache), FP32 GEMM, the
layer Y = ReLU(XW + b) over M, and a gloo all-reduce sweep, every timing with
its samples. Evidence label: ``CPU 동작 확인`` (a CPU, with other jobs running
on it; see ``conditions``). ``load`` turns the file back into the result
objects of ``.bandwidth``, ``.sweep`` and ``.collectives``;
``measure`` re-makes it (``python -m xpucalc.bench.cpu_reference --write``).
"""
from __future__ import annotations

import datetime as _dt
import json
import os
import platform
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..catalog.store import load_json
from ..core.device import Device
from .bandwidth import ARRAYS_MOVED, StreamResult
from .alpha_beta import fit_alpha_beta
from .collectives import CollectiveRow
from .sweep import LayerPoint
from .timing import summarize

FILE = "cpu_reference_measurements.json"


@dataclass(frozen=True)
class CpuReference:
    """The stored measurements, as result objects.

    Attributes:
        date, machine, conditions, evidence: where, when and under what load they were made.
        stream: copy and triad over the large arrays, then triad inside the cache.
        gemm_fp32_best_flops: fastest FP32 square GEMM, FLOP/s; gemm_size: its size.
        layer: the layer at each M (FP32, K = N = 1024).
        allreduce: gloo all-reduce rows. targets: the cross-checks of the run (ratios and R²).
    """

    date: str
    machine: dict[str, Any]
    conditions: str
    evidence: str
    stream: tuple[StreamResult, ...]
    gemm_fp32_best_flops: float
    gemm_size: int
    layer: tuple[LayerPoint, ...]
    allreduce: tuple[CollectiveRow, ...]
    targets: dict[str, float]

    def stream_result(self, kind: str, in_cache: bool = False) -> StreamResult:
        """The large-array (or the in-cache) result of ``kind``."""
        for r in self.stream:
            if r.kind == kind and (r.nbytes * 3 <= self.machine["llc_bytes"]) == in_cache:
                return r
        raise KeyError(f"no {'in-cache' if in_cache else 'large-array'} {kind!r} result in {FILE}")

    @property
    def peak_flops(self) -> float:
        """The highest FP32 matrix-multiply rate seen: the square GEMM's best or the layer's best point, FLOP/s.

        On a busy machine the one GEMM can be slowed more than some of the layer's points; a roof
        below measured points would contradict itself, so the roof is the best of all of them.
        """
        layer_best = max(p.workload.flops / p.timing.min_s for p in self.layer)
        return max(self.gemm_fp32_best_flops, layer_best)

    def roofs(self) -> list[Device]:
        """Measured roofs: (``peak_flops``, large-array triad) and (same peak, in-cache triad)."""
        peak = self.peak_flops
        return [Device("측정 상한선(큰 배열 triad)", peak, self.stream_result("triad").bytes_per_s),
                Device("측정 캐시 상한선(캐시 안 triad)", peak, self.stream_result("triad", True).bytes_per_s)]


def load(name: str = FILE) -> CpuReference:
    """Read the stored measurements (no benchmark runs)."""
    d = load_json(name)
    stream = tuple(StreamResult(s["kind"], s["nbytes"], ARRAYS_MOVED[s["kind"]] * s["nbytes"],
                                summarize(s["samples_s"], warn=False), s["threads"], "cpu", "torch", "float32",
                                s["inner"], s["verified"]) for s in d["stream"])
    layer = tuple(LayerPoint(p["m"], p["k"], p["n"], p["precision"], summarize(p["samples_s"], warn=False), "cpu",
                             p["threads"]) for p in d["layer"])
    ar = d["allreduce"]
    rows = tuple(CollectiveRow("all_reduce", r["size_bytes"], ar["world_size"], ar["backend"],
                               summarize(r["samples_s"], warn=False), r["correct"]) for r in ar["rows"])
    return CpuReference(d["date"], d["machine"], d["conditions"], d["evidence"], stream,
                        float(d["gemm"]["best_flops_per_s"]), int(d["gemm"]["size"]), layer, rows,
                        dict(d["targets"]))


def _load_average() -> str:
    try:
        return ", ".join(f"{x:.1f}" for x in os.getloadavg())
    except OSError:
        return "unknown"


def measure(path: str | os.PathLike[str] | None = None) -> dict[str, Any]:  # pragma: no cover - minutes of benchmarks
    """Run the measurements on this CPU and write the JSON (to ``path``, default the package's data file)."""
    import torch

    from . import bandwidth, matmul, sweep
    from .collectives import DEFAULT_SIZES, allreduce_sweep
    from .target import cache_sizes, llc_bytes

    load_before = _load_average()
    big = bandwidth.default_nbytes("cpu")
    stream_rows = [bandwidth.stream(k, big, "cpu") for k in ("copy", "triad")]
    stream_rows.append(bandwidth.stream("triad", 16 * 2**20, "cpu", target_s=0.5))
    copy_cmp = bandwidth.compare_copy_with_numpy(big, rounds=5)
    g = matmul.gemm(2048, 2048, 2048, "fp32", "cpu")
    g_cmp = matmul.compare_with_torch_benchmark(1024, 1024, 1024, "fp32", rounds=3)
    layer = sweep.layer_sweep(sweep.DEFAULT_MS, 1024, 1024, "fp32", "cpu", target_s=0.2)
    ar = allreduce_sweep(DEFAULT_SIZES, 2, "gloo")
    fit_med = fit_alpha_beta([r.size_bytes for r in ar], [r.time_s for r in ar])
    fit_p10 = fit_alpha_beta([r.size_bytes for r in ar], [r.timing.p10_s for r in ar])
    caches = cache_sizes()
    doc = {
        "description": "Device measurements on the course's CPU build machine (labs 04/05 in miniature), read by the "
                       "book's roofline and all-reduce pages. Made by xpucalc.bench.cpu_reference.measure().",
        "date": _dt.date.today().isoformat(),
        "evidence": "CPU 동작 확인",
        "machine": {"cpu": _cpu(), "logical_cpus": os.cpu_count(), "llc_bytes": llc_bytes(),
                    "caches": {f"L{lv}": {"size_bytes": c.size_bytes, "instances": c.instances}
                               for lv, c in sorted(caches.items())},
                    "torch": torch.__version__, "python": platform.python_version(),
                    "platform": platform.platform(terse=True), "threads": 1},
        "conditions": f"one PyTorch CPU thread per process; other jobs were running on the same 2-core machine "
                      f"(load average over 1, 5, 15 min: {load_before} before, {_load_average()} after)",
        "stream": [{"kind": r.kind, "nbytes": r.nbytes, "samples_s": list(r.timing.samples_s), "threads": r.threads,
                    "inner": r.inner, "verified": r.verified} for r in stream_rows],
        "gemm": {"precision": "fp32", "size": 2048, "best_flops_per_s": g.best_flops_per_s,
                 "median_flops_per_s": g.flops_per_s},
        "layer": [{"m": p.m, "k": p.k, "n": p.n, "precision": p.precision, "threads": p.threads,
                   "samples_s": list(p.timing.samples_s)} for p in layer],
        "allreduce": {"backend": "gloo", "world_size": 2,
                      "rows": [{"size_bytes": r.size_bytes, "correct": r.correct, "samples_s": list(r.timing.samples_s)}
                               for r in ar]},
        "targets": {"copy_over_numpy": copy_cmp.ratio, "gemm_over_torch_benchmark": g_cmp.ratio,
                    "allreduce_fit_r2_median": fit_med.r2, "allreduce_fit_r2_p10": fit_p10.r2},
    }
    out = Path(path) if path else Path(__file__).resolve().parents[1] / "catalog" / "data" / FILE
    text = json.dumps(_rounded(doc), ensure_ascii=False, indent=1)
    text = re.sub(r"\[\s*([-0-9.e+,\s]+?)\s*\]", lambda m: "[" + re.sub(r"\s+", " ", m.group(1)) + "]", text)
    out.write_text(text + "\n", encoding="utf-8")
    return doc


def _rounded(node: Any) -> Any:  # pragma: no cover
    """Floats to 4 significant digits (timings are not more precise than that)."""
    if isinstance(node, float):
        return float(f"{node:.4g}")
    if isinstance(node, list):
        return [_rounded(x) for x in node]
    if isinstance(node, dict):
        return {k: _rounded(v) for k, v in node.items()}
    return node


def _cpu() -> str:  # pragma: no cover
    from .environment import torch_environment

    return torch_environment("cpu").name


if __name__ == "__main__":  # pragma: no cover
    if sys.argv[1:] == ["--write"]:
        d = measure()
        print(json.dumps(d["targets"], indent=1))
    else:
        print("usage: python -m xpucalc.bench.cpu_reference --write")
