"""Collectives measured with ``torch.distributed``: all-reduce, all-gather, reduce-scatter.

``collective_sweep`` starts ``world_size`` worker processes itself (``python -c`` calling
this module's ``_worker``, one per rank, a free TCP port on 127.0.0.1),
waits for them with a time limit and always stops them: on success, on a
worker error and on the time limit (the whole process group is killed).
gloo runs on CPUs (several processes on one machine); NCCL needs one CUDA
GPU per rank.

Sizes and bandwidths follow nccl-tests (``doc/PERFORMANCE.md``):

* ``size_bytes`` -- all-reduce: the buffer each rank reduces; all-gather: the
  gathered output (n x each rank's part); reduce-scatter: each rank's input
  (n x its output part);
* ``algbw = size_bytes / time``;
* ``busbw = algbw x factor`` with factor 2(n-1)/n for all-reduce and (n-1)/n
  for all-gather and reduce-scatter (``xpucalc.llm.comm.busbw_factor``, the one home of
  every collective formula), so busbw can be held against one link's bandwidth.

Time of one repetition = the slowest rank's time (all ranks start after a
barrier); the row's ``time_s`` is the median over repetitions.
"""
from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .. import evidence
from .._check import positive, positive_int
from ..llm.comm import allreduce_time_s, busbw_factor
from .alpha_beta import AlphaBetaFit, fit_alpha_beta
from .timing import Timing, calls_to_fill, check_count, summarize

OPS: tuple[str, ...] = ("all_reduce", "all_gather", "reduce_scatter")
BACKENDS: tuple[str, ...] = ("gloo", "nccl")
#: Korean display names.
OP_LABELS: dict[str, str] = {"all_reduce": "all-reduce", "all_gather": "all-gather", "reduce_scatter": "reduce-scatter"}
#: Default message sizes: 1 KiB to 64 MiB in steps of 4.
DEFAULT_SIZES: tuple[int, ...] = tuple(2**10 * 4**i for i in range(9))
#: Timed seconds per size a worker aims for (repetitions within ``timing.MIN_REPS`` .. ``MAX_REPS``).
TIME_PER_SIZE_S = 0.2
#: Untimed seconds of calls per size before timing (at least ``warmup`` calls, at most ``MAX_WARMUP``).
WARMUP_PER_SIZE_S = 0.05
MAX_WARMUP = 100
ELEMENT_BYTES = 4  # float32


@dataclass(frozen=True)
class CollectiveRow:
    """One message size of one collective.

    Attributes:
        op: ``"all_reduce"``, ``"all_gather"`` or ``"reduce_scatter"``.
        size_bytes: nccl-tests' size S (see the module text), bytes.
        world_size: ranks. backend: ``"gloo"`` or ``"nccl"``.
        timing: seconds per operation (slowest rank per repetition).
        correct: the result held the expected values (checked once before timing).
    """

    op: str
    size_bytes: int
    world_size: int
    backend: str
    timing: Timing
    correct: bool

    @property
    def time_s(self) -> float:
        """Median time per operation, seconds."""
        return self.timing.median_s

    @property
    def algbw(self) -> float:
        """size_bytes / time_s, bytes/s."""
        return self.size_bytes / self.time_s

    @property
    def busbw(self) -> float:
        """algbw x ``xpucalc.llm.comm.busbw_factor``, bytes/s."""
        return self.algbw * busbw_factor(self.op, self.world_size)

    @property
    def evidence(self) -> str:
        return evidence.CPU_CHECKED if self.backend == "gloo" else evidence.MEASURED


