#!/usr/bin/env python3
"""The cells every lab shares, defined once: the Colab install cell.

``INSTALL_CELL`` is the source of the first code cell of every lab in ``labs/``.
It is built from ``repository.url`` in ``_config.yml`` (the one place the
repository is named; the Colab badges come from the same setting), and tests
check that every lab carries exactly this text (``tests/book/test_colab_cell.py``).

What the cell does:

* if ``import xpucalc`` works (a local checkout after ``pip install -r
  requirements.txt``, or a second run), nothing;
* else ``pip install --no-deps`` from ``XPUCALC_SOURCE`` (a path to a checkout
  or a wheel) or, without it, from the repository (timeout 120 s, git never
  prompts); torch, jax, numpy and matplotlib stay the runtime's own;
* if that fails (no network, repository unreachable, a wrong path), it prints
  in Korean what happened, the cause lines picked from pip's output (git's
  ``fatal:``, ``Could not resolve``, ``No matching distribution``, a path that
  ``does not exist``, else ``ERROR:`` lines; colour codes removed) and what to
  do, and stops the notebook with one short line instead of a traceback and a
  cascade of ``import xpucalc`` errors;
* then, in a separate pip call, the Korean font package (skipped when it is
  importable). It is optional: if it cannot be installed (offline with a local
  wheel) the cell prints one Korean line and goes on
  (``xpucalc.render.plot.setup_korean_font`` falls back to a system font or warns).

Usage:
    python tools/lab_cells.py                  print the install cell
    python tools/lab_cells.py --write LAB...   put it into the first code cell of each notebook (nbformat;
                                               metadata, tags and the other cells are kept)
    python tools/lab_cells.py --check LAB...   exit 1 if a notebook's first code cell differs
    python tools/lab_cells.py --stash-answers LAB...
                                               after executing a lab: drop profiler noise lines from the outputs
                                               (:func:`strip_profiler_noise`) and move each answer cell's outputs
                                               into its metadata (Colab shows stored outputs even of a folded cell,
                                               so the answer must not be an output; the site puts it back)

Answer cells: a lab's answer is a code cell tagged ``hide-cell`` whose first line is
``#@title 해설 보기: ...``. After a lab is executed, :func:`stash_answers` moves the answer's
rendered outputs into ``metadata["xpu_answer_outputs"]`` and leaves the cell without outputs: Colab and
JupyterLab show nothing until the reader runs the cell, and the book's site extension
(``_ext/xpu_reader.py``) restores the stored outputs so the site shows the rendered answer under
"해설 보기".
"""
from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def repository_url(config: Path = ROOT / "_config.yml") -> str:
    """``repository.url`` from ``_config.yml`` (read without a YAML dependency), without a trailing slash."""
    text = config.read_text(encoding="utf-8")
    block = re.search(r"^repository:[ \t]*\n((?:[ \t]+.*\n?)+)", text, re.M)
    fields = dict(re.findall(r"^[ \t]+(\w+):[ \t]*[\"']?([^\"'\n#]+?)[\"']?[ \t]*(?:#.*)?$",
                             block.group(1), re.M)) if block else {}
    url = fields.get("url", "").rstrip("/")
    if not re.fullmatch(r"https://github\.com/[^/]+/[^/]+?(?:\.git)?", url):
        raise ValueError(f"_config.yml: repository.url {url!r} is not a GitHub repository URL; set it there")
    return url


