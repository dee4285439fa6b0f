"""The evidence vocabulary: every number in the course carries one of these labels.

The Korean label is what readers see; the constant names are for code.
"""
from __future__ import annotations

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
