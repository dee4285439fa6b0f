"""One documented figure with its provenance, and one source: the typed records every catalog hands out.

A :class:`Figure` is a number as a document states it: its value in SI units (or None when it is not
published), the unit, the text as printed, the conditions it holds under, the source id, the date it
was checked and the evidence label. A peak rate also carries its precision, sparsity, accumulate type
and scope; a capacity says whether it is binary. The data files spell a figure as a JSON object with
the same field names; :meth:`Figure.from_dict` reads one and refuses a figure that lacks a field or
has one it does not know, so a typo in ``data/`` fails where it is read.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

#: Fields every figure of the data files carries (``as_published`` may be null; ``value`` is null
#: when the figure is not published).
REQUIRED = ("value", "unit", "as_published", "conditions", "source", "checked", "evidence")

#: Fields a figure may carry beyond :data:`REQUIRED`.
OPTIONAL = ("label", "precision", "sparse", "accumulate", "unit_kind", "scope", "binary", "memory_type",
            "conflicts_with", "runtime_reported")

#: Fields of a runtime report nested in a capacity (``memory.runtime_reported``); its unit is the capacity's.
RUNTIME_FIELDS = ("value", "as_reported", "conditions", "source", "checked", "evidence")


@dataclass(frozen=True)
class Source:
    """A document figures are read from.

    Args:
        id: the source id figures name in their ``source`` field.
        title: the document's title (with the part read, e.g. "§1 table").
        url: its address, or None for a course text without one.
        checked: the date the document was read, ``YYYY-MM-DD``.
        cross_check: another document that agrees, when one was read.
    """

    id: str
    title: str
    url: str | None
    checked: str
    cross_check: str | None = None

    @classmethod
    def from_dict(cls, source_id: str, d: dict[str, Any]) -> Source:
        """The source ``source_id`` from its JSON object (``title``, ``url``, ``checked``, optional ``cross_check``)."""
        return cls(source_id, d["title"], d.get("url"), d["checked"], d.get("cross_check"))


@dataclass(frozen=True)
class Figure:
    """A documented figure and its provenance.

    Args:
        value: the figure in SI units (bytes, bytes/s, FLOP/s, OP/s, W, s, count), or None when the
            document does not publish it (then ``evidence`` says so).
        unit: the SI unit of ``value`` (``"B"``, ``"B/s"``, ``"FLOP/s"``, ``"OP/s"``, ``"W"``, ``"s"``, ``"count"``).
        as_published: the figure as the document prints it (``"3.35TB/s"``); None when nothing was
            printed as such (a computed figure, or one that is not published). For a runtime report,
            the text the runtime printed (``"81,559 MiB"``).
        conditions: what the figure holds under (precision, sparsity, per chip or per board, ...).
        source: the id of the document, a key of the file's ``sources``.
        checked: the date the figure was checked, ``YYYY-MM-DD``.
        evidence: one of ``xpucalc.evidence.LABELS``.
        label: the name of an extra figure (``"NVLink bandwidth"``); None for the main figures.
        precision: a peak's precision (``"bf16"``, ``"int8"``, ...); None for figures that are not peaks.
        sparse: a peak's sparsity: True (2:4 structured), False (dense), None (not stated, or not a peak).
        accumulate: a peak's accumulate type (``"fp32"``), None when not stated.
        unit_kind: the unit that computes a peak (``"tensor"``, ``"vector"``, ...).
        scope: what a peak counts (``"chip"``, ``"board"``, ``"platform"``, ``"pod"``).
        binary: a capacity in binary units (GiB) as the vendor means it.
        memory_type: the memory technology of a capacity (``"HBM3 (5120-bit)"``).
        conflicts_with: for a figure that disagrees with another of the same device, the field
            (``"bandwidth"``) or the label of the figure it disagrees with.
        runtime_reported: for a capacity, what a runtime reports for the same part (same unit).
    """

    value: float | None
    unit: str
    as_published: str | None
    conditions: str
    source: str
    checked: str
    evidence: str
    label: str | None = None
    precision: str | None = None
    sparse: bool | None = None
    accumulate: str | None = None
    unit_kind: str | None = None
    scope: str | None = None
    binary: bool = False
    memory_type: str | None = None
    conflicts_with: str | None = None
    runtime_reported: Figure | None = None

    @property
    def is_peak(self) -> bool:
        """True for a peak rate (a figure with a precision)."""
        return self.precision is not None

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Figure:
        """The figure of one JSON object of ``data/``.

        Raises:
            ValueError: a field of :data:`REQUIRED` is missing, a field is unknown, or the value is
                not a number or null (the message names the field and the figure's label or source).
        """
        where = d.get("label") or d.get("precision") or d.get("source") or "figure"
        _fields(d, REQUIRED, OPTIONAL, where)
        value = d["value"]
        if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))):
            raise ValueError(f"figure {where!r}: value must be a number in SI units or null, got {value!r}")
        rt = d.get("runtime_reported")
        runtime = None
        if rt is not None:
            _fields(rt, RUNTIME_FIELDS, (), f"{where} runtime_reported")
            runtime = cls(rt["value"], d["unit"], rt["as_reported"], rt["conditions"], rt["source"], rt["checked"],
                          rt["evidence"])
        return cls(value, d["unit"], d["as_published"], d["conditions"], d["source"], d["checked"], d["evidence"],
                   label=d.get("label"), precision=d.get("precision"), sparse=d.get("sparse"),
                   accumulate=d.get("accumulate"), unit_kind=d.get("unit_kind"), scope=d.get("scope"),
                   binary=bool(d.get("binary", False)), memory_type=d.get("memory_type"),
                   conflicts_with=d.get("conflicts_with"), runtime_reported=runtime)


def _fields(d: dict[str, Any], required: tuple[str, ...], optional: tuple[str, ...], where: str) -> None:
    missing = [k for k in required if k not in d]
    if missing:
        raise ValueError(f"figure {where!r} lacks {', '.join(missing)}; every figure carries {', '.join(required)}")
    unknown = sorted(set(d) - set(required) - set(optional))
    if unknown:
        raise ValueError(f"figure {where!r} has unknown fields {', '.join(unknown)}; known: "
                         f"{', '.join(required + optional)}")
