"""Reading the data files shipped in ``xpucalc/catalog/data/`` (one cached loader for every module)."""
from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any

from .figure import Source

#: The folder of the data files, as an importlib resource (works from a wheel and a zip too).
_DATA = resources.files("xpucalc.catalog").joinpath("data")


def read_text(name: str) -> str:
    """The text of ``xpucalc/catalog/data/<name>`` (UTF-8)."""
    return _DATA.joinpath(name).read_text(encoding="utf-8")


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
            entries that each carry the field ``key_field``.
        noun: what an entry is, for error messages (``"device"``, ``"model"``).
        key_field: the field naming a listed entry (``"key"``; ``"gen"`` for PCIe generations).
    """

    file: str
    section: str
    noun: str
    key_field: str = "key"

    def data(self) -> dict[str, Any]:
        """The whole parsed file (cached; do not mutate)."""
        return load_json(self.file)

    def _entries(self) -> dict[Any, dict[str, Any]]:
        raw = self.data()[self.section]
        return raw if isinstance(raw, dict) else {e[self.key_field]: e for e in raw}

    def keys(self) -> list[Any]:
        """The entries' keys, in file order."""
        return list(self._entries())

    def entries(self) -> list[dict[str, Any]]:
        """Every entry as stored, in file order (do not mutate)."""
        return list(self._entries().values())

    def entry(self, key: Any) -> dict[str, Any]:
        """The stored entry of ``key``; raises KeyError naming the known keys."""
        entries = self._entries()
        if key not in entries:
            raise KeyError(f"unknown {self.noun} key {key!r}; known keys: {', '.join(map(str, entries))}")
        return entries[key]

    def sources(self) -> dict[str, Source]:
        """Every source of this file by id, in file order."""
        return {sid: Source.from_dict(sid, s) for sid, s in self.data().get("sources", {}).items()}

    def source(self, source_id: str) -> Source:
        """The source ``source_id`` of this file (title, URL, date checked); raises KeyError naming the known ids."""
        sources = self.data().get("sources", {})
        if source_id not in sources:
            raise KeyError(f"unknown source id {source_id!r} in {self.file}; known: {', '.join(sources)}")
        return Source.from_dict(source_id, sources[source_id])
