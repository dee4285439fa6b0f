"""The labs' sanity cells and answers say what the device actually measured: their code is run here with fake
results for a GPU and for a CPU (no accelerator needed), and their stored outputs are checked against the
numbers they print.

- lab 01/02 sanity cells: per-call >= back-to-back >= kernel with a stated tolerance (a noise flip of ~1 µs
  is not a failure, a real inversion is);
- lab 04 answers: L2/HBM wording on a GPU, LLC/main-memory wording on a CPU, never "CPU에서는" on a GPU;
- lab 05 answer 1: the words about alpha follow the computed ratio of the 1 KiB time to alpha;
- lab 01 answer 4 and the week-5 measurements page: the source's 4,395 ms first call is said to carry the
  compiler's one-time start-up.
"""
from __future__ import annotations

import ast
import contextlib
import io
import json
import re
from pathlib import Path
from types import SimpleNamespace as NS

import pytest

REPO = Path(__file__).resolve().parents[2]
LAB = {p.name[:2]: p for p in (REPO / "labs").glob("*.ipynb")}


def _cells(lab: str) -> list[dict]:
    return json.loads(LAB[lab].read_text(encoding="utf-8"))["cells"]


def _source(lab: str, start: str) -> str:
    hits = ["".join(c["source"]) for c in _cells(lab) if "".join(c["source"]).startswith(start)]
    assert len(hits) == 1, f"lab {lab}: {len(hits)} cells start with {start!r}"
    return hits[0]


def _stored_text(lab: str, start: str) -> str:
    """The stored output text of the cell starting with ``start`` (an answer's stashed Markdown included)."""
    (cell,) = [c for c in _cells(lab) if "".join(c["source"]).startswith(start)]
    outs = cell.get("outputs", []) + cell.get("metadata", {}).get("xpu_answer_outputs", [])
    parts = []
    for o in outs:
        if o.get("output_type") == "stream":
            parts.append("".join(o["text"]))
        else:
            data = o.get("data", {})
            parts.append("".join(data.get("text/markdown", data.get("text/plain", ""))))
    return "".join(parts)


def _run(source: str, ns: dict) -> tuple[str, object]:
    """Execute a cell's source in ``ns``; returns (stdout, the value of a last expression, as Markdown text)."""
    tree = ast.parse(source)
    last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(tree, "<cell>", "exec"), ns)
        value = eval(compile(ast.Expression(last.value), "<cell>", "eval"), ns) if last else None
    return out.getvalue(), getattr(value, "data", value)


def _checks(stdout: str) -> dict[str, bool]:
    return {k: v == "예" for k, v in re.findall(r"^(.*): (예|아니요)$", stdout, re.M)}


def T(median_s: float, min_s: float | None = None) -> NS:
    return NS(median_s=median_s, min_s=median_s if min_s is None else min_s)


# ---------------------------------------------------------------------------- lab 01 / 02 sanity cells

def _result(per_call: float, back_to_back: float, kernel: float | None) -> NS:
    gpu = NS(per_call=T(per_call), back_to_back=T(back_to_back), kernel=None if kernel is None else T(kernel))
    return NS(ok=True, path="eager", device=T(20e-6, 18e-6), with_transfer=T(60e-6), first_call_s=1e-3,
              transfer_ratio_paired=3.0, gpu=gpu, accuracy=NS(passed=True))


# (per-call, back-to-back, kernel) in µs -> the ordering check passes?
ORDERINGS = [
    ((10.0, 9.0, 8.0), True),      # the expected order
    ((10.0, 10.4, 9.0), True),     # per-call 0.4 µs under back-to-back: noise within 2 µs
    ((10.0, 10.0, 11.5), True),    # kernel 1.5 µs over back-to-back: noise within 2 µs
    ((10.0, 20.0, 9.0), False),    # per-call half of back-to-back: a real inversion
    ((10.0, 9.0, 12.0), False),    # kernel 3 µs over back-to-back: beyond 2 µs and 5 %
    ((1000.0, 1040.0, 900.0), True),   # 40 µs over at 1 ms: within 5 % (52 µs)
    ((1000.0, 1100.0, 900.0), False),  # 100 µs over at 1.1 ms: beyond 5 % (55 µs)
]


