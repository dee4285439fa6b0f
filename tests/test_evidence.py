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


def test_order_covers_the_vocabulary_strongest_first():
    assert sorted(evidence.ORDER) == sorted(evidence.LABELS)
    assert evidence.ORDER[0] == "실측" and evidence.ORDER[1] == "문서 확인" and evidence.ORDER[2] == "분석 계산"
    # the labels that mean "no number was checked" come after every label of a checked number
    assert evidence.ORDER[-3:] == ("이번 조사에서 미확인", "아직 미측정", "미공개")


@pytest.mark.parametrize("labels, expected", [
    (["문서 확인"], "문서 확인"),
    (["문서 확인", "이번 조사에서 미확인"], "이번 조사에서 미확인"),   # hardware 그림 1 once said 문서 확인 here
    (["문서 확인", "분석 계산", "문서 확인"], "분석 계산"),
    (["실측", "문서 확인"], "문서 확인"),
    (["분석 계산", "CPU 동작 확인"], "CPU 동작 확인"),
    (("분석 계산", "이번 조사에서 미확인"), "이번 조사에서 미확인"),
    (iter(["실측", "실측"]), "실측"),
])
def test_weakest_label_wins(labels, expected):
    assert evidence.weakest(labels) == expected


def test_weakest_refuses_nothing_and_unknown_labels():
    with pytest.raises(ValueError, match="at least one label"):
        evidence.weakest([])
    with pytest.raises(ValueError, match="vocabulary"):
        evidence.weakest(["문서 확인", "측정함"])
