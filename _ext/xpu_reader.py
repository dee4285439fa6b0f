"""What a Korean reader sees: UI strings, collapsed computations, lab answers, figures, exercise numbers.

Loaded by ``site_setup``. Every rule here works for every page, so pages need no per-page markup:

1. **Computation cells are collapsed, not removed.** In the chapters' MyST notebooks a code cell
   tagged ``remove-input`` shows a table or a plot; it is rendered as ``hide-input`` instead, so a
   reader can open "계산 보기" and see how the number came out of ``xpucalc``. Cells without
   output (glue plumbing) stay ``remove-cell``.
2. **Toggle labels are Korean and say what they hide**: "계산 보기 / 숨기기" (source),
   "결과 보기" (outputs), and a lab's answer cell (a ``hide-cell`` cell whose first line is
   Colab's ``#@title 해설 보기: ...``) shows only its rendered output under "해설 보기 / 숨기기"
   (its code instead, when the notebook stores no output for it).
3. **Figures** (images a cell outputs) get a caption and alt text from the section they stand in
   (or from the cell's ``mystnb.figure.caption`` / ``mystnb.image.alt`` metadata when a page gives one).
4. **Exercises are numbered uniquely, figures per page**: "문제 5.7-1" is the first exercise of page 7
   of the Week 5 chapter ("L.3-1" in the LLM part, see ``CHAPTER_PREFIX``), so a study group can name
   it without saying which page; a solution's title ("문제 5.7-1 풀이") links to its exercise. Figures
   are "그림 1", "그림 2", ... in page order.
5. **Korean UI strings** that the themes leave in English (tooltips, aria labels, placeholder,
   footer) are replaced in the written HTML; sphinx-copybutton gets Korean messages. In the same pass each
   toggle gets its own accessible name (its section, in visually hidden text: ``name_toggles``) and numbers in
   scientific notation do not break after their "-" (``nowrap_numbers``).
"""
from __future__ import annotations

import json
import pathlib
import re

from docutils import nodes
from sphinx.application import Sphinx

# ---------------------------------------------------------------- 1. computation cells
# a code cell's tags, in the short form (":tags: [...]") or in its YAML options block ("tags: [...]")
_REMOVE_INPUT = re.compile(r"^(:?tags:\s*\[)([^\]]*)\]", re.M)


def _collapse_computations(app: Sphinx, docname: str, source: list[str]) -> None:
    """``remove-input`` -> ``hide-input`` in the code cells of MyST Markdown pages."""
    if not app.env.doc2path(docname).endswith(".md"):
        return

    def swap(m: re.Match) -> str:
        tags = [t.strip() for t in m.group(2).split(",") if t.strip()]
        tags = ["hide-input" if t in ("remove-input", "remove_input") else t for t in tags]
        return f"{m.group(1)}{', '.join(tags)}]"

    source[0] = _REMOVE_INPUT.sub(swap, source[0])


def _restore_lab_answers(app: Sphinx, docname: str, source: list[str]) -> None:
    """Give a lab's answer cells back the outputs ``tools/lab_cells.py --stash-answers`` kept in their metadata.

    The notebook stores an answer's rendered output in ``metadata["xpu_answer_outputs"]`` instead of as an
    output (Colab would show it at once); the site shows it folded under "해설 보기" (see section 2).
    """
    if not app.env.doc2path(docname).endswith(".ipynb") or '"xpu_answer_outputs"' not in source[0]:
        return
    nb = json.loads(source[0])
    for cell in nb.get("cells", []):
        stashed = cell.get("metadata", {}).get("xpu_answer_outputs")
        if cell.get("cell_type") == "code" and stashed and not cell.get("outputs"):
            cell["outputs"] = stashed
    source[0] = json.dumps(nb, ensure_ascii=False)


# ---------------------------------------------------------------- 2. toggle labels
PROMPTS = {  # myst-nb hide mode -> (show, hide)
    "input": ("계산 보기", "계산 숨기기"),
    "output": ("결과 보기", "결과 숨기기"),
    "input+output": ("계산과 결과 보기", "계산과 결과 숨기기"),
    "all": ("셀 보기", "셀 숨기기"),
}
_ANSWER_TITLE = re.compile(r"^\s*#@title\s+해설\s*보기\s*[:：]?\s*(.*)$")


def _cells(doctree: nodes.Node, element: str):
    return [n for n in doctree.findall(nodes.container) if n.get("nb_element") == element]


