"""xpucalc: small, typed calculators for comparing AI accelerators honestly.

All inputs and outputs are SI units: bytes, FLOP, seconds, FLOP/s, bytes/s,
watts, joules. Bad input raises ValueError (unknown catalog key: KeyError) with
a message that names the argument.

Modules: ``units`` (constants, formatting), ``evidence`` (labels), ``devices``
(spec catalog), ``roofline``, ``workload``, ``endtoend``, ``energy``, ``llm``,
``comparison`` (the 11-item table), ``plot``, ``dot`` (Graphviz diagrams), ``bench`` (timing harness),
``reference`` (the A100 / TPU v5e reference measurements), ``memory``, ``interconnect``,
``parallelism``, ``specs_reading``, ``workload_memo``.
"""
from __future__ import annotations

from . import bench, comparison, devices, endtoend, energy, evidence, llm, reference, units
from .comparison import ComparisonTable
from .device import Device
from .endtoend import Path, breakeven_point, breakeven_runs
from .energy import cost_per_request, energy_per_request
from .roofline import RooflineResult, attainable, crossover, ridge_point, roofline
from .table import Table
from .workload import LinearLayer, Workload, linear_layer

__version__ = "0.1.0"

__all__ = [
    "bench", "reference", "ComparisonTable", "Device", "LinearLayer", "Path", "RooflineResult", "Table", "Workload",
    "attainable", "breakeven_point", "breakeven_runs", "comparison", "cost_per_request", "crossover",
    "devices", "endtoend", "energy", "energy_per_request", "evidence", "linear_layer", "llm",
    "ridge_point", "roofline", "units",
]
