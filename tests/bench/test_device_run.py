"""Dress rehearsal of tools/device-run, in an environment shaped like the accelerator machine's image.

That image has its own Python with torch, jax, numpy, matplotlib and pytest, and nothing else:
no Jupyter stack, no font package, no installed ``xpucalc``, no network. ``sandbox_env`` builds
that here: a ``sitecustomize`` that hides the editable ``xpucalc`` install and blocks the Jupyter
stack, the font and pandas; a clean ``PYTHONPATH``; proxies and pip pointed nowhere; a working
directory outside the repository. The run uses ``--smoke`` (every step at its smallest size).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from xpucalc import evidence
from xpucalc.bench import device_run, matmul

REPO = Path(__file__).resolve().parents[2]
TOOL = REPO / "tools" / "device-run"

#: Distributions the accelerator image does not have (site-packages entries starting with these, lower case).
BLOCKED = ("nbformat", "nbclient", "ipykernel", "ipython", "jupyter", "koreanize_matplotlib", "pandas", "myst",
           "sphinx", "__editable__", "xpucalc")

SITECUSTOMIZE = """
import site
import sys

REAL = {real!r}
FILTERED = {filtered!r}


def _editable(hook):
    return "__editable__" in str(getattr(hook, "__module__", "")) + repr(hook)


