"""tools/device-run on a CPU: executes a lab in a fresh kernel, stores it and a JSON labelled CPU, never 실측."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from xpucalc import evidence

REPO = Path(__file__).resolve().parents[2]

MINI_LAB = '''
from xpucalc import bench
env = bench.torch_environment("cpu")
results = bench.run_grid("torch", paths=("eager",), precisions=("fp32",), ms=(2,), k=16, n=16, device="cpu",
                         warmup=0, reps=2, warmup_s=0)
checks = {"중앙값 > 0": all(r.device.median_s > 0 for r in results), "정확도 통과": all(r.accuracy.passed for r in results)}
print(checks)
'''


def test_device_run_on_cpu_labels_cpu(tmp_path):
    nbformat = pytest.importorskip("nbformat")
    pytest.importorskip("nbclient")
    labs = tmp_path / "labs"
    labs.mkdir()
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(MINI_LAB)])
    nbformat.write(nb, labs / "01_mini.ipynb")
    out = tmp_path / "out"
    run = subprocess.run([sys.executable, str(REPO / "tools" / "device-run"), "--labs", "01,09", "--out", str(out),
                          "--labs-dir", str(labs)], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    report = json.loads((out / "results.json").read_text(encoding="utf-8"))
    (lab,) = report["labs"]  # "09" matches nothing and is skipped
    assert lab["lab"] == "01_mini.ipynb" and lab["error"] is None and lab["run_s"] > 0
    assert lab["env"]["evidence"] == evidence.CPU_CHECKED and lab["env"]["kind"] == "cpu"
    assert lab["checks"] == {"중앙값 > 0": True, "정확도 통과": True}
    (r,) = lab["results"]
    assert r["evidence"] == evidence.CPU_CHECKED != evidence.MEASURED
    assert r["device"]["median_s"] > 0 and r["environment"]["threads"] == 1 and r["accuracy_passed"] is True
    stored = nbformat.read(out / "labs" / "01_mini.ipynb", as_version=4)
    assert len(stored.cells) == 1 and stored.cells[0].outputs  # executed, dump cell removed
    assert "CPU 동작 확인" in run.stdout


def test_device_run_without_matching_lab_refuses(tmp_path):
    run = subprocess.run([sys.executable, str(REPO / "tools" / "device-run"), "--labs", "99", "--out",
                          str(tmp_path / "o"), "--labs-dir", str(tmp_path)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 2 and "no lab matches" in run.stderr
