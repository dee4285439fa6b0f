"""The model catalog: Hugging Face configurations of well-known open models, each with its source.

The data live in ``xpucalc/catalog/data/models.json``; ``get(key)`` builds a :class:`Model`
from the stored ``config.json`` fields, so every count is computed from shapes.
"""
from __future__ import annotations

from typing import Any

from ..catalog.store import Catalog
from .model import Model

#: The model catalog: ``models.json``, one entry per model key.
CATALOG = Catalog("models.json", "models", "model")


def keys() -> list[str]:
    """Catalog keys, e.g. ``"llama-3-70b"``, in catalog order."""
    return CATALOG.keys()


def entry(key: str) -> dict[str, Any]:
    """The stored entry (name, source URL, cross_check, checked, evidence, config); KeyError lists the known keys."""
    return CATALOG.entry(key)


def config(key: str) -> dict[str, Any]:
    """A copy of the stored ``config.json`` fields of ``key``."""
    return dict(entry(key)["config"])


def get(key: str) -> Model:
    """The :class:`Model` of catalog key ``key``."""
    e = entry(key)
    return Model.from_hf_config(e["config"], name=e["name"], source=e["source"])


__all__ = ["CATALOG", "config", "entry", "get", "keys"]
