"""The whole book as one PDF (tools/build-pdf): pages, Korean fonts, headings, no raw TeX, solutions after exercises;
and what its reader gets (issue 23): every table's header row, a contents page whose numbers are the chapters'
pages, bookmarks with their headings' words, no link to the printing server, no half-empty page but before a part.

Reads $XPU_PDF (default: xpu-book.pdf in the built site, where CI's `tools/build-pdf _build/html` puts it).
Skips when there is no PDF, unless XPU_REQUIRE_PDF=1 (CI). Needs poppler-utils (pdfinfo, pdffonts, pdftotext,
pdftoppm), pypdf and the built site's HTML (the tables and headings to look for).
"""
from __future__ import annotations

import os
import pathlib
import re
import shutil
import subprocess

import pytest
import yaml
from _site import PAGES, SITE
from _toc import ROOT, toc_files

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
    for n in ("5.13-1", "5.13-2", "5.13-3"):   # exercise numbers: week 5, page 13 of the chapter, n-th on the page
        ex = flat.index(f"문제 {n}", start)
        sol = flat.index(f"문제 {n} 풀이", start)
        assert ex < sol, f"문제 {n}: the solution comes before the exercise"


# ---------------------------------------------------------------- what the reader of the print gets (issue 23)
# Each check below failed on the PDF of the first tools/build-pdf (chapters on new pages, no page numbers).
squash = lambda s: re.sub(r"\s+", "", s)  # noqa: E731 - pdftotext breaks lines and table cells where it likes
FILL_MIN = 0.5  # a page whose lowest ink is above the middle of the text block is half empty


def _slug(docname: str) -> str:  # the section id tools/build-pdf gives a page (page_slug there)
    return "p-" + re.sub(r"[^A-Za-z0-9]+", "-", docname).strip("-")


def _article(entry: str):
    import bs4

    html = (SITE / f"{entry}.html").read_text(encoding="utf-8")
    return bs4.BeautifulSoup(html, "html.parser").select_one("article.bd-article")


def _heading_text(h) -> str:
    for a in h.select("a.headerlink"):
        a.decompose()
    return re.sub(r"\s+", " ", h.get_text()).strip()


@pytest.fixture(scope="module")
def reader(pdf):
    pypdf = pytest.importorskip("pypdf", reason="pypdf is in requirements.txt")
    return pypdf.PdfReader(str(pdf))


@pytest.fixture(scope="module")
def pages_text(pdf) -> list[str]:
    """The text of each page in the order it was drawn (-raw keeps a wrapped table cell's lines together)."""
    return _run("pdftotext", "-raw", str(pdf), "-").split("\f")


@pytest.fixture(scope="module")
def starts(reader) -> dict[str, int]:
    """Named destination -> 1-based page: where each page of the book (p-<slug>) and each part (part-N) begins."""
    out = {}
    for name, d in reader.named_destinations.items():
        name = str(name).lstrip("/")
        if re.fullmatch(r"p-[A-Za-z0-9-]+(--title)?|part-\d+", name) and "--" not in name.replace("--title", ""):
            out[name] = reader.get_destination_page_number(d) + 1
    return out


def _chapter_pages(entry: str, starts: dict[str, int], n_pages: int) -> range:
    """The PDF pages that show a page of the book: from its title to where the next one begins."""
    files = toc_files()
    first = starts.get(_slug(entry) + "--title", starts.get(_slug(entry)))
    assert first, f"no destination for {entry} in the PDF"
    later = [starts.get(_slug(e) + "--title", starts.get(_slug(e))) for e in files[files.index(entry) + 1:]]
    last = min([p for p in later if p] or [n_pages])
    return range(first, max(first, last) + 1)


def _header_rows(table) -> list[list]:
    """A table's header rows, each a list of its cells: the rows of its thead, else the rows that have a th."""
    rows = table.select("thead tr") or [tr for tr in table.select("tr") if tr.find("th")]
    return [tr.find_all(["th", "td"]) for tr in rows]


