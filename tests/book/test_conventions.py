"""The course's conventions, checked on the sources, with messages that teach.

Each failure says what is missing, where to add it, and which section of CONTRIBUTING.md explains
the convention (the messages are in Korean, for the study group's writers). The checks read the
sources only (no execution, no build), so they run in a few seconds:

- every chapter folder (``book/weekNN/``) has an index and an exercises page, all listed in _toc.yml;
- every page (chapters and labs) has exactly one title;
- every exercise has a label and a solution that refers to it and is folded (``:class: dropdown``);
- every figure has a caption and alt text;
- every lab has the Colab badge, the canonical install cell and at least one sanity cell, and its answers
  stay hidden on the site, in JupyterLab and in Colab.
"""
from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

import jupytext
import pytest
import yaml
from _toc import resolve, toc_files
from markdown_it import MarkdownIt

ROOT = Path(__file__).resolve().parents[2]
BOOK = ROOT / "book"
LABS = sorted((ROOT / "labs").glob("*.ipynb"))

#: The sections of CONTRIBUTING.md the messages cite. test_cited_sections_exist keeps them in step.
SECTION = {
    "layout": "1. 저장소 구성과 그 이유",
    "numbers": "2. 숫자 원칙 점검표",
    "week": "3. 새 주차 추가하기",
    "page": "4. 새 쪽 추가하기",
    "exercise": "5. 연습문제와 풀이",
    "catalog": "6. 카탈로그에 장치나 모델 추가하기",
    "lab": "7. 실습 노트북 추가하기",
    "figure": "8. 그림 추가하기",
    "glossary": "9. 용어 사전에 용어 추가하기",
    "checks": "10. 풀 리퀘스트 전에 돌릴 검사",
}


def see(key: str) -> str:
    return f"(CONTRIBUTING.md §{SECTION[key]} 참고)"


def rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


# --------------------------------------------------------------------------- what is checked

TOC = toc_files()


def _resolve(entry: str) -> Path | None:
    try:
        return resolve(entry)
    except FileNotFoundError:
        return None


PAGES = [p for p in map(_resolve, TOC) if p is not None and p.suffix == ".md"]
WEEKS = sorted(p for p in BOOK.glob("week*") if p.is_dir())
_MD = MarkdownIt("commonmark")


def markdown_sources(path: Path) -> list[str]:
    """The Markdown text of a page: the markdown cells of a MyST notebook or .ipynb (code cells left out)."""
    if path.suffix == ".ipynb":
        nb = json.loads(path.read_text(encoding="utf-8"))
        return ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown"]
    text = path.read_text(encoding="utf-8")
    if "format_name: myst" in text[:400]:
        return [c.source for c in jupytext.reads(text, fmt="md:myst").cells if c.cell_type == "markdown"]
    return [re.sub(r"\A---\n.*?\n---\n", "", text, flags=re.S)]


def titles(path: Path) -> list[str]:
    """The level-1 headings of a page, outside code fences."""
    found = []
    for src in markdown_sources(path):
        tokens = _MD.parse(src)
        for i, t in enumerate(tokens):
            if t.type == "heading_open" and t.tag == "h1":
                found.append(tokens[i + 1].content)
    return found


# --------------------------------------------------------------------------- the guide itself

def test_cited_sections_exist():
    guide = ROOT / "CONTRIBUTING.md"
    assert guide.is_file(), "CONTRIBUTING.md가 없습니다. 저장소 맨 위에 기여 안내서를 두어야 합니다."
    headings = {m.group(1).strip() for m in re.finditer(r"^##\s+(.+)$", guide.read_text(encoding="utf-8"), re.M)}
    missing = [s for s in SECTION.values() if s not in headings]
    assert not missing, f"테스트 메시지가 가리키는 CONTRIBUTING.md 절이 없습니다: {missing}. 절 제목을 맞춰 주세요."


# --------------------------------------------------------------------------- chapters

def test_every_toc_entry_is_a_file():
    missing = [e for e in TOC if _resolve(e) is None]
    assert not missing, (
        f"_toc.yml이 없는 파일을 가리킵니다: {missing}. 파일 이름(확장자 없이, 저장소 맨 위부터의 경로)을 고치거나 "
        f"그 줄을 지우세요 {see('page')}")


