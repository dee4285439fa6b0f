"""A small, honest timing harness for Y = ReLU(XW + b) on PyTorch and JAX, and the device measurements.

The package's layout is the harness:

* ``timing`` -- clocks, warm-up by time, interleaved rounds, back-to-back groups, statistics
  (min, p10, median, IQR, noisy and bimodal flags); ``time_calls``.
* ``cuda_timing`` -- CUDA-event timers: per-call latency, back-to-back time, CUDA-graph replay
  (kernel time) -- the three GPU numbers -- and the L2 flush.
* ``settings`` -- framework settings held for a run: CPU threads, FP32 matmul precision, JAX's cache.
* ``conditions`` -- one cell of the grid (:class:`Condition`) and how it is measured (:class:`Options`).
* ``torch_backend``, ``jax_backend`` -- one runner per framework.
* ``coldstart`` -- the first call in a fresh process with empty compile caches.
* ``accuracy`` -- inputs, the float64 reference, tolerances.
* ``environment`` -- device, versions, compute capability, L2, clocks, driver.
* ``results``, ``grid`` -- what a condition measured (and as JSON), the grid.
* ``target``, ``bandwidth``, ``matmul``, ``sweep``, ``collectives`` -- the device measurements of
  labs 04 and 05 (``alpha_beta``: the latency-bandwidth fit of collective times); ``cpu_reference`` and ``reference`` -- stored runs the book reads.

Tables and plots of all of it are in ``xpucalc.render.bench_tables`` and ``xpucalc.render.bench_plots``.

Boundaries kept apart: **first call** (compile + first execution; one-time process
setup measured on its own), **device-resident steady state** (on a GPU as three
numbers: per call, back to back, kernel; L2 warm and cold) and **steady state with
copies** (pageable; on a GPU also pinned + ``non_blocking``). Each output is checked
against a CPU float64 reference (first and last timed output); the environment is
recorded and the evidence label follows from it: ``실측`` on an accelerator,
``CPU 동작 확인`` on a CPU. Whatever a backend cannot do comes back as a result
with ``status="unsupported"`` and a reason -- never as an exception.

torch and jax are imported only inside the functions that use them.
All times are seconds; milliseconds and microseconds appear only in tables.
"""
from __future__ import annotations

from .accuracy import TOLERANCE, UNIT_ROUNDOFF, Accuracy, check_accuracy, make_inputs, reference_output
from .conditions import DTYPE_BYTES, PATH_LABELS, PATHS, PRECISIONS, Condition, Options
from .cuda_timing import back_to_back, graph_replay, per_call, three_numbers
from .environment import (CPU_REPS, CPU_WARMUP, DEFAULT_REPS, DEFAULT_WARMUP, Environment, default_reps,
                          jax_environment, torch_environment)
from .grid import find, run_grid
from .jax_backend import run_jax
from .results import OK, UNSUPPORTED, BenchResult, GpuTimings, result_record, unsupported
from .timing import (NOISY_THRESHOLD, NoisyTimingWarning, Timing, interleaved, is_bimodal, summarize, time_batches,
                     time_calls, time_rounds, warm_up)
from .torch_backend import compile_counters, run_torch
# device measurements (lab 04 / 05): STREAM bandwidth, GEMM, the layer sweep, collectives
from .bandwidth import StreamResult, stream, stream_sweep
from .alpha_beta import AlphaBetaFit, fit_alpha_beta
from .collectives import CollectiveRow, allgather_sweep, allreduce_sweep, collective_sweep, reduce_scatter_sweep
from .matmul import GemmResult, gemm
from .sweep import kernel_summary, launch_overhead, layer_sweep

__all__ = [
    "Accuracy", "BenchResult", "CPU_REPS", "CPU_WARMUP", "Condition", "DEFAULT_REPS", "DEFAULT_WARMUP", "DTYPE_BYTES",
    "Environment", "GpuTimings", "NOISY_THRESHOLD", "NoisyTimingWarning", "OK", "Options", "PATHS", "PATH_LABELS",
    "PRECISIONS", "TOLERANCE", "Timing", "UNIT_ROUNDOFF", "UNSUPPORTED", "back_to_back", "check_accuracy",
    "compile_counters", "default_reps", "find", "graph_replay", "interleaved", "is_bimodal", "jax_environment",
    "make_inputs", "per_call", "reference_output", "result_record", "run_grid", "run_jax", "run_torch", "summarize",
    "three_numbers", "time_batches", "time_calls", "time_rounds", "torch_environment", "unsupported", "warm_up",
    "AlphaBetaFit", "CollectiveRow", "GemmResult", "StreamResult", "allgather_sweep", "allreduce_sweep",
    "collective_sweep", "fit_alpha_beta", "gemm", "kernel_summary", "launch_overhead", "layer_sweep",
    "reduce_scatter_sweep", "stream", "stream_sweep",
]
