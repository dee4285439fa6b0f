"""Week 5's own comparisons: the steps its pages take across modules, computed with xpucalc, checked by hand.

Each test is a step one Week 5 page takes (named in the test), against golden values worked out from the source's
figures, never copied from xpucalc's output. What one module computes is tested in that module's file (spec-sheet
conversions in tests/catalog/test_spec_reading.py, roofline and end-to-end paths in tests/core/, the reference
runs in tests/bench/test_reference.py); what a page shows is tested as shown in test_chapter_values.py. Nothing
here starts a kernel, so tools/mutation can use this file.

The last tests check the chapter as a reader meets it: exercise numbers unique across the chapter ("문제 5.7-1",
from _ext/xpu_reader.py and _toc.yml, worked out by hand) and the core question kept in the source's words on the
index and answered, as an ordered list of linked conditions, on the last page.
"""
from __future__ import annotations

import math

import pytest

import xpucalc as xc
from xpucalc import llm, units
from xpucalc.bench import reference
from xpucalc.catalog import devices
from xpucalc.render.comparison import ComparisonTable
from xpucalc.units import GB


# --- spec-sheets: figures that cannot be compared as printed -------------------------------------------
def test_meaningless_41x():
    h100 = devices.peak("h100-sxm", "bf16", sparse=True).value           # 1,979 TFLOPS*, 2:4 sparse
    npu = devices.peak("core-ultra-9-288v", "int8", sparse=None).value   # 48 TOPS, Intel says neither
    assert h100 / npu == pytest.approx(1979 / 48)                        # 41.229...
    assert round(h100 / npu) == 41


def test_tpu_pod_256_chips():
    assert devices.extra("tpu-v5e", "Pod size").value == 256
    assert devices.peak("tpu-v5e", "bf16").value * 256 == pytest.approx(50.432e15)   # 256 x 197 TFLOPS


def test_a100_runtime_memory_in_gib():
    mem = devices.extra("a100-sxm4-40gb", "Device memory reported at run time").value
    assert units.gb_to_gib(mem / 1e9) == pytest.approx(42.41e9 / 1073741824)  # 39.497...
    assert math.isclose(units.gb_to_gib(mem / 1e9), 39.5, abs_tol=0.01)


# --- comparison-table: the source's eleven items (§6) ----------------------------------------------------
def test_comparison_template_runs_from_task_to_evidence():
    rows = ComparisonTable.template().rows
    assert [r[0] for r in rows] == [str(i) for i in range(1, 12)]
    assert (rows[0][1], rows[-1][1]) == ("작업·입력", "증거 상태")


# --- worked-example-1 (§7): the catalog's virtual devices A and B --------------------------------------
def test_virtual_devices_of_worked_example_1():
    a, b = devices.get("virtual-a"), devices.get("virtual-b")  # A 200 TFLOP/s 1 TB/s 16 GB, B 100 TFLOP/s 2 TB/s 32 GB
    assert xc.ridge_point(a) == pytest.approx(200)   # 200e12 / 1e12
    assert xc.ridge_point(b) == pytest.approx(50)    # 100e12 / 2e12
    assert xc.crossover(a, b) == pytest.approx(100)  # A's slope 1 x I meets B's flat 100 TFLOP/s
    assert a.fits(8 * GB) and b.fits(8 * GB)         # §7.1: 8 GB resident fits 16 GB and 32 GB
    assert not a.fits(24 * GB) and b.fits(24 * GB)   # exercise 2: 24 GB fits only B


# --- what-fast-means and exercise 3 (§9, §13-14) ----------------------------------------------------------
def test_half_price_quarter_throughput_doubles_cost():
    cx = xc.cost_per_request(4.0, 100.0)   # $4/h at 100 req/s -> 4 / 360,000
    cy = xc.cost_per_request(2.0, 25.0)    # $2/h at 25 req/s  -> 2 / 90,000
    assert cy == pytest.approx(2 / 90_000)
    assert cy / cx == pytest.approx(2.0)


def test_lower_power_is_not_less_energy():
    ga, na = xc.energy_per_request(400, 100), xc.energy_per_request(250, 50)
    assert na == pytest.approx(5.0)     # 250 W / 50 req/s
    # 나 draws 62.5 % of 가's power (250 / 400) but needs 25 % more energy per request (5 / 4): 가 uses 20 % less
    assert na / ga == pytest.approx(1.25)
    assert 1 - ga / na == pytest.approx(0.20)