@pytest.mark.parametrize("week", WEEKS, ids=lambda p: p.name)
def test_chapter_folder_has_index_and_exercises(week):
    missing = [name for name in ("index.md", "exercises.md") if not (week / name).is_file()]
    assert not missing, (
        f"{rel(week)}/에 {', '.join(missing)}가 없습니다. 주차 폴더마다 개요(index.md: 학습 목표와 이번 주의 지도)와 "
        f"연습문제 쪽(exercises.md)이 있어야 합니다. `tools/new-week`가 둘 다 만들어 줍니다 {see('week')}")
    listed = set(TOC)
    unlisted = [rel(p) for p in sorted(week.glob("*.md")) if rel(p.with_suffix("")) not in listed]
    assert not unlisted, (
        f"_toc.yml에 없는 쪽이 있습니다: {unlisted}. 목차에 없는 쪽은 빌드되지 않습니다(only_build_toc_files). "
        f"그 주차 파트의 sections에 `- file: {rel(week)}/<이름>`으로 더하고 개요의 지도 표에도 적으세요 {see('page')}")


@pytest.mark.parametrize("path", PAGES + LABS, ids=rel)
def test_page_has_exactly_one_title(path):
    found = titles(path)
    assert len(found) == 1, (
        f"{rel(path)}의 제목(맨 위 `# ` 수준 제목)이 {len(found)}개입니다: {found}. 쪽마다 `# 제목`을 정확히 하나 두고, "
        f"나머지는 `## 절`, `### 소절`로 내리세요. 제목이 없으면 목차와 검색에 이름이 나오지 않고, 둘 이상이면 한 쪽이 "
        f"목차에서 둘로 갈라집니다 {see('page')}")


_EXERCISE = re.compile(r"^(?P<fence>:{3,}|`{3,})\{exercise(?:-start)?\}[^\n]*\n(?P<opts>(?:[ \t]*:[\w-]+:[^\n]*\n)*)", re.M)
_SOLUTION = re.compile(r"^(?P<fence>:{3,}|`{3,})\{solution(?:-start)?\}[ \t]+(?P<label>\S+)[^\n]*\n"
                       r"(?P<opts>(?:[ \t]*:[\w-]+:[^\n]*\n)*)", re.M)


def exercises_and_solutions(path: Path) -> tuple[list[str | None], dict[str, str]]:
    text = path.read_text(encoding="utf-8")
    labels = []
    for m in _EXERCISE.finditer(text):
        lab = re.search(r":label:\s*(\S+)", m.group("opts"))
        labels.append(lab.group(1) if lab else None)
    solutions = {m.group("label"): m.group("opts") for m in _SOLUTION.finditer(text)}
    return labels, solutions


@pytest.mark.parametrize("path", PAGES, ids=rel)
def test_every_exercise_has_a_folded_solution(path):
    labels, solutions = exercises_and_solutions(path)
    assert None not in labels, (
        f"{rel(path)}에 `:label:`이 없는 연습문제가 있습니다. 풀이가 문제를 가리킬 수 있도록 "
        f"`:::{{exercise}}` 바로 다음 줄에 `:label: <쪽 이름>-<짧은 이름>`을 적으세요 {see('exercise')}")
    unsolved = [lab for lab in labels if lab not in solutions]
    assert not unsolved, (
        f"{rel(path)}의 연습문제 {unsolved}에 풀이가 없습니다. 문제 뒤에 `{{solution-start}} <label>` … `{{solution-end}}` "
        f"한 쌍(풀이에 코드 셀이 있을 때) 또는 `:::{{solution}} <label>` 블록을 두고, 계산은 셀로 보여 주세요 "
        f"{see('exercise')}")
    open_ = [lab for lab, opts in solutions.items() if not re.search(r":class:.*\bdropdown\b", opts)]
    assert not open_, (
        f"{rel(path)}의 풀이 {open_}가 펼쳐진 채로 보입니다. 독자가 먼저 풀어 볼 수 있게 풀이 블록의 옵션에 "
        f"`:class: dropdown`을 더하세요 {see('exercise')}")


# --------------------------------------------------------------------------- figures

_DRAWS = re.compile(r"plt\.show\(\)|\.savefig\(|_plot\(|\bdiagram\.\w+\(|\.svg\(\)|^\s*fig\s*$", re.M)
_REMOVED = {"remove-cell", "remove-output"}


