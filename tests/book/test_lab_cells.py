"""tools/lab_cells.py after a lab is executed: profiler noise is stripped from what is stored, answers are stashed.

(The install cell of tools/lab_cells.py is run for real in test_colab_cell.py.)
"""
from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
LABS = sorted((REPO / "labs").glob("*.ipynb"))


def _lab_cells():
    spec = importlib.util.spec_from_file_location("_lab_cells", REPO / "tools" / "lab_cells.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


LC = _lab_cells()

# What Kineto writes to stderr around a torch.profiler run (torch 2.13 CPU; older builds print STAGE lines)
NOISE = [
    "USDT:2026-12-01 10:25:39 29936:29936 SyncActivityProfilerHandler.cpp:52] profiler_start\n",
    "USDT:2026-12-01 10:25:39 29936:29936 SyncActivityProfilerHandler.cpp:59] profiler_stop\n",
    "STAGE:2024-05-01 12:00:00 1234:1234 ActivityProfilerController.cpp:314] Completed Stage: Warm Up\n",
]


def _notebook():
    nbformat = pytest.importorskip("nbformat")
    v4 = nbformat.v4
    measured = v4.new_code_cell("ks = bench.kernel_summary(...)", outputs=[
        v4.new_output("stream", name="stdout", text="호출 1번당 연산자 2개\n   10회  aten::addmm\n"),
        v4.new_output("stream", name="stderr", text="".join(NOISE[:2])),
        v4.new_output("stream", name="stderr", text="경고: 그대로 남아야 하는 줄\n" + NOISE[2]),
    ])
    answer = v4.new_code_cell("#@title 해설 보기: 질문 5\nMarkdown('...')", outputs=[
        v4.new_output("execute_result", data={"text/markdown": "해설"}, execution_count=3),
        v4.new_output("stream", name="stderr", text=NOISE[0]),
    ], metadata={"tags": ["hide-cell", "nbval-ignore-output"]})
    return v4.new_notebook(cells=[v4.new_markdown_cell("# 실습"), measured, answer])


def test_strip_profiler_noise_keeps_everything_else():
    nb = _notebook()
    assert LC.strip_profiler_noise(nb) == 4           # two USDT lines, one STAGE line, the answer's USDT line
    outs = nb.cells[1].outputs
    assert [o.name for o in outs] == ["stdout", "stderr"]   # the output that held only noise is gone
    assert outs[0].text == "호출 1번당 연산자 2개\n   10회  aten::addmm\n"
    assert outs[1].text == "경고: 그대로 남아야 하는 줄\n"
    assert LC.strip_profiler_noise(nb) == 0           # a second pass changes nothing


def test_stash_answers_strips_the_noise_too():
    # every tool that saves an executed lab (tools/new-lab, tools/device-run, --stash-answers) calls stash_answers
    nb = _notebook()
    assert LC.stash_answers(nb) == 1
    measured, answer = nb.cells[1], nb.cells[2]
    assert not any("USDT" in o.get("text", "") or "STAGE:" in o.get("text", "") for o in measured.outputs)
    stashed = answer.metadata[LC.ANSWER_OUTPUTS_KEY]
    assert answer.outputs == [] and [o["output_type"] for o in stashed] == ["execute_result"]


def test_stash_answers_command_strips_a_saved_lab(tmp_path):
    nbformat = pytest.importorskip("nbformat")
    path = tmp_path / "lab.ipynb"
    nbformat.write(_notebook(), path)
    assert LC._main(["--stash-answers", str(path)]) == 0
    assert "USDT" not in path.read_text(encoding="utf-8")


@pytest.mark.parametrize("path", LABS, ids=lambda p: p.name)
def test_stored_lab_outputs_have_no_profiler_noise(path):
    nb = json.loads(path.read_text(encoding="utf-8"))
    for i, cell in enumerate(nb["cells"]):
        outs = cell.get("outputs", []) + cell.get("metadata", {}).get(LC.ANSWER_OUTPUTS_KEY, [])
        for o in outs:
            text = "".join(o.get("text", "")) if o.get("output_type") == "stream" else ""
            noisy = [ln for ln in text.splitlines() if LC.PROFILER_NOISE.search(ln)]
            assert not noisy, (f"{path.name} cell {i}: profiler noise in the stored output ({noisy[0]!r}); "
                               "run `python tools/lab_cells.py --stash-answers` on the executed lab")
