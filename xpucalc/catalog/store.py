"""Reading the data files shipped in ``xpucalc/catalog/data/`` (one cached loader for every module)."""
from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any

#: The folder of the data files, as an importlib resource (works from a wheel and a zip too).
DATA = resources.files("xpucalc.catalog").joinpath("data")


def read_text(name: str) -> str:
    """The text of ``xpucalc/catalog/data/<name>`` (UTF-8)."""
    return DATA.joinpath(name).read_text(encoding="utf-8")


@lru_cache(maxsize=None)
def load_json(name: str) -> dict[str, Any]:
    """The parsed JSON file ``xpucalc/catalog/data/<name>`` (cached; do not mutate)."""
    return json.loads(read_text(name))


@dataclass(frozen=True)
class Catalog:
    """One data file's entries and its sources: the single accessor every catalog module uses.

    Args:
        file: the data file's name in ``xpucalc/catalog/data/`` (``"devices.json"``).
        section: the field holding the entries; either a mapping key -> entry or a list of
            entries that each carry a ``"key"`` field.
        noun: what an entry is, for error messages (``"device"``, ``"model"``).
    """

    file: str
    section: str
    noun: str

    def data(self) -> dict[str, Any]:
        """The whole parsed file (cached; do not mutate)."""
        return load_json(self.file)

    def _entries(self) -> dict[str, dict[str, Any]]:
        raw = self.data()[self.section]
        return raw if isinstance(raw, dict) else {e["key"]: e for e in raw}

    def keys(self) -> list[str]:
        """The entries' keys, in file order."""
        return list(self._entries())

    def entries(self) -> list[dict[str, Any]]:
        """Every entry, in file order (do not mutate)."""
        return list(self._entries().values())

    def entry(self, key: str) -> dict[str, Any]:
        """The raw entry of ``key``; raises KeyError naming the known keys."""
        entries = self._entries()
        if key not in entries:
            raise KeyError(f"unknown {self.noun} key {key!r}; known keys: {', '.join(entries)}")
        return entries[key]

    def source(self, source_id: str) -> dict[str, Any]:
        """Title, URL and date checked of a source id used by an entry of this file."""
        sources = self.data().get("sources", {})
        if source_id not in sources:
            raise KeyError(f"unknown source id {source_id!r} in {self.file}; known: {', '.join(sources)}")
        return sources[source_id]