# --- measurements (§11.4), reading 3: "first call and steady state differ in order of magnitude" ---------------
def test_first_call_ratios_span_two_orders_not_always_thousands():
    ratios = sorted(r.first_call_s / r.device_s for r in reference.load())
    a100_fp32_1 = reference.get("a100-sxm4-40gb", "eager", "fp32", 1)  # smallest ratio, by hand from the CSV
    assert ratios[0] == pytest.approx(a100_fp32_1.first_call_s / a100_fp32_1.device_s)
    assert len(ratios) == 16 and round(ratios[0]) == 192 and round(ratios[-1]) == 30019
    assert sum(x < 1000 for x in ratios) == 5       # the source's "수천 배 이상" fails for five conditions
    assert math.floor(math.log10(ratios[0])) == 2   # the page's verdict: at least two orders of magnitude apart


# --- measurements §3: the only floor no cache can lower is the compute term ------------------------------------
def test_bf16_m128_compute_term_is_below_the_memory_term():
    a100 = devices.get("a100-sxm4-40gb", "bf16")                 # 312 TFLOP/s dense BF16, 1,555 GB/s
    flops = 2 * 128 * 1024 * 1024                                 # 268,435,456 FLOP
    q_min = 2 * (128 * 1024 + 1024 * 1024 + 1024 + 128 * 1024)    # X, W, b, Y in BF16: 2,623,488 B
    assert flops / a100.peak_flops == pytest.approx(0.8604e-6, rel=1e-3)
    assert q_min / a100.bandwidth == pytest.approx(1.6871e-6, rel=1e-3)
    assert flops / a100.peak_flops < q_min / a100.bandwidth      # the memory term sets the roofline floor ...
    assert reference.floor_gap(reference.get("a100-sxm4-40gb", "eager", "bf16", 128)).bound == "memory"


# --- measurements (§11.4), reading 5: the error ranges ------------------------------------------------------
def test_error_ranges_by_precision():
    runs = reference.load()
    fp32 = [r.max_abs_err for r in runs if r.precision == "fp32"]
    bf16 = [r.max_abs_err for r in runs if r.precision == "bf16"]
    assert (min(fp32), max(fp32)) == (pytest.approx(3.71e-07), pytest.approx(1.97e-06))
    assert (min(bf16), max(bf16)) == (pytest.approx(1.38e-02), pytest.approx(2.93e-02))


# --- study-guide: the decode bound favours bandwidth over peak ------------------------------------------------
def test_decode_bound_favours_bandwidth():
    model = llm.weights_bytes(8e9, 2)                       # 16 GB
    assert model == pytest.approx(16e9)
    a100, l40s = devices.get("a100-80gb", "bf16"), devices.get("l40s", "bf16")
    assert a100.peak_flops < l40s.peak_flops                # 312 vs 362 TFLOP/s dense BF16
    assert llm.decode_tokens_per_s_bound(model, a100.bandwidth) == pytest.approx(2039e9 / 16e9)  # ~127 tok/s
    assert llm.decode_tokens_per_s_bound(model, l40s.bandwidth) == pytest.approx(864e9 / 16e9)   # 54 tok/s


# --- exercise numbers (_ext/xpu_reader.py): unique across the chapter, "문제 5.7-1" --------------------------------
def _reader():
    import sys
    from pathlib import Path
    ext = str(Path(__file__).resolve().parents[2] / "_ext")
    if ext not in sys.path:
        sys.path.insert(0, ext)
    import xpu_reader
    return xpu_reader


def _chapter_env():
    """A stand-in for Sphinx's env: the chapters' toctrees from _toc.yml, every exercise numbered 1, 2, ... through
    the book as Sphinx does before the extension renumbers them (labels read from the pages, in page order)."""
    import re
    from pathlib import Path
    from types import SimpleNamespace

    import yaml
    root = Path(__file__).resolve().parents[2]
    toc = yaml.safe_load((root / "_toc.yml").read_text(encoding="utf-8"))
    includes, order = {}, []
    for part in toc["parts"]:
        for ch in part["chapters"]:
            kids = [s["file"] for s in ch.get("sections", [])]
            includes[ch["file"]] = kids
            order += [ch["file"], *kids]
    figs, running = {}, 0
    for doc in order:
        src = (root / f"{doc}.md").read_text(encoding="utf-8") if (root / f"{doc}.md").is_file() else ""
        labels = re.findall(r"\{exercise\}\n:label: ([\w-]+)", src)
        if labels:
            figs[doc] = {"exercise": {}}
            for lab in labels:
                running += 1
                figs[doc]["exercise"][lab] = (running,)
    return SimpleNamespace(toc_fignumbers=figs, toctree_includes=includes)


