"""The evidence vocabulary: every number in the course carries one of these labels.

The Korean label is what readers see; the constant names are for code.
"""
from __future__ import annotations

from collections.abc import Iterable

DOCUMENTED = "문서 확인"          #: read in a vendor or official document
COMPUTED = "분석 계산"            #: computed from documented values
CPU_CHECKED = "CPU 동작 확인"     #: ran on a CPU to check behaviour only (no accelerator timing)
SIMULATED = "시뮬레이션"          #: produced by a simulator or interpreter
MEASURED = "실측"                 #: measured on the named device, with date and software
NOT_PUBLISHED = "미공개"          #: the vendor does not publish it
NOT_VERIFIED = "이번 조사에서 미확인"  #: may exist somewhere, not found in this survey
NOT_MEASURED = "아직 미측정"      #: documented or planned, but not measured yet

LABELS: tuple[str, ...] = (
    DOCUMENTED, COMPUTED, CPU_CHECKED, SIMULATED, MEASURED, NOT_PUBLISHED, NOT_VERIFIED, NOT_MEASURED,
)

#: English glosses, for the README and the API reference.
ENGLISH: dict[str, str] = {
    DOCUMENTED: "documented",
    COMPUTED: "computed from documented values",
    CPU_CHECKED: "ran on CPU to check behaviour only",
    SIMULATED: "simulated",
    MEASURED: "measured on the named device",
    NOT_PUBLISHED: "not published",
    NOT_VERIFIED: "not verified in this survey",
    NOT_MEASURED: "not yet measured",
}

#: Labels that mean "there is no number here".
EMPTY_LABELS: tuple[str, ...] = (NOT_PUBLISHED, NOT_VERIFIED, NOT_MEASURED)


def check(label: str) -> str:
    """Return ``label`` if it is one of ``LABELS``, else raise ValueError listing the vocabulary."""
    if label not in LABELS:
        raise ValueError(f"evidence label {label!r} is not in the vocabulary; use one of {', '.join(LABELS)}")
    return label


#: The labels from strongest to weakest: what a caption, title or table header over several figures carries is
#: the weakest label among them (:func:`weakest`). A run of this course on the named device comes first; a figure
#: read in a document next; then what was computed from such figures, what a simulator or a CPU rehearsal
#: produced, and last the labels that mean no number was checked at all.
ORDER: tuple[str, ...] = (
    MEASURED, DOCUMENTED, COMPUTED, SIMULATED, CPU_CHECKED, NOT_VERIFIED, NOT_MEASURED, NOT_PUBLISHED,
)


def weakest(labels: Iterable[str]) -> str:
    """The weakest of ``labels`` in :data:`ORDER`: the label a caption over all of them may carry.

    Raises ValueError for an empty collection (a caption with no figure has no label to take) or for a label
    that is not in the vocabulary.
    """
    found = [check(label) for label in labels]
    if not found:
        raise ValueError("weakest() needs at least one label: the figures a caption shows")
    return max(found, key=ORDER.index)