@pytest.mark.parametrize("times_us, ok", ORDERINGS)
def test_lab01_sanity_gpu_ordering_has_a_stated_tolerance(times_us, ok):
    per_call, b2b, kernel = (t * 1e-6 for t in times_us)
    ns = {"results": [_result(per_call, b2b, kernel)], "env": NS(kind="cuda", accelerator=True)}
    stdout, _ = _run(_source("01", "ok = [r for r in results if r.ok]"), ns)
    (name,) = [k for k in _checks(stdout) if k.startswith("GPU: 호출 1회")]
    assert "5 %" in name and "2 µs" in name            # the tolerance is stated in the check's name
    assert _checks(stdout)[name] is ok
    others = {k: v for k, v in _checks(stdout).items() if k != name}
    assert all(others.values()), others


@pytest.mark.parametrize("per_call_us, b2b_us, ok", [
    (10.0, 9.0, True), (10.0, 10.4, True),        # 0.4 µs under: noise within 2 µs
    (10.0, 20.0, False),                          # a real inversion
    (1000.0, 1040.0, True), (1000.0, 1100.0, False),   # within / beyond 5 % at 1 ms
])
def test_lab02_sanity_accelerator_ordering_has_a_stated_tolerance(per_call_us, b2b_us, ok):
    ns = {"results": [_result(per_call_us * 1e-6, b2b_us * 1e-6, None)], "env": NS(kind="tpu", accelerator=True)}
    stdout, _ = _run(_source("02", "ok = [r for r in results if r.ok]"), ns)
    (name,) = [k for k in _checks(stdout) if k.startswith("가속기: 호출 1회")]
    assert "5 %" in name and "2 µs" in name
    assert _checks(stdout)[name] is ok


def test_lab01_lab02_stored_sanity_outputs_name_the_tolerance():
    for lab, start in (("01", "GPU: 호출 1회"), ("02", "가속기: 호출 1회")):
        text = _stored_text(lab, "ok = [r for r in results if r.ok]")
        (line,) = [ln for ln in text.splitlines() if ln.startswith(start)]
        assert "허용 오차 5 % 또는 2 µs 중 큰 쪽" in line and line.endswith(": 예")


# ---------------------------------------------------------------------------- lab 04 answers

def _lab04_namespace(kind: str) -> dict:
    from xpucalc import linear_layer
    from xpucalc.catalog import devices

    accel = kind != "cpu"
    return {
        "devices": devices, "linear_layer": linear_layer,
        "tgt": NS(kind=kind, device="cuda:0" if accel else "cpu", accelerator=accel, framework="torch"),
        "env": NS(l2_bytes=50 * 2**20 if kind == "cuda" else None, label=lambda: "NVIDIA H100 80GB HBM3"),
        "target": NS(llc_bytes=lambda: 300 * 2**20),
        "bandwidth": NS(ACCEL_MIN_BYTES=2**30),
        "bench": NS(DTYPE_BYTES={"fp32": 4, "bf16": 2}),
        "LAYER_PRECISION": "bf16" if accel else "fp32",
        "NBYTES": 2**30 if accel else 1200 * 2**20,
        "swept": [NS(nbytes=2**18, kind="triad", bytes_per_s=3e12 if accel else 58e9)],
        "dram_bw": 3.0e12 if accel else 14.3e9,
        "above": [1, 2],
        "o": NS(m=1, per_call=T(20e-6), back_to_back=T(8e-6), graph=T(5e-6) if kind == "cuda" else None),
    }


def _lab04_answers(kind: str) -> str:
    ns = _lab04_namespace(kind)
    _run(_source("04", "# 해설과 질문에 쓰는 말을"), ns)
    texts = []
    for q in (1, 3, 4):
        _, md = _run(_source("04", f"#@title 해설 보기: 질문 {q}"), ns)
        texts.append(md)
    return "\n".join(texts)


def test_lab04_answers_on_a_gpu_use_gpu_words():
    text = _lab04_answers("cuda")
    assert "LLC" not in text and "CPU에서는" not in text and "주 메모리" not in text
    assert "L2 캐시" in text and "HBM" in text
    assert "1 GiB 이상이면서 L2의 4배 이상" in text            # the size rule that was applied
    assert "호출마다 / 이어서 = 2.50" in text and "이어서 / CUDA 그래프 = 1.60" in text   # 20/8 and 8/5
    assert "실행 요청과 동기화 비용" in text                   # per-call 2.5x back-to-back: launch-bound words