def test_every_table_header_is_in_the_pdf(pages_text, starts):
    """No column is cut off: every header row of every table of every page is in the text of that page's PDF pages,
    its cells in order (-raw gives the text in the order it was drawn: a table row left to right)."""
    missing, checked = [], 0
    for page in PAGES:
        entry = page[:-5]
        art = _article(entry)
        if art is None or not art.select("th"):
            continue
        text = squash("".join(pages_text[p - 1] for p in _chapter_pages(entry, starts, len(pages_text) - 1)))
        for table in art.select("table"):
            for cells in _header_rows(table):
                for cell in cells:
                    for m in cell.select(".math, mjx-container, script"):
                        m.replace_with("\x00")  # typeset math has no plain-text form to compare
                pieces = [p for c in cells for p in squash(c.get_text()).split("\x00") if p]
                row = "".join(squash(c.get_text()) for c in cells)
                checked += 1
                if ("\x00" in row and not all(p in text for p in pieces)) or ("\x00" not in row and row not in text):
                    lost = [c.get_text(" ", strip=True) for c in cells if squash(c.get_text()).replace("\x00", "") not in text]
                    missing.append(f"{entry}: {' | '.join(c.get_text(' ', strip=True) for c in cells)}"
                                   + (f"  (cells not in the PDF at all: {lost})" if lost else ""))
    assert checked > 60, f"only {checked} header rows found in the built pages"
    assert not missing, f"{len(missing)} of {checked} table header rows are not in the PDF:\n" + "\n".join(missing[:40])


def test_contents_page_numbers_match_the_chapters(pdf, pages_text, starts):
    """The contents pages list each page of the book with a number, and its title stands on that page."""
    body_start = min(starts.values())  # the contents end before the book's first page
    layout = _run("pdftotext", "-layout", "-l", str(body_start - 1), str(pdf), "-")
    lines = layout[layout.index("차례"):].splitlines()
    entries, pending = [], ""  # (title, page number): a line ends with its entry's number; a long title wraps
    for line in lines[1:]:
        m = re.match(r"\s*(.*?)\s{2,}(\d+)\s*$", line)
        if m:
            entries.append((squash(pending + m.group(1)), int(m.group(2))))
            pending = ""
        elif line.strip() and not re.fullmatch(r"\s*\d+ / \d+\s*", line):  # not the footer
            pending += line
    numbers = dict(entries)
    wrong = []
    for entry in toc_files():
        title = squash(_heading_text(_article(entry).select_one("h1")))
        if title not in numbers:
            wrong.append(f"{entry}: {title!r} has no page number on the contents page")
        elif title not in squash(pages_text[numbers[title] - 1]):
            wrong.append(f"{entry}: the contents say p. {numbers[title]}, but its title is not on that page")
    assert len(entries) >= len(toc_files()), f"only {len(entries)} numbered entries on the contents page"
    assert not wrong, "\n".join(wrong)


def test_contents_lines_have_one_weight(reader, starts):
    """On the contents page a line is set in one weight: no bold next to regular, no DejaVu Sans Bold (much heavier
    than NanumGothic Bold) next to Korean."""
    body_start = min(starts.values())
    mixed = []
    for index in range(1, body_start - 1):
        lines: dict[int, set[str]] = {}

        def visit(text, cm, tm, font, size, lines=lines):
            if text.strip() and font is not None:
                name = str(font.get("/BaseFont", "")).split("+")[-1]
                lines.setdefault(round(tm[5] * cm[3] + cm[5]), set()).add(name)

        reader.pages[index].extract_text(visitor_text=visit)
        for y, fonts in sorted(lines.items()):
            bold = {"Bold" in f for f in fonts}
            if len(bold) > 1 or (any("DejaVu" in f and "Bold" in f for f in fonts) and any("Nanum" in f for f in fonts)):
                mixed.append(f"p. {index + 1}, y={y}: {sorted(fonts)}")
    assert not mixed, "contents lines that mix weights:\n" + "\n".join(mixed)