def _label_toggles(doctree: nodes.document) -> None:
    for cell in _cells(doctree, "cell_code"):
        mode = cell.get("hide_mode")
        if not mode:
            continue
        source = [n for n in cell.children if isinstance(n, nodes.container) and n.get("nb_element") == "cell_code_source"]
        first_line = source[0].astext().lstrip().split("\n", 1)[0] if source else ""
        answer = _ANSWER_TITLE.match(first_line)
        if mode == "all" and answer:
            # A lab's answer: the reader gets the rendered answer, not its code. A notebook that
            # stores no output for it (the reader is meant to run it) keeps its code behind the toggle.
            has_output = any(isinstance(n, nodes.container) and n.get("nb_element") == "cell_code_output"
                             for n in cell.children)
            if has_output:
                for s in source:
                    cell.remove(s)
                cell["hide_mode"] = "output"
            topic = answer.group(1).strip()
            cell["prompt_show"] = f"해설 보기: {topic}" if topic else "해설 보기"
            cell["prompt_hide"] = "해설 숨기기"
            cell["classes"].append("xpu-answer")
            continue
        show, hide = PROMPTS.get(mode, PROMPTS["all"])
        if "{type}" in cell.get("prompt_show", "{type}"):
            cell["prompt_show"] = show
        if "{type}" in cell.get("prompt_hide", "{type}"):
            cell["prompt_hide"] = hide


# ---------------------------------------------------------------- 3. figures
def _section_title(node: nodes.Node) -> str:
    while node is not None:
        if isinstance(node, nodes.section) and node.children and isinstance(node[0], nodes.title):
            return node[0].astext().strip()
        node = node.parent
    return ""


def _inside_figure(node: nodes.Node) -> bool:
    """True if any ancestor of ``node`` is a figure (myst-nb nests the image a few levels down)."""
    parent = node.parent
    while parent is not None:
        if isinstance(parent, nodes.figure):
            return True
        parent = parent.parent
    return False


def _caption_figures(doctree: nodes.document) -> None:
    for out in _cells(doctree, "cell_code_output"):
        cell = out.parent
        meta = (cell.get("cell_metadata") or {}).get("mystnb", {}) if cell is not None else {}
        for img in list(out.findall(nodes.image)):
            if _inside_figure(img) or img.get("uri", "").endswith(".svg") and "badge" in img.get("uri", ""):
                continue  # myst-nb already made a figure of it (mystnb.figure.caption), or it is the Colab badge
            caption = str((meta.get("figure") or {}).get("caption") or _section_title(out) or "계산 결과 그림")
            alt = str((meta.get("image") or {}).get("alt") or f"그림: {caption}")
            img["alt"] = alt
            fig = nodes.figure("", classes=["xpu-figure"])
            img.replace_self(fig)
            doctree.set_id(fig)  # numbered figures need an id (numfig is on for the exercises)
            fig += img
            fig += nodes.caption("", "", nodes.Text(caption))


def _doctree_read(app: Sphinx, doctree: nodes.document) -> None:
    _label_toggles(doctree)
    _caption_figures(doctree)


# ---------------------------------------------------------------- 4. exercise numbers
PER_PAGE = ("exercise", "figure")  # numbered 1, 2, ... on each page, not through the whole book
#: chapter folder -> prefix of its exercise numbers: "문제 5.7-1" is week 5, page 7 of the chapter (its index
#: page is 0, then the order of _toc.yml), exercise 1 on that page; unique across the chapter and the book
CHAPTER_PREFIX = {"book/week05": "5.", "book/llm-hardware": "L."}


def _page_prefix(env, docname: str) -> str | None:
    """The prefix "5.7" for the 8th page of the Week 5 chapter; None outside the chapters of CHAPTER_PREFIX."""
    folder = docname.rpartition("/")[0]
    if folder not in CHAPTER_PREFIX:
        return None
    pages = [f"{folder}/index", *env.toctree_includes.get(f"{folder}/index", [])]
    return f"{CHAPTER_PREFIX[folder]}{pages.index(docname)}" if docname in pages else None


def _position(number: tuple) -> int:
    """The running part of a number: 3 in (3,) and in ("5.7-3",)."""
    return int(str(number[-1]).rsplit("-", 1)[-1])


def _number_exercises_per_page(env) -> None:
    """Renumber every page's exercises ("5.7-1", ...) and figures (1, 2, ...) in page order (idempotent)."""
    for docname, figs in env.toc_fignumbers.items():
        for kind in PER_PAGE:
            numbers = figs.get(kind)
            if numbers:
                order = sorted(numbers, key=lambda k: _position(numbers[k]))
                prefix = _page_prefix(env, docname) if kind == "exercise" else None
                figs[kind] = {k: (f"{prefix}-{i + 1}",) if prefix else (i + 1,) for i, k in enumerate(order)}