def test_lab04_answers_on_a_cpu_use_cpu_words():
    text = _lab04_answers("cpu")
    assert "LLC" in text and "주 메모리" in text and "HBM" not in text and "L2 캐시" not in text
    assert "LLC 합계의 4.0배" in text                          # 1200 MiB / 300 MiB


def test_lab04_answers_on_a_tpu_name_neither_llc_nor_l2():
    text = _lab04_answers("tpu")
    assert "LLC" not in text and "L2 캐시" not in text and "CPU에서는" not in text and "HBM" in text


def test_lab04_stored_answers_match_the_stored_device():
    # the stored run is a CPU run: CPU words, and the cache/memory sentence of answer 1 names the LLC
    env_text = _stored_text("04", "import matplotlib.pyplot as plt\n\nfrom xpucalc import Device")
    assert "cpu (가속기 없음)" in env_text
    a1 = _stored_text("04", "#@title 해설 보기: 질문 1")
    assert "LLC" in a1 and "HBM" not in a1
    a4 = _stored_text("04", "#@title 해설 보기: 질문 4")
    assert "이 머신은 CPU라서" in a4


# ---------------------------------------------------------------------------- lab 05 answer 1

def _lab05_answer1(time_us: float, alpha_us: float) -> str:
    from xpucalc.bench import alpha_beta as ab

    fit = ab.AlphaBetaFit(alpha_s=alpha_us * 1e-6, beta_s_per_byte=1 / 1.5e9, r2=0.99, max_rel_residual=0.2,
                          n_points=9)
    ns = {"ab": ab, "fit": fit, "ar": [NS(time_s=time_us * 1e-6, size_bytes=1024)]}
    _, md = _run(_source("05", "#@title 해설 보기: 질문 1"), ns)
    return md


@pytest.mark.parametrize("time_us, alpha_us, almost_all", [
    (160.0, 150.0, True),      # 1.07 alphas
    (1016.0, 292.0, False),    # the old stored run: 3.48 alphas was called "almost all alpha"
    (1016.0, 150.0, False),
])
def test_lab05_answer1_words_follow_the_ratio(time_us, alpha_us, almost_all):
    text = _lab05_answer1(time_us, alpha_us)
    assert f"{time_us / alpha_us:,.2f}배" in text                 # the ratio is stated, computed
    assert ("거의 전부 α" in text) is almost_all


def test_lab05_stored_answer1_words_follow_its_own_numbers():
    from xpucalc.bench import alpha_beta as ab

    text = _stored_text("05", "#@title 해설 보기: 질문 1")
    m = re.search(r"([\d,]+) µs는 α\(([\d,]+) µs\)의 ([\d,.]+)배", text)
    assert m, "the stored answer does not state the 1 KiB time as a multiple of alpha"
    ratio = float(m.group(3).replace(",", ""))
    assert ("거의 전부 α" in text) is (ratio <= ab.ALPHA_ALMOST_ALL_RATIO)
    printed = _stored_text("05", 'print(f"1 KiB all-reduce:')
    assert f"중앙값 / α = {ratio:,.2f}" in printed                 # the same number as the printed ratio


# ---------------------------------------------------------------------------- the source's 4,395 ms

def test_lab01_answer4_says_what_the_4395_ms_contains():
    from xpucalc.bench import reference

    ns = {"reference": reference}
    _, md = _run(_source("01", "#@title 해설 보기: 질문 4"), ns)
    assert "4,395 ms" in md and "시작 비용" in md and "Dynamo" in md and "Inductor" in md
    # the other three compiled A100 conditions: 426-758 ms; start-up about 4.395 - 0.758 .. 4.395 - 0.426 s
    assert "426–758 ms" in md and "3.6–4.0 s" in md
    assert "430 ms" in md and "3,183배" in md                    # BF16 M=128: 430.402 / 0.1352 = 3,183
    stored = _stored_text("01", "#@title 해설 보기: 질문 4")
    assert "시작 비용" in stored and "3.6–4.0 s" in stored


def test_measurements_page_says_what_the_4395_ms_contains():
    page = (REPO / "book" / "week05" / "measurements.md").read_text(encoding="utf-8")
    para = page[page.index("### ③"):page.index("### ④")]
    assert "r3_afirst" in para and "시작 비용" in para and "Dynamo" in para
    assert "{glue:text}`r3_astart_lo`" in para and "{glue:text}`r3_abratio`" in para