def test_bookmarks_are_the_headings(reader):
    """One bookmark per heading, with the heading's words: none doubled ("XX"), none glued ("시간은절반일까")."""
    headings, with_math = {"차례"}, []
    for entry in toc_files():
        for h in _article(entry).select("h1, h2, h3, h4, h5, h6"):
            if h.select(".math"):  # typeset math: the bookmark has the math's characters where the TeX was
                for m in h.select(".math"):
                    m.replace_with("\x00")
                pattern = ".+".join(re.escape(piece) for piece in _heading_text(h).split("\x00"))
                with_math.append(re.compile(pattern))
            else:
                headings.add(_heading_text(h))
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    headings |= {p.get("caption", "") for p in toc.get("parts", [])}

    entries = []

    def walk(items, depth):
        for it in items:
            if isinstance(it, list):
                walk(it, depth + 1)
            else:
                entries.append((it.title, reader.get_destination_page_number(it) + 1, depth))

    walk(reader.outline, 0)
    assert len(entries) > 100, f"only {len(entries)} bookmarks"
    known = lambda t: t in headings or any(rx.fullmatch(t) for rx in with_math)  # noqa: E731
    bad = [f"{t!r} (p. {p})" for t, p, _ in entries if not known(re.sub(r"\s+", " ", t).strip())]
    doubled = [t for t, _, _ in entries if len(t) % 2 == 0 and t[: len(t) // 2] == t[len(t) // 2:]]
    seen, twice = set(), []
    for t, p, _ in entries:
        if (t, p) in seen:
            twice.append(f"{t!r} (p. {p})")
        seen.add((t, p))
    assert not doubled, f"bookmarks with their text twice: {doubled}"
    assert not twice, f"the same bookmark twice on one page: {twice}"
    assert not bad, f"{len(bad)} bookmarks are not a heading's text (glued or changed words):\n" + "\n".join(bad[:30])


def test_no_link_to_the_printing_server(reader, text):
    """Links go to the web or inside the PDF, never to the local server that printed it."""
    local = []
    for index, page in enumerate(reader.pages, 1):
        for annot in page.get("/Annots") or []:
            annot = annot.get_object()
            action = annot.get("/A")
            uri = str(action.get_object().get("/URI", "")) if action is not None else ""
            if re.search(r"localhost|127\.0\.0\.1|\[::1\]|^file:", uri):
                local.append(f"p. {index}: {uri}")
    assert not local, f"links to the local machine: {local}"
    assert not re.search(r"https?://(localhost|127\.0\.0\.1)", text), "a local address printed in the text"


def _ink_fill(pgm: pathlib.Path) -> float:
    """How far down the text block (16 mm top, 18 mm bottom margin of A4) the page's lowest ink reaches."""
    import numpy as np

    magic, w, h, _, pixels = pgm.read_bytes().split(maxsplit=4)
    w, h = int(w), int(h)
    img = np.frombuffer(pixels[-w * h:], dtype=np.uint8).reshape(h, w)
    top, bottom = round(h * 16 / 297), round(h * (297 - 18) / 297)
    rows = np.flatnonzero((img[top:bottom] < 200).any(axis=1))
    return (rows.max() + 1) / (bottom - top) if rows.size else 0.0


def test_no_half_empty_page_except_before_a_part(pdf, starts, tmp_path):
    """Apart from the title and contents pages, a part's opening page, the page before it and the last page,
    every page is filled at least to the middle of its text block."""
    subprocess.run(["pdftoppm", "-r", "15", "-gray", str(pdf), str(tmp_path / "p")], check=True)
    files = sorted(tmp_path.glob("p-*.pgm"), key=lambda f: int(f.stem.split("-")[-1]))
    n = len(files)
    parts = {p for k, p in starts.items() if k.startswith("part-")}
    exempt = set(range(1, min(starts.values()))) | parts | {p - 1 for p in parts} | {n}
    short = [f"p. {i} ({fill:.0%})" for i, f in enumerate(files, 1) if i not in exempt and (fill := _ink_fill(f)) < FILL_MIN]
    assert not short, f"{len(short)} pages are more than half empty: {', '.join(short)}"