def _exercise_numbers(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    """Exercise numbers ("5.7-1"), and solution titles "문제 5.7-1 풀이" that link to their exercise.

    Runs at ``doctree-resolved``, before each page is written (the HTML writer reads the numbers
    then); the numbers are assigned after ``env-updated``, so they cannot be changed earlier.
    """
    env = app.env
    _number_exercises_per_page(env)
    fmt = app.config.numfig_format.get("exercise", "%s")
    for title in doctree.findall(nodes.title):
        if type(title.parent).__name__ != "solution_node":
            continue
        refs = [r for r in title.findall(nodes.reference)]
        if not refs:
            continue
        ref = refs[0]
        target = str(ref.get("refid") or ref.get("refuri", "").split("#")[-1])
        number = next((n for figs in env.toc_fignumbers.values() for k, n in figs.get("exercise", {}).items()
                       if k == target), None)
        label = fmt % ".".join(map(str, number)) if number else ref.astext().strip()
        for child in list(ref.children):
            ref.remove(child)
        ref += nodes.Text(label)
        title.children = [ref, nodes.Text(" 풀이")]
        ref.parent = title


# ---------------------------------------------------------------- 5. Korean UI strings
ATTRIBUTE_TEXT = {  # value of title / aria-label / placeholder / data-bs-title -> Korean
    "Toggle primary sidebar": "목차 열기·닫기",
    "Toggle secondary sidebar": "이 페이지의 차례 열기·닫기",
    "Site navigation": "전체 목차",
    "On this page": "이 페이지의 차례",
    "Color mode": "화면 색",
    "Light": "밝게",
    "Dark": "어둡게",
    "System Settings": "시스템 설정 따르기",
    "Search this book...": "이 책에서 검색…",
    "Search the docs ...": "이 책에서 검색…",
    "previous page": "이전 페이지",
    "next page": "다음 페이지",
    "Version warning": "버전 안내",
    "Main": "본문",
    "Page": "페이지",
    "Link to this heading": "이 제목으로 바로 가는 링크",
    "Link to this definition": "이 정의로 바로 가는 링크",
    "Link to this code": "이 코드로 바로 가는 링크",
    "Link to this image": "이 그림으로 바로 가는 링크",
    "Link to this table": "이 표로 바로 가는 링크",
    "Permalink to this heading": "이 제목으로 바로 가는 링크",
    "Toggle hidden content": "숨긴 내용 열기·닫기",
    "Download this page": "이 페이지 내려받기",
    "Fullscreen mode": "전체 화면으로 보기",
    "전체 화면으로보기": "전체 화면으로 보기",
    "Breadcrumb": "현재 위치",
    "Home": "처음",
    "Section Navigation": "이 부분의 목차",
    "Source repositories": "소스 저장소",
    "Search": "검색",
    "Clear search": "검색어 지우기",
    "Close": "닫기",
}
_ATTR = re.compile(r'\b(title|aria-label|placeholder|data-bs-title|data-tooltip)="([^"]*)"')
TEXT = {  # exact element text -> Korean
    ">Skip to main content<": ">본문으로 건너뛰기<",
    ">Back to top<": ">맨 위로<",
    '<span class="btn__text-container">.pdf</span>': '<span class="btn__text-container">이 페이지 인쇄(PDF)</span>',
    '<span class="btn__text-container">.md</span>': '<span class="btn__text-container">이 페이지 원본(.md)</span>',
    '<span class="btn__text-container">.ipynb</span>': '<span class="btn__text-container">이 페이지 노트북(.ipynb)</span>',
    ">Contents<": ">차례<",
    ">By <": "><",
    # myst-nb's execution table (status page)
    '<th class="head"><p>Document</p></th>': '<th class="head"><p>문서</p></th>',
    '<th class="head"><p>Modified</p></th>': '<th class="head"><p>수정 시각</p></th>',
    '<th class="head"><p>Method</p></th>': '<th class="head"><p>실행 방식</p></th>',
    '<th class="head"><p>Run Time (s)</p></th>': '<th class="head"><p>실행 시간 (s)</p></th>',
    '<th class="head"><p>Status</p></th>': '<th class="head"><p>결과</p></th>',
}
_TD = re.compile(r"<td[^>]*>.*?</td>", re.S)
_DATE = re.compile(r"(?<![\w-])(\d{4}-\d{2}-\d{2})(?![\w-])")
COPYBUTTON_KO = ("  'ko' : {\n    'copy': '복사',\n    'copy_to_clipboard': '클립보드에 복사',\n"
                 "    'copy_success': '복사했습니다',\n    'copy_failure': '복사하지 못했습니다',\n  },\n")
BOOK_PDF = "xpu-book.pdf"  # written next to index.html by tools/build-pdf (CI does this)
# The whole-book PDF is linked only where it exists: a site built with the README's command alone has none, and
# a link to it would be broken (37 of them). The download menu gets its entry and the text links (intro) get their
# href when the PDF is there; otherwise the menu entry is left out and a text link's list item is hidden, its
# target kept in data-xpu-pdf. ``link_book_pdf`` runs at the end of every HTML build and can be run again on a
# built site after the PDF has been written into it (tools/build-pdf): ``python _ext/xpu_reader.py SITE``.
_PDF_MENU_ITEM = re.compile(r'<li class="xpu-book-pdf-menu">.*?</li>', re.S)
_PDF_TEXT_LINK = re.compile(r'<a (?:href|data-xpu-pdf)="((?:\.\./)*)' + re.escape(BOOK_PDF) + r'"(?: class="xpu-book-pdf")?>')
_PDF_ITEM = re.compile(r'<li(?: class="xpu-book-pdf-item"(?: hidden)?)?>(<p>(?:(?!</?li\b).)*?<a (?:href|data-xpu-pdf)="(?:\.\./)*'
                       + re.escape(BOOK_PDF) + r'")', re.S)


# A number in scientific notation ("1.97e-06") is one word: the browser would break it after its "-".
_SCI = re.compile(r"(?<![\w.+-])(\d+(?:\.\d+)?e[-+]\d+)(?![\w-])")
_NOT_TEXT = re.compile(r"<(head|script|style|pre|code|textarea|svg)\b.*?</\1>|<(span|div) class=\"math[^\"]*\">.*?</\2>", re.S)
_TEXT_NODE = re.compile(r'(?<!class="xpu-nowrap")>([^<]+)<')  # not a number already wrapped (idempotent)


def nowrap_numbers(page: str) -> str:
    """Wrap numbers in scientific notation in the page's text (not code, not math) in ``span.xpu-nowrap``."""
    def text(chunk: str) -> str:
        return _TEXT_NODE.sub(lambda t: ">" + _SCI.sub(r'<span class="xpu-nowrap">\1</span>', t.group(1)) + "<", chunk)

    out, pos = [], 0
    for m in _NOT_TEXT.finditer(page):
        out += [text(page[pos:m.start()]), m.group(0)]
        pos = m.end()
    return "".join(out) + text(page[pos:])


# myst-nb gives every collapsed cell's toggle the same accessible name ("Toggle hidden content"); each toggle is
# named by what it shows and the section it stands in instead ("계산 보기: 3. 잰 시간과 루프라인 하한"), the section
# in visually hidden text, numbered when a section has several.
_HEADING = re.compile(r"<h[1-6]\b[^>]*>(.*?)</h[1-6]>", re.S)
_TOGGLE = re.compile(r'<summary aria-label="[^"]*">(\s*)<p class="collapsed admonition-title">(.*?)</p>(\s*)'
                     r'<p class="expanded admonition-title">(.*?)</p>', re.S)


#: TeX commands of headings as a screen reader should say them in a toggle's name ("2(N-1)/N · S").
TEX_WORDS = {"cdot": "·", "times": "×", "to": "→", "infty": "∞", "le": "≤", "ge": "≥", "approx": "≈", "min": "min",
             "max": "max", "frac": ""}


def name_toggles(page: str) -> str:
    """Give each "계산 보기" / "해설 보기" toggle of a page a distinct accessible name (idempotent)."""
    def plain(fragment: str) -> str:
        text = re.sub(r"<a class=\"headerlink\".*?</a>|<[^>]+>|\\[()]", "", fragment, flags=re.S)
        text = re.sub(r"\\([A-Za-z]+)", lambda m: TEX_WORDS.get(m.group(1), ""), text)  # a name is read aloud
        return " ".join(text.replace("{", "").replace("}", "").split())

    headings = [(m.start(), plain(m.group(1))) for m in _HEADING.finditer(page)]
    seen: dict[tuple[str, str], int] = {}

    def name(m: re.Match) -> str:
        section = next((t for pos, t in reversed(headings) if pos < m.start()), "")
        shown = plain(m.group(2))
        where = "" if ":" in shown or not section else section
        seen[(shown, where)] = n = seen.get((shown, where), 0) + 1
        hidden = (f": {where}" if where else "") + (f" ({n})" if n > 1 else "")
        span = f'<span class="visually-hidden">{hidden}</span>' if hidden else ""
        return (f'<summary>{m.group(1)}<p class="collapsed admonition-title">{m.group(2)}{span}</p>{m.group(3)}'
                f'<p class="expanded admonition-title">{m.group(4)}{span}</p>')

    return _TOGGLE.sub(name, page)


def koreanize(page: str, depth: int) -> str:
    """Replace the themes' English UI strings in one rendered page; ``depth`` = folders below the site root."""
    page = _ATTR.sub(lambda m: f'{m.group(1)}="{ATTRIBUTE_TEXT.get(m.group(2), m.group(2))}"', page)
    for en, ko in TEXT.items():
        page = page.replace(en, ko)
    page = _TD.sub(lambda m: _DATE.sub(r'<span class="xpu-nowrap">\1</span>', m.group(0)), page)
    return name_toggles(nowrap_numbers(page))


def link_book_pdf_in_page(page: str, depth: int, present: bool) -> str:
    """One page with its whole-book PDF links as they must be: present only when the PDF exists (idempotent)."""
    page = _PDF_MENU_ITEM.sub("", page)
    pdf = "../" * depth + BOOK_PDF
    menu = page.find('<ul class="dropdown-menu">', page.find("fa-download"))
    if present and "fa-download" in page and menu > 0:
        at = menu + len('<ul class="dropdown-menu">')
        item = (f'<li class="xpu-book-pdf-menu"><a href="{pdf}" class="btn btn-sm dropdown-item xpu-book-pdf" '
                f'title="책 전체 PDF" data-bs-placement="left" data-bs-toggle="tooltip"><span class="btn__icon-container">'
                f'<i class="fas fa-book"></i></span><span class="btn__text-container">책 전체 PDF</span></a></li>')
        page = page[:at] + item + page[at:]
    attr = "href" if present else "data-xpu-pdf"
    page = _PDF_TEXT_LINK.sub(lambda m: f'<a {attr}="{m.group(1)}{BOOK_PDF}" class="xpu-book-pdf">', page)
    li = '<li class="xpu-book-pdf-item">' if present else '<li class="xpu-book-pdf-item" hidden>'
    return _PDF_ITEM.sub(lambda m: li + m.group(1), page)


def link_book_pdf(site: pathlib.Path) -> bool:
    """Every page of a built site links the whole-book PDF if and only if ``site/xpu-book.pdf`` exists."""
    site = pathlib.Path(site)
    present = (site / BOOK_PDF).is_file()
    for path in site.rglob("*.html"):
        if "_static" in path.parts:
            continue
        text = path.read_text(encoding="utf-8")
        new = link_book_pdf_in_page(text, len(path.relative_to(site).parts) - 1, present)
        if new != text:
            path.write_text(new, encoding="utf-8")
    return present


def _write_korean(app: Sphinx, exception: Exception | None) -> None:
    if exception is not None or app.builder.format != "html":
        return
    out = pathlib.Path(app.outdir)
    for path in out.rglob("*.html"):
        if "_static" in path.parts:
            continue
        depth = len(path.relative_to(out).parts) - 1
        text = path.read_text(encoding="utf-8")
        new = koreanize(text, depth)
        new = link_book_pdf_in_page(new, depth, (out / BOOK_PDF).is_file())
        if new != text:
            path.write_text(new, encoding="utf-8")
    js = out / "_static" / "copybutton.js"
    if js.is_file():
        text = js.read_text(encoding="utf-8")
        if "'ko'" not in text:
            js.write_text(text.replace("const messages = {\n", "const messages = {\n" + COPYBUTTON_KO, 1), encoding="utf-8")


def setup(app: Sphinx) -> dict:
    app.connect("source-read", _collapse_computations)
    app.connect("source-read", _restore_lab_answers)
    app.connect("doctree-read", _doctree_read)
    app.connect("env-check-consistency", lambda _app, env: _number_exercises_per_page(env))  # before {numref}
    app.connect("doctree-resolved", _exercise_numbers)
    app.connect("build-finished", _write_korean, priority=400)
    return {"parallel_read_safe": True, "parallel_write_safe": True}


if __name__ == "__main__":  # after tools/build-pdf wrote SITE/xpu-book.pdf: python _ext/xpu_reader.py SITE
    import sys

    for site in sys.argv[1:]:
        print(f"{site}: whole-book PDF {'linked' if link_book_pdf(pathlib.Path(site)) else 'absent, not linked'}")
