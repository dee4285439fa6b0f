"""The time model: a device's roofs, a workload's FLOP and bytes, the roofline, end-to-end paths, energy.

The lowest layer: it imports only ``xpucalc.units`` and ``xpucalc._check``. The public names
(``Device``, ``Workload``, ``roofline``, ...) are re-exported by ``xpucalc`` itself; this package
exports nothing, so each module here stays reachable under its own name (``xpucalc.core.roofline``
is the module, ``xpucalc.roofline`` the function).

- ``device``: ``Device`` (peak FLOP/s, bandwidth bytes/s, memory bytes);
- ``workload``: ``Workload`` (FLOP, bytes), ``LinearLayer`` / ``linear_layer`` (Y = ReLU(XW + b));
- ``roofline``: ``roofline``, ``ridge_point``, ``attainable``, ``crossover``;
- ``endtoend``: ``Path`` (first run, per-run time), ``breakeven_runs``;
- ``energy``: energy and cost per request.
"""