def test_exercise_numbers_name_chapter_page_and_place():
    reader = _reader()
    env = _chapter_env()
    reader._number_exercises_per_page(env)
    reader._number_exercises_per_page(env)          # runs once per written page: must not drift
    numbers = {lab: n[0] for page in env.toc_fignumbers.values() for lab, n in page["exercise"].items()}
    # by hand from _toc.yml: the Week 5 index is page 0, worked-example-1 the 7th section, exercises the 13th
    assert numbers["worked-example-1-quiz-i1000"] == "5.7-1"
    assert [numbers[k] for k in ("exercises-int8-vs-bf16", "exercises-capacity", "exercises-energy")] == \
        ["5.13-1", "5.13-2", "5.13-3"]
    assert numbers["big-picture-levels"] == "5.1-1"
    # the LLM part: interconnects is its 2nd section, parallelism its 3rd (two and three exercises)
    assert [numbers[k] for k in ("interconnects-ex1", "interconnects-ex2")] == ["L.2-1", "L.2-2"]
    assert numbers["parallelism-ex3"] == "L.3-3"
    assert len(set(numbers.values())) == len(numbers) >= 20     # no two exercises share a name in the book


def test_pages_outside_the_chapters_keep_plain_numbers():
    from types import SimpleNamespace
    reader = _reader()
    env = SimpleNamespace(toctree_includes={"book/week05/index": ["book/week05/a"]},
                          toc_fignumbers={"book/week05/a": {"exercise": {"x": (4,), "y": (3,)}, "figure": {"f": (9,)}},
                                          "book/appendix/z": {"exercise": {"z": (7,)}}})
    reader._number_exercises_per_page(env)
    assert env.toc_fignumbers["book/week05/a"]["exercise"] == {"y": ("5.1-1",), "x": ("5.1-2",)}  # page order kept
    assert env.toc_fignumbers["book/week05/a"]["figure"] == {"f": (1,)}                           # figures per page
    assert env.toc_fignumbers["book/appendix/z"]["exercise"] == {"z": (1,)}


def test_typed_exercise_numbers_match_the_extension():
    """Code output and lab text cannot use {numref}; where they name an exercise, the number must be the real one."""
    import json
    from pathlib import Path
    reader = _reader()
    env = _chapter_env()
    reader._number_exercises_per_page(env)
    energy = env.toc_fignumbers["book/week05/exercises"]["exercise"]["exercises-energy"][0]
    root = Path(__file__).resolve().parents[2]
    page = (root / "book/week05/measurements.md").read_text(encoding="utf-8")
    lab = "".join("".join(c["source"]) for c in json.loads((root / "labs/00_analytic_check.ipynb").read_text())["cells"])
    assert f"[문제 {energy}]" in page
    assert f"문제 {energy} — 요청당 에너지" in lab and f"문제 {energy}인 요청당 에너지" in lab


# --- index / study-guide: the chapter's question, kept in the source's words, answered once -------------------------
CORE_QUESTION = "같은 AI 작업에 쓸 가속기를 비교하려면 어떤 조건부터 맞춰야 할까?"   # the source's wording (§ heading)


def test_core_question_is_previewed_on_the_index_and_answered_on_the_last_page():
    import re
    from pathlib import Path
    week = Path(__file__).resolve().parents[2] / "book" / "week05"
    index = (week / "index.md").read_text(encoding="utf-8")
    guide = (week / "study-guide.md").read_text(encoding="utf-8")
    assert CORE_QUESTION in index and "{ref}`core-question-answer`" in index
    answer = guide[guide.index("(core-question-answer)="):guide.index("## 다섯 가지 질문")]
    assert CORE_QUESTION in answer
    # an ordered list of conditions, each linked to the page that teaches it, in the chapter's reading order
    items = re.findall(r"^\d+\. \*\*(.+?)\*\*.*?→ ((?:\{doc\}`[\w-]+`(?:, )?)+)", answer, re.M | re.S)
    pages = [re.findall(r"\{doc\}`([\w-]+)`", links)[0] for _, links in items]
    assert len(items) >= 8
    assert pages == ["big-picture", "common-example", "hardware", "spec-sheets", "software-path",
                     "worked-example-1", "worked-example-1", "worked-example-2", "what-fast-means", "comparison-table"]
    assert all((week / f"{p}.md").is_file() for p in pages)