# the interpreter's site-packages minus what the accelerator image lacks (and minus the editable xpucalc)
sys.path[:] = [p for p in sys.path if p not in REAL]
site.addsitedir(FILTERED)
sys.meta_path[:] = [f for f in sys.meta_path if not _editable(f)]
sys.path_hooks[:] = [h for h in sys.path_hooks if not _editable(h)]
sys.path_importer_cache.clear()
"""


def sandbox_env(tmp: Path) -> dict[str, str]:
    """Environment variables of a process that sees only what the accelerator image has.

    Its site-packages is a folder of links to this interpreter's, without the entries in ``BLOCKED``
    (so ``import pandas`` fails and ``importlib.util.find_spec("pandas")`` is None, as on the image).
    """
    real = sorted({p for p in sys.path if p.endswith("site-packages") and os.path.isdir(p)})
    filtered = tmp / "site-packages"
    filtered.mkdir(exist_ok=True)
    for d in real:
        for entry in Path(d).iterdir():
            name = entry.name.lower().replace("-", "_")
            if not name.startswith(BLOCKED) and not (filtered / entry.name).exists():
                (filtered / entry.name).symlink_to(entry)
    site = tmp / "site"
    site.mkdir(exist_ok=True)
    (site / "sitecustomize.py").write_text(SITECUSTOMIZE.format(real=real, filtered=str(filtered)), encoding="utf-8")
    keep = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "USER")}
    return {**keep, "PYTHONPATH": str(site), "PYTHONNOUSERSITE": "1", "http_proxy": "http://127.0.0.1:9",
            "https_proxy": "http://127.0.0.1:9", "HTTP_PROXY": "http://127.0.0.1:9",
            "HTTPS_PROXY": "http://127.0.0.1:9", "PIP_NO_INDEX": "1", "PIP_FIND_LINKS": str(tmp / "no-wheels")}


def test_sandbox_really_lacks_what_the_image_lacks(tmp_path):
    """The rehearsal means something only if xpucalc and the Jupyter stack are unimportable in it."""
    env = sandbox_env(tmp_path)
    for module in ("xpucalc", "nbformat", "IPython", "koreanize_matplotlib", "pandas"):
        run = subprocess.run([sys.executable, "-c", f"import {module}"], env=env, cwd=tmp_path,
                             capture_output=True, text=True, timeout=60)
        assert run.returncode != 0 and "ModuleNotFoundError" in run.stderr, (module, run.stderr[-500:])
    run = subprocess.run([sys.executable, "-c", "import importlib.util as u; print(u.find_spec('pandas'))"], env=env,
                         cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert run.stdout.strip() == "None", run.stderr[-500:]
    run = subprocess.run([sys.executable, "-c", "import torch, numpy"], env=env, cwd=tmp_path,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr[-1000:]


@pytest.fixture(scope="module")
def rehearsal(tmp_path_factory):
    """``tools/device-run --smoke --out DIR`` in the sandbox: (completed process, DIR, seconds)."""
    tmp = tmp_path_factory.mktemp("device-run")
    out = tmp / "out"
    t0 = time.perf_counter()
    run = subprocess.run([sys.executable, str(TOOL), "--smoke", "--out", str(out)], env=sandbox_env(tmp), cwd=tmp,
                         capture_output=True, text=True, timeout=300)
    return run, out, time.perf_counter() - t0


def test_rehearsal_runs_every_step_and_exits_zero(rehearsal):
    run, out, seconds = rehearsal
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    index = json.loads((out / "run.json").read_text(encoding="utf-8"))
    steps = {s["step"]: s for s in index["steps"]}
    assert list(steps) == list(device_run.STEP_NAMES) and not index["skipped"]
    bad = {name: (s["status"], s["errors"], s.get("log_tail", "")[-800:]) for name, s in steps.items()
           if s["status"] != "ok" or not s["complete"]}
    assert not bad, bad
    assert index["smoke"] is True and index["cold_compile"] is True
    assert seconds < 180, f"the rehearsal took {seconds:.0f} s; it must stay well under the 2-minute target"


def test_rehearsal_results_carry_their_label_and_fields(rehearsal):
    _, out, _ = rehearsal
    run = device_run.load(out)
    assert run.evidence == evidence.CPU_CHECKED != evidence.MEASURED  # a CPU is never relabelled
    env = run.environment
    for field in ("name", "framework_version", "python", "date", "label", "kind", "driver", "runtime"):
        assert field in env
    assert env["kind"] == "cpu"
    assert run.steps["environment"]["jax"]["framework"] == "jax"
    stream = run.steps["stream"]
    for kind, moved in (("copy", 2), ("triad", 3)):
        assert stream[kind]["verified"] is True and stream[kind]["bytes_moved"] == moved * stream[kind]["nbytes"]
        assert stream[kind]["bytes_per_s"] > 0 and stream[kind]["evidence"] == evidence.CPU_CHECKED
    gemm = run.steps["gemm"]
    assert set(matmul.PRECISIONS) <= set(gemm)
    for p in matmul.PRECISIONS:
        g = gemm[p]
        assert g["status"] in ("ok", "unsupported")
        assert (g["flops_per_s"] > 0 and g["accurate"]) if g["status"] == "ok" else g["reason"]
    assert gemm["fp32"]["status"] == "ok"
    for fw in ("torch", "jax"):
        rows = run.grid(fw)
        assert {(r.path, r.precision) for r in rows} == {(p, q) for p in ("eager", "compiled") for q in ("fp32", "bf16")}
        assert all(r.device_s > 0 and r.first_call_s > 0 and r.passed for r in rows)
        assert all(r.evidence == evidence.CPU_CHECKED for r in rows)
        assert all(run.steps[device_run.GRID_STEPS[fw]]["checks"].values())
    layer = run.steps["layer"]
    assert [p["m"] for p in layer["sweep"]] == [1, 2, 4]
    assert [o["m"] for o in layer["launch_overhead"]] == [1, 16]
    assert layer["kernels_eager"]["per_call"] >= 1 and "names" in layer["kernels_compiled"]
    (cold,) = [v for k, v in run.steps["cold-compile"].items() if k.startswith("torch")]
    assert cold["first_call_cold_s"] > 0


def test_budget_skips_steps_and_says_which(tmp_path):
    out = tmp_path / "out"
    run = subprocess.run([sys.executable, str(TOOL), "--smoke", "--budget-s", "5", "--out", str(out)],
                         env=sandbox_env(tmp_path), cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr[-2000:]
    index = json.loads((out / "run.json").read_text(encoding="utf-8"))
    assert not index["steps"] and [s["step"] for s in index["skipped"]] == list(device_run.STEP_NAMES)
    assert all("예산" in s["reason"] for s in index["skipped"])


def test_a_step_cut_off_by_its_timeout_keeps_what_it_finished(tmp_path):
    """The torch grid writes its environment before measuring; killed after 10 s, that much survives."""
    out = tmp_path / "out"
    run = subprocess.run([sys.executable, str(TOOL), "--steps", "torch-grid", "--step-timeout-s", "10",
                          "--out", str(out)], env=sandbox_env(tmp_path), cwd=tmp_path, capture_output=True,
                         text=True, timeout=120)
    assert run.returncode == 0, run.stderr[-2000:]
    (step,) = json.loads((out / "run.json").read_text(encoding="utf-8"))["steps"]
    assert step["status"] == "timeout" and step["complete"] is False and step["run_s"] < 30
    kept = json.loads((out / "torch-grid.json").read_text(encoding="utf-8"))
    assert kept["environment"]["evidence"] == evidence.CPU_CHECKED


def test_unknown_step_is_refused_with_the_known_ones(tmp_path):
    run = subprocess.run([sys.executable, str(TOOL), "--steps", "gemm,bogus", "--out", str(tmp_path / "o")],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode != 0 and "bogus" in run.stderr and "torch-grid" in run.stderr


def test_load_refuses_a_directory_without_an_index(tmp_path):
    with pytest.raises(FileNotFoundError, match="run.json"):
        device_run.load(tmp_path)
