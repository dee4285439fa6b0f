"""xpucalc.render.labels: a caption's label is the weakest label of the figures it draws."""
import pytest

from xpucalc import evidence
from xpucalc.render import labels


def test_caption_label_is_the_weakest():
    assert labels.caption_label(["문서 확인", "이번 조사에서 미확인", "분석 계산"]) == evidence.NOT_VERIFIED
    assert labels.caption_label([evidence.MEASURED] * 3) == "실측"
    with pytest.raises(ValueError, match="at least one label"):
        labels.caption_label([])


def test_glue_label_glues_the_label_and_what_was_drawn(monkeypatch):
    import myst_nb

    got = {}
    monkeypatch.setattr(myst_nb, "glue", lambda name, value, display=True: got.__setitem__(name, (value, display)))
    assert labels.glue_label("x_ev", ("문서 확인", "분석 계산")) == "분석 계산"
    assert got == {"x_ev_of": (["문서 확인", "분석 계산"], False), "x_ev": ("분석 계산", False)}
    with pytest.raises(ValueError, match="vocabulary"):
        labels.glue_label("y_ev", ["측정함"])


def test_a_title_carries_the_weakest_label_of_what_it_draws():
    # a run on a GPU (실측) with a line fitted to it (분석 계산): the title may only claim 분석 계산
    assert labels.titled("all-reduce 시간: nccl, n = 8", ["실측", "분석 계산"]) == "all-reduce 시간: nccl, n = 8 (분석 계산)"
    assert labels.titled("대역폭", [evidence.CPU_CHECKED, evidence.CPU_CHECKED]) == "대역폭 (CPU 동작 확인)"
    with pytest.raises(ValueError, match="title"):
        labels.titled(" ", ["실측"])
    with pytest.raises(ValueError, match="at least one label"):
        labels.titled("대역폭", [])
