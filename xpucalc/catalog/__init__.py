"""Documented figures with their provenance: devices, memory types, interconnects, models, training runs.

The second layer: it imports ``xpucalc.core`` and nothing above it. Every figure lives once in
``data/`` with its source, the date it was checked and its conditions; ``store`` reads those files.

- ``store``: the cached reader of ``data/``;
- ``devices``: the spec catalog (``devices.get(key, precision=..., sparse=False) -> Device``),
  also reachable as ``xpucalc.devices``;
- ``memory``, ``interconnect``: memory types and links (PCIe, NVLink, InfiniBand, ...);
- ``spec_reading``: the explicit conversions of the spec-sheet pages (sparse to dense, GiB to GB).
"""
