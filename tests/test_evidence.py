"""xpucalc.evidence: the vocabulary of evidence labels every number carries."""
import pytest

from xpucalc import evidence


def test_evidence_vocabulary():
    assert len(evidence.LABELS) == 8
    assert evidence.check("실측") == "실측"
    with pytest.raises(ValueError, match="vocabulary"):
        evidence.check("측정함")


def test_evidence_labels_and_glosses():
    assert evidence.EMPTY_LABELS == ("미공개", "이번 조사에서 미확인", "아직 미측정")
    assert set(evidence.ENGLISH) == set(evidence.LABELS)
    with pytest.raises(ValueError, match="use one of 문서 확인, 분석 계산"):
        evidence.check("")
