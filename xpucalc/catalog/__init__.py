"""Documented figures with their provenance: devices, memory types, interconnects, models, training runs.

The second layer: it imports ``xpucalc.core`` and nothing above it. Every figure lives once in
``data/`` with its source, the date it was checked and its conditions.

- ``figure``: ``Figure``, one documented figure with its provenance, and ``Source``, the document it comes from;
- ``store``: the cached reader of ``data/`` and ``Catalog``, the one accessor (keys, entries, entry, sources);
- ``devices``: the spec catalog (``devices.get(key, precision=..., sparse=False) -> Device``; figures as
  ``Figure``), also reachable as ``xpucalc.devices``;
- ``memory``, ``interconnect``: memory types and links (PCIe, NVLink, InfiniBand, ...), as typed rows;
- ``spec_reading``: the explicit conversions of the spec-sheet pages (sparse to dense, GiB to GB).

Tables of these figures are ``xpucalc.render.catalog_tables``; what a slower memory does to decode is
``xpucalc.llm.offload``.
"""
