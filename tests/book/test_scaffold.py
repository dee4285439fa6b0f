"""tools/new-week and tools/new-lab, run for real in a temporary copy of the repository.

A throwaway week and lab are scaffolded into a copy (only what a build and the tests read: no .git,
no venvs, no build outputs), and then, in that copy, with the copy's own xpucalc first on the path:

- the week builds strictly (``jupyter-book build -W -n --keep-going``) from a TOC holding the new week
  only (fast: about ten seconds of execution);
- one pytest run in the copy: the week passes the chapter, chapter-value and conventions tests, and the
  lab passes ``pytest --nbval`` as written and the Colab and conventions tests;
- both tools refuse what they must refuse (exit code 2, a Korean message, nothing written).

The build of the *whole* copy (every chapter executed again, several minutes) runs only with
``XPU_SCAFFOLD_FULL_BUILD=1``, so that CI can choose where to spend that time: the copy's full build
shows that the new part slots into the real book (TOC order, cross-references, search index).
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
COPY = ("_config.yml", "_toc.yml", "book", "labs", "_ext", "_static", "tests", "tools", "xpucalc",
        "pyproject.toml", "requirements.txt", "README.md", "CONTRIBUTING.md")
IGNORE = shutil.ignore_patterns("_build", ".jupyter_cache", "__pycache__", ".ipynb_checkpoints", "*.egg-info",
                                ".pytest_cache", ".hypothesis", "_shots", "mutants", "artifacts")
HANGUL = re.compile(r"[\uac00-\ud7a3]")
TIMES: dict[str, float] = {}
JB = shutil.which("jupyter-book", path=str(Path(sys.executable).parent)) or shutil.which("jupyter-book") or "jupyter-book"


def _free(existing: set[int], start: int, step: int) -> int:
    n = start
    while n in existing:
        n += step
    return n


WEEK = _free({int(p.name[4:]) for p in (ROOT / "book").glob("week[0-9][0-9]")}, 99, -1)
LAB = _free({int(p.name[:2]) for p in (ROOT / "labs").glob("[0-9][0-9]_*.ipynb")}, 99, -1)
LAB_NAME = f"{LAB:02d}_scaffold_check"


def _env(copy: Path) -> dict:
    env = {k: v for k, v in os.environ.items()
           if k not in ("XPU_REQUIRE_SITE", "XPU_REQUIRE_PDF", "XPU_BUILD_CACHE", "PYTHONHOME")}
    env["PYTHONPATH"] = str(copy)  # the copy's xpucalc before the editable install of the checkout
    return env


def _run(copy: Path, *args: str, timeout: int = 600) -> subprocess.CompletedProcess:
    return subprocess.run(list(args), cwd=copy, env=_env(copy), capture_output=True, text=True, timeout=timeout)


def _tool(copy: Path, name: str, *args: str) -> subprocess.CompletedProcess:
    return _run(copy, sys.executable, str(copy / "tools" / name), *args, timeout=300)


def _pytest(copy: Path, *args: str) -> subprocess.CompletedProcess:
    """pytest in the copy, one line per test (node id and outcome)."""
    return _run(copy, sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-o", "addopts=", "-v", *args)


def _tail(proc: subprocess.CompletedProcess, n: int = 4000) -> str:
    return (proc.stdout[-n:] + "\n" + proc.stderr[-n:]).strip()


@pytest.fixture(scope="module")
def copy(tmp_path_factory) -> Path:
    """A copy of the repository with a scaffolded week and lab (each tool run once, timed)."""
    dest = tmp_path_factory.mktemp("scaffold") / "repo"
    dest.mkdir()
    t0 = time.perf_counter()
    for name in COPY:
        src = ROOT / name
        if src.is_dir():
            shutil.copytree(src, dest / name, ignore=IGNORE, symlinks=True)
        elif src.is_file():
            shutil.copy2(src, dest / name)
    TIMES["copy"] = time.perf_counter() - t0
    (dest / "_toc.before.yml").write_text((dest / "_toc.yml").read_text(encoding="utf-8"), encoding="utf-8")
    t0 = time.perf_counter()
    week = _tool(dest, "new-week", str(WEEK), "임시 주차: 스캐폴드 점검")
    TIMES["new-week"] = time.perf_counter() - t0
    assert week.returncode == 0, _tail(week)
    (dest / "_toc.after-week.yml").write_text((dest / "_toc.yml").read_text(encoding="utf-8"), encoding="utf-8")
    t0 = time.perf_counter()
    lab = _tool(dest, "new-lab", str(LAB), "임시 실습", "--name", "scaffold_check")
    TIMES["new-lab"] = time.perf_counter() - t0
    assert lab.returncode == 0, _tail(lab)
    return dest


# --------------------------------------------------------------------------- new-week

def test_new_week_writes_four_pages_and_a_toc_part(copy):
    folder = copy / "book" / f"week{WEEK:02d}"
    assert sorted(p.name for p in folder.iterdir()) == ["exercises.md", "index.md", "study-guide.md", "topic-1.md"]
    first_week = sorted((ROOT / "book").glob("week[0-9][0-9]/index.md"))[0].read_text(encoding="utf-8")
    header = first_week[:first_week.index("\n---\n", 4) + 5]  # the jupytext header of the chapter pages
    for page in folder.iterdir():
        text = page.read_text(encoding="utf-8")
        assert text.startswith(header) and "format_name: myst" in header, page.name
        assert "import xpucalc as xc" in text and "glue(" in text and "{glue:text}`" in text, page.name
    before = (copy / "_toc.before.yml").read_text(encoding="utf-8").splitlines()
    after = (copy / "_toc.after-week.yml").read_text(encoding="utf-8").splitlines()
    # one block of seven lines inserted; every old line kept, in order, byte for byte (comments, quoting)
    assert len(after) == len(before) + 7
    at = next(i for i, (a, b) in enumerate(zip(after, before + [None])) if a != b)
    assert after[:at] == before[:at] and after[at + 7:] == before[at:]
    assert after[at] == f'  - caption: "{WEEK}주차: 임시 주차: 스캐폴드 점검"', after[at:at + 7]
    toc = yaml.safe_load("\n".join(after))
    parts = [p["caption"] for p in toc["parts"]]
    assert f"{WEEK}주차: 임시 주차: 스캐폴드 점검" in parts


def _week_of(part: dict) -> int | None:
    m = re.search(r"book/week(\d\d)/", str(part))
    return int(m.group(1)) if m else None


def test_new_week_orders_parts_by_week_before_the_other_parts(tmp_path):
    """In a bare folder: weeks 2 and 7 around an existing week 5, all before the parts that are not weeks."""
    (tmp_path / "tools").mkdir()
    shutil.copy2(ROOT / "tools" / "new-week", tmp_path / "tools" / "new-week")
    toc = ("# a comment that must survive\nformat: jb-book\nroot: book/intro\nparts:\n"
           '  - caption: "5주차: 기존"\n    chapters:\n      - file: book/week05/index\n'
           '  - caption: "참고"\n    chapters:\n      - file: book/ref/index\n')
    (tmp_path / "_toc.yml").write_text(toc, encoding="utf-8")
    for n in ("7", "02"):
        proc = subprocess.run([sys.executable, str(tmp_path / "tools" / "new-week"), n, f"주차 {n}"],
                              capture_output=True, text=True, timeout=60)
        assert proc.returncode == 0, proc.stderr
    text = (tmp_path / "_toc.yml").read_text(encoding="utf-8")
    assert text.startswith("# a comment that must survive\n")
    order = [_week_of(p) for p in yaml.safe_load(text)["parts"]]
    assert order == [2, 5, 7, None]


@pytest.mark.parametrize("number", ["05", "0", "100", "6.5", "abc", "-3", ""])
def test_new_week_refuses_an_existing_week_or_a_bad_number(copy, number):
    if number == "05":
        number = f"{WEEK:02d}"  # the week the fixture just made (exists in the copy)
    before = (copy / "_toc.yml").read_text(encoding="utf-8")
    weeks = sorted(p.name for p in (copy / "book").iterdir())
    proc = _tool(copy, "new-week", number, "중복 점검")
    assert proc.returncode == 2, _tail(proc)
    assert HANGUL.search(proc.stderr) and ("주차" in proc.stderr), proc.stderr
    assert (copy / "_toc.yml").read_text(encoding="utf-8") == before
    assert sorted(p.name for p in (copy / "book").iterdir()) == weeks


def test_new_week_refuses_missing_arguments(copy):
    proc = _tool(copy, "new-week", "8")
    assert proc.returncode == 2 and "사용법" in proc.stderr


def test_scaffolded_week_builds_strictly(copy):
    """The new week alone (its index as the root) and the new lab, so the build executes four pages, not the book."""
    week = f"book/week{WEEK:02d}"
    toc = {"format": "jb-book", "root": f"{week}/index",
           "chapters": [{"file": f"{week}/{name}"} for name in ("topic-1", "exercises", "study-guide")]
           + [{"file": f"labs/{LAB_NAME}"}]}  # the lab too: not executed, its stored outputs are rendered
    (copy / "_toc.scaffold.yml").write_text(yaml.safe_dump(toc, allow_unicode=True), encoding="utf-8")
    t0 = time.perf_counter()
    proc = _run(copy, JB, "build", ".", "--toc", "_toc.scaffold.yml",
                "--path-output", str(copy.parent / "week-build"), "-W", "-n", "--keep-going")
    TIMES["build-week"] = time.perf_counter() - t0
    assert proc.returncode == 0, _tail(proc)
    html = copy.parent / "week-build" / "_build" / "html" / week
    assert {p.name for p in html.glob("*.html")} >= {"index.html", "topic-1.html", "exercises.html", "study-guide.html"}
    ex = (html / "exercises.html").read_text(encoding="utf-8")
    assert "solution" in ex and "dropdown" in ex and "{glue" not in ex
    lab = (copy.parent / "week-build" / "_build" / "html" / "labs" / f"{LAB_NAME}.html").read_text(encoding="utf-8")
    assert "colab-badge.svg" in lab and f"labs/{LAB_NAME}.ipynb" in lab


@pytest.fixture(scope="module")
def outcomes(copy) -> dict[str, str]:
    """One pytest run in the copy over what the new week and lab must pass: node id -> PASSED, FAILED, ..."""
    t0 = time.perf_counter()
    tests = [str(p.relative_to(copy)) for p in sorted((copy / "tests" / "book").glob("test_*.py"))
             if p.stem in ("test_chapters", "test_chapter_values", "test_conventions", "test_colab_cell")]
    proc = _pytest(copy, *tests, "--nbval", f"labs/{LAB_NAME}.ipynb", "-k", f"week{WEEK:02d} or {LAB_NAME}")
    TIMES["tests-in-copy"] = time.perf_counter() - t0
    found = dict(re.findall(r"^(\S.*?) (PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS)\b", proc.stdout, re.M))
    assert found, _tail(proc)
    return found | {"(exit code)": str(proc.returncode), "(tail)": _tail(proc)}


def _part(outcomes: dict[str, str], keep) -> dict[str, str]:
    return {n: o for n, o in outcomes.items() if not n.startswith("(") and keep(n)}


def test_scaffolded_week_passes_the_chapter_and_conventions_tests(outcomes):
    week = _part(outcomes, lambda n: f"week{WEEK:02d}" in n)
    assert all(o == "PASSED" for o in week.values()), {n: o for n, o in week.items() if o != "PASSED"}
    # four pages executed, their glued values checked, four titles, four exercise pages, the folder (and more)
    assert sum(n.startswith("tests/book/test_chapters.py") for n in week) == 4
    assert sum(n.startswith("tests/book/test_chapter_values.py") for n in week) == 4
    assert len(week) >= 4 + 4 + 4 + 1


# --------------------------------------------------------------------------- new-lab

def test_scaffolded_lab_passes_nbval_as_written(outcomes):
    cells = _part(outcomes, lambda n: n.startswith("labs/"))
    assert len(cells) >= 5 and all(o == "PASSED" for o in cells.values()), cells


def test_scaffolded_lab_passes_the_colab_and_conventions_tests(outcomes):
    checks = _part(outcomes, lambda n: n.startswith("tests/") and LAB_NAME in n)
    assert len(checks) >= 6 and all(o == "PASSED" for o in checks.values()), checks


def test_everything_run_in_the_copy_passed(outcomes):
    assert outcomes["(exit code)"] == "0", outcomes["(tail)"]


def test_scaffolded_lab_is_in_the_toc_in_number_order(copy):
    files = re.findall(r"^\s*- file: (labs/\S+)", (copy / "_toc.yml").read_text(encoding="utf-8"), re.M)
    assert f"labs/{LAB_NAME}" in files
    assert files == sorted(files)


@pytest.mark.parametrize("number", ["taken", "100", "x1", ""])
def test_new_lab_refuses_a_taken_or_bad_number(copy, number):
    if number == "taken":
        number = str(LAB)
    labs = sorted(p.name for p in (copy / "labs").iterdir())
    toc = (copy / "_toc.yml").read_text(encoding="utf-8")
    proc = _tool(copy, "new-lab", number, "중복 점검")
    assert proc.returncode == 2, _tail(proc)
    assert HANGUL.search(proc.stderr), proc.stderr
    assert sorted(p.name for p in (copy / "labs").iterdir()) == labs
    assert (copy / "_toc.yml").read_text(encoding="utf-8") == toc


# --------------------------------------------------------------------------- the whole copy

@pytest.mark.skipif(os.environ.get("XPU_SCAFFOLD_FULL_BUILD") != "1",
                    reason="whole-book build of the scaffolded copy: set XPU_SCAFFOLD_FULL_BUILD=1 (several minutes)")
def test_whole_copy_with_the_new_week_builds_strictly(copy):
    t0 = time.perf_counter()
    proc = _run(copy, JB, "build", ".", "-W", "-n", "--keep-going", timeout=1800)
    TIMES["build-whole-copy"] = time.perf_counter() - t0
    assert proc.returncode == 0, _tail(proc)
    assert (copy / "_build" / "html" / "book" / f"week{WEEK:02d}" / "index.html").is_file()


def test_report_times():
    """Not a check: prints how long each step took (pytest -s shows it)."""
    print("\nscaffold timings (s):", {k: round(v, 1) for k, v in TIMES.items()})