def _check_op(op: object) -> str:
    if op not in OPS:
        raise ValueError(f"op must be one of {', '.join(map(repr, OPS))}, got {op!r}")
    return str(op)


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago (the OS picks it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class CollectiveError(RuntimeError):
    """A worker failed or the time limit ran out. ``pids`` are the worker processes (all stopped by then)."""

    def __init__(self, message: str, pids: Sequence[int] = ()) -> None:
        super().__init__(message)
        self.pids = tuple(pids)


def _stop(procs: Sequence[subprocess.Popen[Any]]) -> None:
    """Kill each worker's process group (its own session), then reap it."""
    for p in procs:
        if p.poll() is None:
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                p.kill()
    for p in procs:
        try:
            p.wait(timeout=10)
        except subprocess.TimeoutExpired:  # pragma: no cover - SIGKILL is not refused
            pass


def run_processes(commands: Sequence[Sequence[str]], envs: Sequence[dict[str, str]], timeout_s: float) -> list[str]:
    """Start one process per command, wait for all with a time limit, stop all of them whatever happens.

    Returns each process's stderr. Raises ``CollectiveError`` when one exits
    non-zero (the others are killed at once) or when ``timeout_s`` passes.
    """
    limit = positive(timeout_s, "timeout_s")
    if len(commands) != len(envs) or not commands:
        raise ValueError("commands and envs must be non-empty and of the same length")
    logs = [tempfile.TemporaryFile(mode="w+") for _ in commands]
    procs: list[subprocess.Popen[Any]] = []
    try:
        for cmd, env, log in zip(commands, envs, logs):
            procs.append(subprocess.Popen(list(cmd), env=env, stdout=subprocess.DEVNULL, stderr=log,
                                          start_new_session=True))
        deadline = time.monotonic() + limit
        while True:
            codes = [p.poll() for p in procs]
            bad = [(i, c) for i, c in enumerate(codes) if c not in (None, 0)]
            if bad:
                i, c = bad[0]
                _stop(procs)
                logs[i].seek(0)
                tail = logs[i].read()[-1500:]
                raise CollectiveError(f"rank {i} exited with code {c}:\n{tail}", [p.pid for p in procs])
            if all(c == 0 for c in codes):
                break
            if time.monotonic() > deadline:
                _stop(procs)
                raise CollectiveError(f"workers did not finish within timeout_s={limit:g} s; all were stopped",
                                      [p.pid for p in procs])
            time.sleep(0.02)
        out = []
        for log in logs:
            log.seek(0)
            out.append(log.read())
        return out
    finally:
        _stop(procs)
        for log in logs:
            log.close()


def _package_root() -> str:
    return str(Path(__file__).resolve().parents[2])


def collective_sweep(sizes: Sequence[int] = DEFAULT_SIZES, world_size: int = 2, backend: str = "gloo", *,
                     ops: Sequence[str] = OPS, reps: int | None = None, warmup: int = 2,
                     timeout_s: float = 300.0, threads_per_rank: int = 1) -> list[CollectiveRow]:
    """Measure ``ops`` at every size with ``world_size`` processes started here; rows in (op, size) order.

    Args:
        sizes: nccl-tests sizes S, bytes (each rounded down to a multiple of
            ``world_size`` x 4 bytes, at least that; the rows say what was used).
        world_size: ranks (>= 2). backend: ``"gloo"`` (CPU) or ``"nccl"`` (one CUDA GPU per rank).
        ops: which collectives.
        reps: timed repetitions per size (None: about 0.2 s' worth, 5 to 200).
        warmup: least untimed repetitions per size (>= 1), after the one that checks the result;
            rank 0 adds more until about 0.05 s have passed.
        timeout_s: the whole run's limit, seconds; past it every worker is killed.
        threads_per_rank: PyTorch CPU threads in each worker.

    Raises:
        ValueError: bad arguments, or NCCL without enough GPUs.
        RuntimeError: a worker failed or the run timed out (``CollectiveError``, a subclass; workers stopped).
    """
    n = check_count(world_size, "world_size", 2)
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {', '.join(map(repr, BACKENDS))}, got {backend!r}")
    if not sizes:
        raise ValueError("sizes must hold at least one message size in bytes")
    if not ops:
        raise ValueError("ops must name at least one collective")
    op_list = [_check_op(o) for o in ops]
    unit = n * ELEMENT_BYTES
    used_sizes = [max(unit, positive_int(s, "sizes") // unit * unit) for s in sizes]
    if reps is not None:
        check_count(reps, "reps", 1)
    warmup = check_count(warmup, "warmup", 1)
    threads = check_count(threads_per_rank, "threads_per_rank", 1)
    positive(timeout_s, "timeout_s")
    if backend == "nccl":
        import torch

        if torch.cuda.device_count() < n:
            raise ValueError(f"backend='nccl' needs {n} CUDA GPUs (one per rank); this machine has "
                             f"{torch.cuda.device_count()}. Use backend='gloo' or a smaller world_size")
    with tempfile.TemporaryDirectory(prefix="xpucalc-coll-") as tmp:
        spec = {"sizes": used_sizes, "ops": op_list, "reps": reps, "warmup": warmup, "backend": backend,
                "threads": threads, "out": tmp}
        spec_path = Path(tmp, "spec.json")
        spec_path.write_text(json.dumps(spec))
        port = free_port()
        env_base = dict(os.environ)
        env_base["PYTHONPATH"] = os.pathsep.join([_package_root()] + [p for p in [env_base.get("PYTHONPATH")] if p])
        env_base.update({"MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(port), "WORLD_SIZE": str(n),
                         "OMP_NUM_THREADS": str(threads)})
        envs = [dict(env_base, RANK=str(r)) for r in range(n)]
        cmd = [sys.executable, "-c", "import sys; from xpucalc.bench.collectives import _worker; _worker(sys.argv[1])",
               str(spec_path)]
        run_processes([cmd] * n, envs, timeout_s)
        per_rank = [json.loads(Path(tmp, f"rank{r}.json").read_text()) for r in range(n)]
    rows = []
    for op in op_list:
        for size in used_sizes:
            key = f"{op}:{size}"
            samples = [max(vals) for vals in zip(*(rank[key]["samples"] for rank in per_rank))]
            correct = all(rank[key]["correct"] for rank in per_rank)
            rows.append(CollectiveRow(op, size, n, backend, summarize(samples, warn=False), correct))
    return rows


def allreduce_sweep(sizes: Sequence[int] = DEFAULT_SIZES, world_size: int = 2, backend: str = "gloo",
                    **kwargs: Any) -> list[CollectiveRow]:
    """All-reduce rows (size_bytes, time_s, algbw, busbw) -- ``collective_sweep`` with ``ops=("all_reduce",)``."""
    return collective_sweep(sizes, world_size, backend, ops=("all_reduce",), **kwargs)


def allgather_sweep(sizes: Sequence[int] = DEFAULT_SIZES, world_size: int = 2, backend: str = "gloo",
                    **kwargs: Any) -> list[CollectiveRow]:
    """All-gather rows; ``size_bytes`` is the gathered output."""
    return collective_sweep(sizes, world_size, backend, ops=("all_gather",), **kwargs)


def reduce_scatter_sweep(sizes: Sequence[int] = DEFAULT_SIZES, world_size: int = 2, backend: str = "gloo",
                         **kwargs: Any) -> list[CollectiveRow]:
    """Reduce-scatter rows; ``size_bytes`` is each rank's input."""
    return collective_sweep(sizes, world_size, backend, ops=("reduce_scatter",), **kwargs)


def compare_with_ring_formula(rows: Sequence[CollectiveRow], fit: AlphaBetaFit | None = None) -> list[dict[str, float]]:
    """Measured all-reduce times beside ``xpucalc.llm.comm.allreduce_time_s`` with the fitted bandwidth.

    For each row: ``measured_s``, ``fit_s`` (alpha + beta S), ``formula_s`` (the ring
    formula 2(n-1)/n S / B with B = ``AlphaBetaFit.ring_link_bandwidth``, no
    latency term) and ``ratio`` = measured / formula.
    """
    if not rows:
        raise ValueError("rows must hold at least one all-reduce row")
    if any(r.op != "all_reduce" for r in rows):
        raise ValueError("compare_with_ring_formula needs all-reduce rows only")
    n = rows[0].world_size
    fit = fit or fit_alpha_beta([r.size_bytes for r in rows], [r.time_s for r in rows])
    link = fit.ring_link_bandwidth(n)
    out = []
    for r in rows:
        formula = allreduce_time_s(r.size_bytes, link, n)
        out.append({"size_bytes": float(r.size_bytes), "measured_s": r.time_s, "fit_s": fit.predict(r.size_bytes),
                    "formula_s": formula, "ratio": r.time_s / formula})
    return out


# --------------------------------------------------------------------------- the worker

def _worker(spec_path: str) -> None:  # pragma: no cover - runs in the worker processes (tested end to end)
    import torch
    import torch.distributed as dist

    spec = json.loads(Path(spec_path).read_text())
    rank, n = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    torch.set_num_threads(int(spec["threads"]))
    backend = spec["backend"]
    dev = torch.device(f"cuda:{rank}") if backend == "nccl" else torch.device("cpu")
    if backend == "nccl":
        torch.cuda.set_device(dev)
    dist.init_process_group(backend, rank=rank, world_size=n)
    wait = (lambda: torch.cuda.synchronize(dev)) if backend == "nccl" else (lambda: None)
    gather = getattr(dist, "all_gather_single", None) or dist.all_gather_into_tensor
    scatter = getattr(dist, "reduce_scatter_single", None) or dist.reduce_scatter_tensor
    results: dict[str, Any] = {}
    want_sum = n * (n + 1) / 2
    for op in spec["ops"]:
        for size in spec["sizes"]:
            count = size // ELEMENT_BYTES
            if op == "all_reduce":
                buf = torch.full((count,), float(rank + 1), device=dev)
                dist.all_reduce(buf)
                correct = bool(torch.all(buf == want_sum))
                buf.zero_()  # timed passes add zeros: no overflow, no denormals
                call = lambda buf=buf: dist.all_reduce(buf)  # noqa: E731
            elif op == "all_gather":
                part = torch.full((count // n,), float(rank + 1), device=dev)
                out = torch.empty(count, device=dev)
                gather(out, part)
                correct = bool(torch.all(out.view(n, -1) == torch.arange(1, n + 1, device=dev).view(n, 1)))
                call = lambda out=out, part=part: gather(out, part)  # noqa: E731
            else:
                inp = torch.full((count,), float(rank + 1), device=dev)
                out = torch.empty(count // n, device=dev)
                scatter(out, inp)
                correct = bool(torch.all(out == want_sum))
                call = lambda out=out, inp=inp: scatter(out, inp)  # noqa: E731
            wait()
            t0 = time.perf_counter()
            call()
            wait()
            per = time.perf_counter() - t0
            # rank 0 decides warm-up and repetitions from one timed call; every rank must run the same counts
            warm = calls_to_fill(per, WARMUP_PER_SIZE_S, spec["warmup"], MAX_WARMUP)
            reps = spec["reps"] or calls_to_fill(per, TIME_PER_SIZE_S)
            agreed = torch.tensor([warm, reps], dtype=torch.int64, device=dev)
            dist.broadcast(agreed, 0)
            for _ in range(int(agreed[0].item())):
                call()
            wait()
            samples = []
            for _ in range(int(agreed[1].item())):
                dist.barrier()
                t0 = time.perf_counter()
                call()
                wait()
                samples.append(time.perf_counter() - t0)
            results[f"{op}:{size}"] = {"samples": samples, "correct": correct}
    dist.barrier()
    dist.destroy_process_group()
    Path(spec["out"], f"rank{rank}.json").write_text(json.dumps(results))


__all__ = ["BACKENDS", "CollectiveError", "CollectiveRow", "DEFAULT_SIZES", "OPS", "OP_LABELS", "allgather_sweep",
           "allreduce_sweep", "collective_sweep", "compare_with_ring_formula", "free_port", "reduce_scatter_sweep",
           "run_processes"]