def _figure_problems_md(path: Path) -> list[str]:
    problems = []
    text = path.read_text(encoding="utf-8")
    for m in re.finditer(r"!\[(?P<alt>[^\]]*)\]\((?P<src>[^)\s]+)", text):
        if not m.group("alt").strip():
            problems.append(f"이미지 {m.group('src')}에 대체 텍스트가 없습니다: `![무엇을 보여 주는지](경로)`")
    for m in re.finditer(r"^(?P<fence>:{3,}|`{3,})\{(?P<kind>figure|glue:figure|image)\}[ \t]*(?P<arg>[^\n]*)\n"
                         r"(?P<opts>(?:[ \t]*:[\w-]+:[^\n]*\n)*)(?P<body>.*?)^(?P=fence)[ \t]*$", text, re.M | re.S):
        what = f"{{{m.group('kind')}}} {m.group('arg').strip()}"
        if not re.search(r":alt:[ \t]*\S", m.group("opts")):
            problems.append(f"{what}에 `:alt:`(그림이 보여 주는 것을 말하는 대체 텍스트)가 없습니다")
        if m.group("kind") != "image" and not m.group("body").strip():
            problems.append(f"{what}에 캡션(지시문 본문의 한국어 문장)이 없습니다")
    if "format_name: myst" in text[:400]:
        starts = [text[:m.start()].count("\n") + 1 for m in re.finditer(r"^`{3,}\{code-cell\}", text, re.M)]
        code = [c for c in jupytext.reads(text, fmt="md:myst").cells if c.cell_type == "code"]
        for line, cell in zip(starts, code):
            if _REMOVED & set(cell.metadata.get("tags", [])) or not _DRAWS.search(cell.source):
                continue
            problems.extend(_cell_caption_problems(cell.metadata, f"{line}행의 그림을 그리는 코드 셀"))
    return problems


def _cell_caption_problems(meta: dict, what: str) -> list[str]:
    nb = meta.get("mystnb", {}) or {}
    out = []
    if not str((nb.get("figure") or {}).get("caption", "")).strip():
        out.append(f"{what}에 캡션이 없습니다: 셀 옵션 `mystnb: figure: caption:`을 적으세요")
    if not str((nb.get("image") or {}).get("alt", "")).strip():
        out.append(f"{what}에 대체 텍스트가 없습니다: 셀 옵션 `mystnb: image: alt:`를 적으세요")
    return out


def _figure_problems_lab(path: Path) -> list[str]:
    problems = []
    nb = json.loads(path.read_text(encoding="utf-8"))
    for i, cell in enumerate(nb["cells"]):
        if cell["cell_type"] != "code" or _REMOVED & set(cell.get("metadata", {}).get("tags", [])):
            continue
        if any(k.startswith("image/") for o in cell.get("outputs", []) for k in o.get("data", {})):
            first = next((ln for ln in "".join(cell["source"]).splitlines() if ln.strip()), "")
            problems.extend(_cell_caption_problems(cell.get("metadata", {}),
                                                   f"{i + 1}번째 셀(`{first[:40]}`)의 그림"))
    return problems


@pytest.mark.parametrize("path", PAGES + LABS, ids=rel)
def test_every_figure_has_a_caption_and_alt_text(path):
    problems = _figure_problems_lab(path) if path.suffix == ".ipynb" else _figure_problems_md(path)
    assert not problems, (
        f"{rel(path)}의 그림에 빠진 것이 있습니다:\n  - " + "\n  - ".join(problems) +
        f"\n그림마다 무엇을 보여 주는지 말하는 한국어 캡션과 대체 텍스트가 있어야 합니다 {see('figure')}")


# --------------------------------------------------------------------------- labs

