"""xpucalc.render.memo_view: the workload memo as the lab shows it (table, Markdown, plain text), from reports.

Hand-built reports check the layout line by line; a few real memos check that the parallelism decision is worded
where the lab expects it.
"""
import pytest

from xpucalc.llm.memo import MemoReport, memo
from xpucalc.llm.memo_inputs import MemoInputError
from xpucalc.llm.parallelism import Plan, Step
from xpucalc.render.memo_view import MemoView, memo_markdown, memo_table, memo_text, notes, rows, show_memo
from xpucalc.render.table import Table

PLAN = Plan("ddp", "training", (Step("fits_one_gpu", {"need": 14e9, "gpu_memory": 80e9}), Step("ddp", {"gpus": 2})),
            dp=2)


def report(**kw) -> MemoReport:
    base = dict(rows=[("가중치", "14 GB", "분석 계산")], context_rows=[("연결 방식", "NVLink", "직접 입력")],
                verdict="학습 예산: 7B — 메모리에 들어갑니다", suggestions=["제안 하나"], messages=["메시지 하나"])
    return MemoReport(None, **{**base, **kw})


def test_rows_put_the_plan_between_the_estimates_and_the_readers_notes():
    r = report(plan=PLAN)
    assert rows(r) == [("가중치", "14 GB", "분석 계산"), ("병렬화 제안", "DDP (데이터 병렬 2)", "결정 흐름"),
                       ("연결 방식", "NVLink", "직접 입력")]
    assert notes(r) == ["제안 하나", "메시지 하나", "병렬화 판단: 필요 메모리 14.0 GB가 GPU 한 장(80.0 GB)에 들어갑니다.",
                        "병렬화 판단: GPU 2장에 모델을 통째로 복제하고 배치를 나누는 DDP로 충분합니다 "
                        "(step마다 gradient all-reduce 1회)."]
    # without a plan (the serving path) nothing is inserted
    assert rows(report()) == [("가중치", "14 GB", "분석 계산"), ("연결 방식", "NVLink", "직접 입력")]
    assert notes(report()) == ["제안 하나", "메시지 하나"]


def test_table_markdown_and_text_by_hand():
    r = report(plan=PLAN)
    t = memo_table(r)
    assert isinstance(t, Table) and t.headers == ["항목", "값", "근거"] and t.caption == r.verdict
    assert t.rows == [list(x) for x in rows(r)] and t.notes == notes(r)
    md = memo_markdown(r)
    assert md.startswith("## 내 워크로드 메모\n\n**학습 예산: 7B — 메모리에 들어갑니다**\n\n| 항목 | 값 | 근거 |\n")
    assert md.endswith("\n") and "| 병렬화 제안 | DDP (데이터 병렬 2) | 결정 흐름 |" in md
    # plain text: the verdict, rows padded to the longest item ("병렬화 제안", 6 characters), then the notes
    assert memo_text(report()) == ("학습 예산: 7B — 메모리에 들어갑니다\n"
                                   "  가중치    14 GB  [분석 계산]\n"
                                   "  연결 방식  NVLink  [직접 입력]\n"
                                   "  * 제안 하나\n"
                                   "  * 메시지 하나")
    assert memo_text(r).splitlines()[2] == "  병렬화 제안  DDP (데이터 병렬 2)  [결정 흐름]"


def test_an_input_error_is_a_one_row_table():
    r = MemoReport(None, error=MemoInputError("n_gpus", "GPU 수 — 1 이상의 정수여야 합니다. 받은 값: 0"))
    t = memo_table(r)
    assert t.headers == ["입력 오류", "고치는 법"] and t.rows == [["n_gpus", "GPU 수 — 1 이상의 정수여야 합니다. 받은 값: 0"]]
    assert t.caption == "" and t.notes == []
    assert "<td><code>n_gpus</code></td>" in t.to_html()      # an argument name reads as code, not as prose
    assert memo_text(r) == "입력 오류 — n_gpus: GPU 수 — 1 이상의 정수여야 합니다. 받은 값: 0"


def test_show_memo_displays_in_a_notebook():
    r = report(plan=PLAN)
    v = show_memo(r)
    assert isinstance(v, MemoView) and v.report is r
    assert v._repr_html_() == memo_table(r).to_html() and "<table" in v._repr_html_()
    assert v._repr_markdown_() == memo_table(r).to_markdown()
    assert repr(v) == str(v) == memo_text(r) and v.text() == memo_markdown(r)


@pytest.mark.parametrize("kwargs, argument", [
    (dict(n_params=7e9, gpu="h100-sxm", n_gpus=0), "n_gpus"),
    (dict(model="llama-3-8b", gpu="h100-sxm", gpus=8), "gpus"),
    (dict(gpu="h100-sxm"), "model"),
])
def test_a_real_error_report_renders(kwargs, argument):
    v = show_memo(memo(**kwargs))
    assert str(v).startswith(f"입력 오류 — {argument}: ") and "입력 오류" in v._repr_html_()


def test_real_memos_word_their_parallelism():
    # 7B on 16 H100s for serving: independent copies, no DDP, no gradients (the words of the plan)
    text = str(show_memo(memo(n_params=7e9, gpu="h100-sxm", n_gpus=16, nvlink=True, layers=32, kv_heads=32,
                              head_dim=128)))
    assert "복제 서빙 (사본 16개, 사본당 GPU 1장)" in text
    assert "gradient" not in text and "DDP" not in text and "FSDP" not in text
    # a full fine-tune that does not fit: the plan says so, and the table shows every row
    v = show_memo(memo(n_params=7e9, gpu="a100-80gb", goal="full_ft", train_tokens=10e9, mfu=0.5))
    assert "| 병렬화 제안 | 현재 구성으로는 불가능 (메모리 부족) | 결정 흐름 |" in v._repr_markdown_()
    assert "병렬화 판단: GPU 1장을 모두 합쳐도 85.9 GB라 모델을 나눠 담을 수 없습니다." in str(v)
    html = show_memo(memo(model="llama-3-8b", gpu="h100-sxm"))._repr_html_()
    assert "<table" in html and "항목" in html and "메모리 판정" in html