_TEMPLATE = '''\
import importlib
import importlib.util
import os
import re
import subprocess
import sys

# Colab에는 xpucalc가 없으므로 저장소에서 설치합니다. torch·jax·numpy·matplotlib는 런타임 것을 그대로 씁니다(--no-deps).
# 로컬에서 `pip install -r requirements.txt`를 마쳤다면 아래 try 블록에서 바로 끝납니다.
# 저장소 대신 다른 곳에서 설치하려면 XPUCALC_SOURCE에 내려받은 저장소 폴더나 wheel 파일의 경로를 넣습니다.
# 한국어 글꼴(koreanize-matplotlib)은 따로 설치하고, 설치하지 못해도 실습은 계속합니다.
try:
    import xpucalc
except ImportError:
    _source = os.environ.get("XPUCALC_SOURCE", "git+__URL__")

    def _pip_install(*args):
        \"\"\"Run one `pip install --no-deps`; return (succeeded, non-empty output lines without colour codes).\"\"\"
        try:
            _run = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", *args],
                                  capture_output=True, text=True, timeout=120,
                                  env={**os.environ, "GIT_TERMINAL_PROMPT": "0"})
            _ok, _out = _run.returncode == 0, _run.stderr + "\\n" + _run.stdout
        except (OSError, subprocess.TimeoutExpired) as _exc:
            _ok, _out = False, f"{type(_exc).__name__}: {_exc}"
        _lines = (re.sub(r"\\x1b[[][0-9;?]*[A-Za-z]", "", _l).lstrip(" \\t│╰─>×").rstrip() for _l in _out.splitlines())
        return _ok, [_l for _l in _lines if _l]

    def _cause(lines):
        \"\"\"The lines of pip's output that name the cause (git's `fatal:`, DNS, a missing package or path).\"\"\"
        for _key in ("fatal:", "Could not resolve", "No matching distribution", "does not exist", "ERROR:"):
            _hits = list(dict.fromkeys(_l for _l in lines if _key in _l))
            if _hits:
                return _hits[:2]
        return lines[-3:]

    _ok, _lines = _pip_install(_source)
    if not _ok:
        print(f"xpucalc를 설치하지 못했습니다. 설치 위치: {_source}")
        print("원인: 저장소나 네트워크에 닿지 않았거나 경로가 틀렸습니다. pip가 알려 준 원인:")
        for _line in _cause(_lines):
            print("    " + _line)
        print("할 일:")
        print("  1) 인터넷 연결(Colab이면 런타임 연결 상태)을 확인하고 이 셀을 다시 실행합니다.")
        print("  2) 저장소에 닿지 않으면 XPUCALC_SOURCE로 설치할 곳을 알려 준 뒤 이 셀을 다시 실행합니다. 예:")
        print('       os.environ["XPUCALC_SOURCE"] = "/content/xpu-course"   # 저장소를 내려받아 푼 폴더')
        print('       os.environ["XPUCALC_SOURCE"] = "/content/xpucalc-0.1.0-py3-none-any.whl"   # wheel 파일')
        print("     wheel은 저장소 폴더에서 `pip wheel --no-deps -w dist .`로 만들어 Colab 파일 창에 올립니다.")
        print("나머지 셀은 xpucalc가 있어야 돌아가므로 여기서 멈춥니다.")

        class XpucalcInstallFailed(Exception):
            def _render_traceback_(self):  # IPython/Colab: one line instead of a traceback
                return ["실행을 멈췄습니다: xpucalc 설치 실패 (위 안내를 보십시오)"]

        if "IPython" in sys.modules and getattr(sys.modules["IPython"], "get_ipython", lambda: None)():
            raise XpucalcInstallFailed()
        raise SystemExit(1)
    if importlib.util.find_spec("koreanize_matplotlib") is None and not _pip_install("--retries", "1",
                                                                                    "koreanize-matplotlib")[0]:
        print("한국어 글꼴 패키지(koreanize-matplotlib)를 설치하지 못했습니다. 그림의 한글이 네모로 보일 수 있지만 실습은 계속합니다.")
    importlib.invalidate_caches()
    import xpucalc
print("xpucalc", xpucalc.__version__, "준비 완료")
'''


def install_cell(url: str | None = None) -> str:
    """Source of the install cell for the repository ``url`` (default: ``repository.url`` of ``_config.yml``)."""
    return _TEMPLATE.replace("__URL__", url or repository_url()).rstrip("\n")


INSTALL_CELL: str = install_cell()


#: Metadata key holding an answer cell's rendered outputs (see the module docstring).
ANSWER_OUTPUTS_KEY = "xpu_answer_outputs"
ANSWER_TITLE = "#@title 해설 보기"


def is_answer_cell(cell: object) -> bool:
    """True for a lab's answer cell: a code cell tagged ``hide-cell`` starting with ``#@title 해설 보기``."""
    return (getattr(cell, "cell_type", None) == "code" and "hide-cell" in cell.metadata.get("tags", [])  # type: ignore[attr-defined]
            and cell.source.lstrip().startswith(ANSWER_TITLE))  # type: ignore[attr-defined]


