"""xpucalc: small, typed calculators for comparing AI accelerators honestly.

All inputs and outputs are SI units: bytes, FLOP, seconds, FLOP/s, bytes/s,
watts, joules. Bad input raises ValueError (unknown catalog key: KeyError) with
a message that names the argument and the fix.

The package reads top-down, one folder a layer; no module imports from a layer above its own:

- ``units``, ``evidence``, ``_check``: the foundation (constants and formatting, evidence labels,
  argument checks); they import nothing else of xpucalc;
- ``core``: the time model (device, workload, roofline, end-to-end paths, energy);
- ``catalog``: documented figures with their sources (devices, memory, interconnects, data files);
- ``llm``: LLM hardware arithmetic (rules of thumb, collectives, models, serving, training,
  parallelism, the workload memo);
- ``bench``: measurement (the timing harness, the layer experiment, device measurements,
  the reference runs); needs numpy, torch or jax only where it measures;
- ``render``: tables, plots and diagrams, which compute nothing.

``import xpucalc`` and every calculator (``core``, ``catalog``, ``llm``) work without numpy or
matplotlib; ``xpucalc.bench`` and ``xpucalc.render`` are imported when first used.
"""
from __future__ import annotations

import importlib
import sys

from . import evidence, llm, units
from .catalog import devices
from .core.device import Device
from .core.endtoend import Path, breakeven_point, breakeven_runs
from .core.energy import cost_per_request, energy_per_request
from .core.roofline import RooflineResult, attainable, crossover, ridge_point, roofline
from .core.workload import LinearLayer, Workload, linear_layer

# ``import xpucalc.devices`` keeps working: the spec catalog's public name is ``xpucalc.devices``,
# its home ``xpucalc.catalog.devices`` (the standard library does the same for ``os.path``).
sys.modules[__name__ + ".devices"] = devices

__version__ = "0.1.0"

#: Layers imported on first use (they need numpy; ``bench`` also torch or jax when it measures).
_LAZY = ("bench", "render")


def __getattr__(name: str):  # noqa: ANN202 - PEP 562 module attribute
    if name in _LAZY:
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module 'xpucalc' has no attribute {name!r}")


__all__ = [
    "Device", "LinearLayer", "Path", "RooflineResult", "Workload", "attainable", "bench", "breakeven_point",
    "breakeven_runs", "cost_per_request", "crossover", "devices", "energy_per_request", "evidence",
    "linear_layer", "llm", "render", "ridge_point", "roofline", "units",
]
