"""The model catalog: Hugging Face configurations of well-known open models, each with its source.

The data live in ``xpucalc/catalog/data/models.json``; ``get(key)`` builds a :class:`Model`
from the stored ``config.json`` fields, so every count is computed from shapes.
"""
from __future__ import annotations

from typing import Any

from ..catalog.store import load_json
from .model import Model


def _catalog() -> dict[str, Any]:
    return load_json("models.json")["models"]


def keys() -> list[str]:
    """Catalog keys, e.g. ``"llama-3-70b"``, in catalog order."""
    return list(_catalog())


def entry(key: str) -> dict[str, Any]:
    """The raw catalog entry (name, source, checked, evidence, config); KeyError lists the known keys."""
    cat = _catalog()
    if key not in cat:
        raise KeyError(f"unknown model key {key!r}; known keys: {', '.join(cat)}")
    return cat[key]


def config(key: str) -> dict[str, Any]:
    """A copy of the stored ``config.json`` fields of ``key``."""
    return dict(entry(key)["config"])


def get(key: str) -> Model:
    """The :class:`Model` of catalog key ``key``."""
    e = entry(key)
    return Model.from_hf_config(e["config"], name=e["name"], source=e["source"])


__all__ = ["config", "entry", "get", "keys"]
