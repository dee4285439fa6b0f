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
  or a wheel) or, without it, from the repository, plus the Korean font
  package; torch, jax, numpy and matplotlib stay the runtime's own;
* if that fails (no network, repository unreachable, a wrong path), it prints
  in Korean what happened and what to do, and stops the notebook with one
  short line instead of a traceback and a cascade of ``import xpucalc`` errors.

Usage:
    python tools/lab_cells.py                  print the install cell
    python tools/lab_cells.py --write LAB...   put it into the first code cell of each notebook (nbformat;
                                               metadata, tags and the other cells are kept)
    python tools/lab_cells.py --check LAB...   exit 1 if a notebook's first code cell differs
    python tools/lab_cells.py --stash-answers LAB...
                                               move each answer cell's outputs into its metadata (run it after
                                               executing a lab: Colab shows stored outputs even of a folded cell,
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
import os
import subprocess
import sys

# Colab에는 xpucalc가 없으므로 저장소에서 설치합니다. torch·jax·numpy·matplotlib는 런타임 것을 그대로 씁니다(--no-deps).
# 로컬에서 `pip install -r requirements.txt`를 마쳤다면 아래 try 블록에서 바로 끝납니다.
# 저장소 대신 다른 곳에서 설치하려면 XPUCALC_SOURCE에 내려받은 저장소 폴더나 wheel 파일의 경로를 넣습니다.
try:
    import xpucalc
except ImportError:
    _source = os.environ.get("XPUCALC_SOURCE", "git+__URL__")
    try:
        _pip = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", _source,
                               "koreanize-matplotlib"], capture_output=True, text=True, timeout=600)
        _failed = _pip.returncode != 0
        _detail = [_l for _l in (_pip.stderr or _pip.stdout).splitlines() if _l.strip()][-3:]
    except (OSError, subprocess.TimeoutExpired) as _exc:
        _failed, _detail = True, [f"{type(_exc).__name__}: {_exc}"]
    if _failed:
        print(f"xpucalc를 설치하지 못했습니다. 설치 위치: {_source}")
        print("원인: 저장소나 네트워크에 닿지 않았거나 경로가 틀렸습니다. pip가 남긴 마지막 줄:")
        for _line in _detail:
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


def stash_answers(nb: object) -> int:
    """Move the outputs of every answer cell of ``nb`` into its metadata; returns how many cells had outputs.

    Cells without outputs keep what they stashed before, so running this twice changes nothing.
    """
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