def _repository() -> tuple[str, str]:
    repo = (yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8")) or {}).get("repository") or {}
    return str(repo.get("url", "")).rstrip("/"), str(repo.get("branch") or "main")


def colab_url(lab_name: str) -> str:
    url, branch = _repository()
    m = re.fullmatch(r"https://github\.com/([^/]+/[^/]+?)(?:\.git)?", url)
    assert m, f"_config.yml의 repository.url {url!r}가 GitHub 저장소 주소가 아닙니다 {see('lab')}"
    return f"https://colab.research.google.com/github/{m.group(1)}/blob/{branch}/labs/{lab_name}"


def canonical_install_cell() -> str | None:
    """The install cell every lab starts with, from tools/lab_cells.py (None while that file does not exist)."""
    f = ROOT / "tools" / "lab_cells.py"
    if not f.is_file():
        return None
    spec = importlib.util.spec_from_file_location("_lab_cells", f)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.INSTALL_CELL


def _lab_cells(path: Path) -> list[dict]:
    return json.loads(path.read_text(encoding="utf-8"))["cells"]


def is_sanity_cell(cell: dict) -> bool:
    """A code cell tagged ``sanity``: it prints booleans only, and nbval compares its output."""
    return cell["cell_type"] == "code" and "sanity" in cell.get("metadata", {}).get("tags", [])


@pytest.mark.parametrize("path", LABS, ids=lambda p: p.name)
def test_lab_has_the_colab_badge(path):
    first = _lab_cells(path)[0]
    expected = colab_url(path.name)
    text = "".join(first["source"]) if first["cell_type"] == "markdown" else ""
    links = re.findall(r"\((https://colab\.research\.google\.com/github/[^)\s]+)\)", text)
    assert links == [expected] and "colab-badge.svg" in text, (
        f"{rel(path)}의 첫 셀(마크다운: 제목 바로 아래)에 Colab 배지가 없거나 주소가 다릅니다. 다음 줄을 넣으세요:\n"
        f"[![Open In Colab](https://colab.research.google.com/assets/colab-badge.svg)]({expected})\n"
        f"주소는 _config.yml의 repository.url과 branch에서 만듭니다 {see('lab')}")


@pytest.mark.parametrize("path", LABS, ids=lambda p: p.name)
def test_lab_starts_with_the_install_cell(path):
    code = [c for c in _lab_cells(path) if c["cell_type"] == "code"]
    assert code, f"{rel(path)}에 코드 셀이 없습니다 {see('lab')}"
    canonical = canonical_install_cell()
    if canonical is None:
        pytest.fail(f"tools/lab_cells.py가 없어 설치 셀을 비교할 수 없습니다 {see('lab')}")
    assert "".join(code[0]["source"]).strip() == canonical.strip(), (
        f"{rel(path)}의 첫 코드 셀이 tools/lab_cells.py의 설치 셀과 다릅니다. 설치 셀은 손으로 고치지 말고 "
        f"tools/lab_cells.py에서 복사하세요(tools/new-lab이 그렇게 합니다) {see('lab')}")


@pytest.mark.parametrize("path", LABS, ids=lambda p: p.name)
def test_lab_has_a_sanity_cell(path):
    sanity = [c for c in _lab_cells(path) if is_sanity_cell(c)]
    assert sanity, (
        f"{rel(path)}에 검산 셀(태그 `sanity`)이 없습니다. 시간처럼 장치마다 달라지는 값은 nbval-ignore-output으로 "
        f"두고, 결과가 말이 되는지를 True/False로만 출력하는 셀을 하나 이상 두어 nbval이 그 출력을 비교하게 하세요 "
        f"{see('lab')}")
    for c in sanity:
        tags = c.get("metadata", {}).get("tags", [])
        assert "nbval-ignore-output" not in tags, (
            f"{rel(path)}의 검산 셀에 nbval-ignore-output 태그가 있어 nbval이 비교하지 않습니다. 태그를 빼세요 {see('lab')}")


@pytest.mark.parametrize("path", LABS, ids=lambda p: p.name)
def test_lab_answers_stay_hidden_everywhere(path):
    problems = []
    for i, c in enumerate(_lab_cells(path)):
        meta = c.get("metadata", {})
        if "hide-cell" not in meta.get("tags", []):
            continue
        where = f"{i + 1}번째 셀"
        if c["cell_type"] != "code":
            problems.append(f"{where}: hide-cell은 코드 셀(해설 셀)에만 붙입니다")
            continue
        if not "".join(c["source"]).startswith("#@title 해설 보기"):
            problems.append(f"{where}: 첫 줄이 `#@title 해설 보기: <무엇의 해설인지>`여야 Colab이 코드를 접고 사이트가 제목을 답니다")
        if meta.get("cellView") != "form":
            problems.append(f"{where}: Colab이 코드를 접도록 메타데이터 `cellView: \"form\"`이 필요합니다")
        jup = meta.get("jupyter", {})
        if jup.get("source_hidden") is not True or jup.get("outputs_hidden") is not True:
            problems.append(f"{where}: JupyterLab에서도 접히도록 `jupyter.source_hidden`과 `jupyter.outputs_hidden`을 true로 둡니다")
        if c.get("outputs"):
            problems.append(f"{where}: 저장된 출력이 있습니다. Colab은 저장된 출력을 그대로 보여 주므로 출력을 지웁니다")
        if "nbval-ignore-output" not in meta.get("tags", []):
            problems.append(f"{where}: 저장된 출력이 없으니 nbval이 실행 결과와 비교하지 않도록 태그 `nbval-ignore-output`을 더합니다")
    assert not problems, (
        f"{rel(path)}의 해설 셀이 어딘가에서 펼쳐진 채로 보입니다:\n  - " + "\n  - ".join(problems) + f"\n{see('lab')}")
