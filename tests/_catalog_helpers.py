"""Helpers shared by the catalog tests (test_catalog.py, test_catalog_capacity.py)."""
from xpucalc.catalog import devices


def all_figures():
    """Every figure of the device catalog as ``(device key, field, figure dict)``.

    ``field`` is ``"memory"``, ``"bandwidth"`` or ``"tdp"`` for the main figures, ``"peak"`` for each
    peak rate and ``"extra"`` for each extra documented figure.
    """
    for key, e in devices.catalog()["devices"].items():
        for field in ("memory", "bandwidth", "tdp"):
            if e.get(field):
                yield key, field, e[field]
        for p in e["peaks"]:
            yield key, "peak", p
        for f in e.get("extra", []):
            yield key, "extra", f