#: Lines the PyTorch profiler (Kineto) writes to stderr while it runs, e.g.
#: ``USDT:2026-12-01 10:25:39 29936:29936 SyncActivityProfilerHandler.cpp:52] profiler_start``
#: or ``STAGE:2026-... ActivityProfilerController.cpp:314] Completed Stage: Warm Up``: they say nothing about the lab.
PROFILER_NOISE = re.compile(r"\bUSDT\b|^STAGE:\S+ .*\.cpp:\d+\]|ActivityProfilerController\.cpp")


def strip_profiler_noise(nb: object) -> int:
    """Remove profiler noise lines (:data:`PROFILER_NOISE`) from the stream outputs of ``nb``; returns lines removed.

    A line is noise when :data:`PROFILER_NOISE` finds it; a stream output left empty is dropped. Stashed answer
    outputs (metadata) are cleaned the same way. Running it twice changes nothing.
    """
    removed = 0

    def clean(outputs: list) -> list:
        nonlocal removed
        kept = []
        for out in outputs:
            if out.get("output_type") == "stream":
                text = out.get("text", "")
                text = "".join(text) if isinstance(text, list) else text
                lines = text.splitlines(keepends=True)
                good = [ln for ln in lines if not PROFILER_NOISE.search(ln)]
                removed += len(lines) - len(good)
                if not good:
                    continue
                if len(good) != len(lines):
                    out["text"] = "".join(good)
            kept.append(out)
        return kept

    for cell in nb.cells:  # type: ignore[attr-defined]
        if cell.get("cell_type") != "code":
            continue
        cell["outputs"] = clean(list(cell.get("outputs", [])))
        if ANSWER_OUTPUTS_KEY in cell.get("metadata", {}):
            cell["metadata"][ANSWER_OUTPUTS_KEY] = clean(list(cell["metadata"][ANSWER_OUTPUTS_KEY]))
    return removed


def stash_answers(nb: object) -> int:
    """After a lab is executed: strip profiler noise, then move the outputs of every answer cell of ``nb`` into
    its metadata; returns how many cells had outputs moved.

    Every tool that saves an executed lab calls this (``tools/new-lab``, ``tools/device-run``, ``--stash-answers``),
    so the noise is stripped wherever outputs are stored. Cells without outputs keep what they stashed before,
    so running this twice changes nothing.
    """
    strip_profiler_noise(nb)
    moved = 0
    for cell in nb.cells:  # type: ignore[attr-defined]
        if is_answer_cell(cell) and cell.outputs:
            cell.metadata[ANSWER_OUTPUTS_KEY] = [dict(o) for o in cell.outputs]
            cell.outputs, cell.execution_count = [], None
            moved += 1
    return moved


def _first_code_cell(nb: object) -> object:
    for cell in nb.cells:  # type: ignore[attr-defined]
        if cell.cell_type == "code":
            return cell
    raise ValueError("the notebook has no code cell")


def _main(argv: list[str]) -> int:
    if not argv:
        sys.stdout.write(INSTALL_CELL)
        return 0
    mode, paths = argv[0], argv[1:]
    if mode not in ("--write", "--check", "--stash-answers") or not paths:
        print(__doc__)
        return 2
    import nbformat

    if mode == "--stash-answers":
        for p in paths:
            nb = nbformat.read(p, as_version=4)
            moved = stash_answers(nb)
            nbformat.write(nb, p)
            print(f"{p}: {moved} answer cell(s) stashed")
        return 0

    bad = 0
    for p in paths:
        nb = nbformat.read(p, as_version=4)
        cell = _first_code_cell(nb)
        if cell.source == INSTALL_CELL:
            continue
        if mode == "--check":
            print(f"{p}: first code cell differs from tools/lab_cells.py INSTALL_CELL")
            bad += 1
        else:
            cell.source = INSTALL_CELL
            nbformat.write(nb, p)
            print(f"{p}: install cell updated")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(_main(sys.argv[1:]))
