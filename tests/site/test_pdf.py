"""The whole book as one PDF (tools/build-pdf): pages, Korean fonts, headings, no raw TeX, solutions after exercises.

Reads $XPU_PDF (default: xpu-book.pdf in the built site, where CI's `tools/build-pdf _build/html` puts it).
Skips when there is no PDF, unless XPU_REQUIRE_PDF=1 (CI). Needs poppler-utils (pdfinfo, pdffonts, pdftotext).
"""
from __future__ import annotations

import os
import pathlib
import re
import shutil
import subprocess

import pytest
from _site import SITE

PDF = pathlib.Path(os.environ.get("XPU_PDF") or SITE / "xpu-book.pdf")
MIN_PAGES = 80
HEADINGS = ["xPU를 어떻게 비교할 것인가", "차례", "5주차 개요", "사양표 읽기", "연습문제", "용어 사전", "정오표",
            "실습 0", "xpucalc API 참조"]


@pytest.fixture(scope="module")
def pdf() -> pathlib.Path:
    if not PDF.is_file():
        if os.environ.get("XPU_REQUIRE_PDF") == "1":
            pytest.fail(f"no PDF at {PDF} (run tools/build-pdf)")
        pytest.skip(f"no PDF at {PDF} (run tools/build-pdf {PDF.parent})")
    if not shutil.which("pdftotext"):
        pytest.fail("poppler-utils is not installed (apt-get install poppler-utils)")
    return PDF


def _run(*cmd: str) -> str:
    return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout


@pytest.fixture(scope="module")
def text(pdf) -> str:
    return _run("pdftotext", "-layout", str(pdf), "-")


def test_page_count_and_bookmarks(pdf):
    info = _run("pdfinfo", str(pdf))
    pages = int(re.search(r"^Pages:\s+(\d+)", info, re.M).group(1))
    assert pages >= MIN_PAGES, f"{pages} pages"
    raw = pdf.read_bytes()
    assert b"/Outlines" in raw, "no PDF bookmarks (outline)"


def test_korean_font_is_embedded(pdf):
    fonts = _run("pdffonts", str(pdf)).splitlines()[2:]
    korean = [f for f in fonts if re.search(r"Nanum|CJK|Noto.*(KR|Korean)|Gothic", f, re.I)]
    assert korean, "no Korean font in the PDF:\n" + "\n".join(fonts)
    # columns: name type encoding emb sub uni object ID; "emb" must be yes for every font
    not_embedded = [f for f in fonts if len(f.split()) >= 5 and f.split()[-5] != "yes"]
    assert not not_embedded, "fonts not embedded:\n" + "\n".join(not_embedded)


def test_headings_math_and_solutions(text):
    flat = re.sub(r"\s+", " ", text)
    for h in HEADINGS:
        assert h in flat, f"heading {h!r} not in the PDF text"
    assert "\\(" not in text and "\\[" not in text and "\\frac" not in text, "raw TeX in the PDF"
    assert "{glue" not in text, "an unrendered glue role in the PDF"
    # every exercise of the exercises chapter is followed by its solution, opened
    start = flat.index("공통 풀이 틀")
    for n in (1, 2, 3):
        ex = flat.index(f"문제 {n}", start)
        sol = flat.index(f"문제 {n} 풀이", start)
        assert ex < sol, f"문제 {n}: the solution comes before the exercise"
