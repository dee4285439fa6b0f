"""The labs' install cell works in Colab's situation: it installs xpucalc without touching torch/jax, or stops in Korean.

(The badge, the install cell's place in every lab and the hidden answers are conventions: test_conventions.py.)
The install cell is run for real in a fresh virtual environment that sees this
machine's torch and jax (as Colab's runtime has its own) but not xpucalc, with
XPUCALC_SOURCE pointing at a copy of this checkout (the repository root found
from this file) instead of the GitHub URL, or at a wheel of it with no package
index reachable (the offline case: xpucalc installs, the font does not, the cell
goes on). Every child process and kernel gets a clean environment (no PYTHONPATH,
a working directory outside the checkout), so the results do not depend on how
pytest was started.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
LABS = sorted((REPO / "labs").glob("*.ipynb"))
HIDDEN = ("xpucalc", "__editable__", "koreanize")  # entries of the dev venv the fresh one must not see


def _repository_url() -> tuple[str, str]:
    """(url, branch) from _config.yml's ``repository:`` block (read without a YAML dependency)."""
    cfg = REPO / "_config.yml"
    assert cfg.exists(), "_config.yml is missing: the repository URL is defined there (repository.url)"
    try:
        import yaml
    except ImportError:  # pragma: no cover - PyYAML comes with jupyter-book
        yaml = None
    if yaml is not None:
        repo = (yaml.safe_load(cfg.read_text(encoding="utf-8")) or {}).get("repository") or {}
        url, branch = repo.get("url"), repo.get("branch", "main")
    else:  # pragma: no cover
        block = re.search(r"^repository:\n((?:[ \t]+.*\n?)+)", cfg.read_text(encoding="utf-8"), re.M)
        fields = dict(re.findall(r"^\s+(\w+):\s*\"?([^\"\n#]+?)\"?\s*$", block.group(1), re.M)) if block else {}
        url, branch = fields.get("url"), fields.get("branch", "main")
    assert url, "_config.yml has no repository.url"
    return url.rstrip("/"), branch or "main"


def _cells(nb_path: Path) -> list[dict]:
    return json.loads(nb_path.read_text(encoding="utf-8"))["cells"]


def test_there_are_labs_with_hidden_answers():
    """The first three labs exist, each with at least three answers (their form: test_conventions.py)."""
    first = ("00_analytic_check.ipynb", "01_pytorch_lab.ipynb", "02_jax_lab.ipynb")
    assert set(first) <= {p.name for p in LABS}
    for name in first:
        hidden = [c for c in _cells(REPO / "labs" / name) if "hide-cell" in c.get("metadata", {}).get("tags", [])]
        assert len(hidden) >= 3, f"{name}: expected hidden answers"


def _lab_cells():
    import importlib.util

    spec = importlib.util.spec_from_file_location("_lab_cells", REPO / "tools" / "lab_cells.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


INSTALL_CELL = _lab_cells().INSTALL_CELL


def test_install_cell_text():
    src = INSTALL_CELL
    assert "import xpucalc" in src and "XPUCALC_SOURCE" in src and "--no-deps" in src
    url, _ = _repository_url()
    assert f'"git+{url}"' in src
    for pkg in ("torch", "jax", "jaxlib"):  # never named as something to install
        assert not re.search(rf"['\"]{pkg}(\[|['\"=<>])", src)
    assert "timeout=120" in src and "timeout=600" not in src
    # the font package is installed by a pip call of its own, never together with xpucalc's source
    calls = re.findall(r"_pip_install\(([^)]*)\)", src)
    assert any("_source" in c for c in calls) and any("koreanize-matplotlib" in c for c in calls), calls
    assert not any("_source" in c and "koreanize" in c for c in calls), calls


def _fresh_env(tmp_path: Path) -> Path:
    """A venv whose site-packages links every package of this interpreter except xpucalc and its font package.

    Returns the venv's python. It has torch, jax and pip (linked), but ``import xpucalc`` fails.
    """
    base = getattr(sys, "_base_executable", sys.executable)
    venv = tmp_path / "venv"
    subprocess.run([base, "-m", "venv", "--without-pip", str(venv)], check=True)
    py = venv / "bin" / "python"
    site = Path(subprocess.run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               check=True, capture_output=True, text=True).stdout.strip())
    farm = tmp_path / "runtime-packages"  # stands in for Colab's preinstalled packages
    farm.mkdir()
    for entry in Path(sysconfig.get_paths()["purelib"]).iterdir():
        if entry.suffix == ".pth" or any(entry.name.lower().startswith(h) for h in HIDDEN):
            continue
        (farm / entry.name).symlink_to(entry)
    (site / "runtime_packages.pth").write_text(str(farm) + "\n", encoding="utf-8")
    return py


def _probe(py: Path, cwd: Path) -> dict:
    """Where torch, jax and jaxlib load from and their versions, and where xpucalc would load from (None: nowhere).

    Found without importing them (importing torch and jax takes seconds): the spec's file and the installed
    distribution's version are what an install could change.
    """
    code = ("import json, importlib.util as u, importlib.metadata as m\n"
            "x = u.find_spec('xpucalc')\n"
            "print(json.dumps({'torch': m.version('torch'), 'torch_file': u.find_spec('torch').origin,"
            " 'jax': m.version('jax'), 'jaxlib': m.version('jaxlib'), 'xpucalc': x.origin if x else None}))")
    out = subprocess.run([str(py), "-c", code], cwd=cwd, check=True, capture_output=True, text=True,
                         env=_clean_env())
    return json.loads(out.stdout.strip().splitlines()[-1])


def _clean_env(**extra: str) -> dict:
    """This process's environment without what would let a child see the checkout or the dev venv."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME", "PYTHONSTARTUP", "PYTHONSAFEPATH")}
    env.update(extra)
    return env


def _offline_env(tmp_path: Path, **extra: str) -> dict:
    """A clean environment whose pip reaches no package index: an empty index, no find-links, no config file."""
    empty = tmp_path / "empty-index"
    empty.mkdir(exist_ok=True)
    env = {k: v for k, v in _clean_env().items() if not k.startswith("PIP_")}
    env.update(PIP_CONFIG_FILE=os.devnull, PIP_INDEX_URL=empty.as_uri(), PIP_FIND_LINKS=str(empty),
               PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_RETRIES="0", PIP_DEFAULT_TIMEOUT="5")
    env.update(extra)
    return env


def test_install_cell_in_fresh_env(tmp_path):
    """Run the labs' install cell where torch and jax exist but xpucalc does not; then once more (no-op)."""
    t0 = time.perf_counter()
    py = _fresh_env(tmp_path)
    work = tmp_path / "work"  # not the repo: the checkout must not be importable from the cwd
    work.mkdir()
    before = _probe(py, work)
    assert before["xpucalc"] is None, "the fresh environment already sees xpucalc"

    # The repository as the cell would fetch it: a copy of this checkout without its build outputs, so that
    # pip's in-tree build writes its build/ folder there and not into the working tree.
    source = tmp_path / "xpu-course"
    shutil.copytree(REPO, source, symlinks=True, ignore=shutil.ignore_patterns(
        ".git", ".venv", "venv", "_build", "build", "*.egg-info", "__pycache__", ".jupyter_cache", ".pytest_cache",
        ".hypothesis", ".ipynb_checkpoints"))
    cell = work / "cell.py"
    cell.write_text(INSTALL_CELL, encoding="utf-8")
    run = subprocess.run([str(py), str(cell)], cwd=work, capture_output=True, text=True, timeout=240,
                         env=_clean_env(XPUCALC_SOURCE=str(source), PIP_DISABLE_PIP_VERSION_CHECK="1"))
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert "xpucalc" in run.stdout

    after = _probe(py, work)
    assert after["xpucalc"] and str(tmp_path / "venv") in after["xpucalc"], after
    assert (after["torch"], after["jax"], after["jaxlib"]) == (before["torch"], before["jax"], before["jaxlib"])
    assert after["torch_file"] == before["torch_file"]  # the runtime's torch, not a new copy
    site = Path(after["xpucalc"]).parents[1]
    installed = {p.name.split("-")[0].lower() for p in site.iterdir()}
    assert not installed & {"torch", "jax", "jaxlib", "numpy", "matplotlib"}, installed
    assert {"xpucalc", "koreanize_matplotlib"} <= installed
    subprocess.run([str(py), "-c", "import xpucalc.bench, xpucalc.bench.reference as r; assert len(r.load()) == 16"],
                   cwd=work, check=True, env=_clean_env())

    # second run: xpucalc imports, so nothing is installed (a bogus source would fail if pip ran)
    again = subprocess.run([str(py), str(cell)], cwd=work, capture_output=True, text=True, timeout=60,
                           env=_clean_env(XPUCALC_SOURCE=str(tmp_path / "does-not-exist")))
    assert again.returncode == 0, again.stderr[-2000:]
    elapsed = time.perf_counter() - t0
    assert elapsed < 180, f"install-cell test took {elapsed:.0f} s"


FAILED = "xpucalc를 설치하지 못했습니다"


def test_install_cell_unreachable_source_as_a_script(tmp_path):
    """Unreachable source, run as a plain script: Korean explanation with what to do, exit 1, no traceback."""
    py = _fresh_env(tmp_path)
    cell = tmp_path / "cell.py"
    cell.write_text(INSTALL_CELL, encoding="utf-8")
    nowhere = tmp_path / "no-such-checkout"
    run = subprocess.run([str(py), str(cell)], cwd=tmp_path, capture_output=True, text=True, timeout=120,
                         env=_clean_env(XPUCALC_SOURCE=str(nowhere), PIP_DISABLE_PIP_VERSION_CHECK="1",
                                        FORCE_COLOR="1"))  # pip colours its errors: the cell must not show the codes
    assert run.returncode == 1, run.stdout + run.stderr
    assert FAILED in run.stdout and str(nowhere) in run.stdout
    assert "XPUCALC_SOURCE" in run.stdout and ".whl" in run.stdout and "여기서 멈춥니다" in run.stdout
    assert "Traceback" not in run.stderr and "준비 완료" not in run.stdout
    # the cause, as pip words it for a path that is not there, and no ANSI colour codes
    assert re.search(r"^    .*does not exist", run.stdout, re.M), run.stdout
    assert "\x1b[" not in run.stdout


def _cause_lines(stdout: str) -> list[str]:
    """The indented lines the cell prints under its "pip가 알려 준 원인:" line."""
    after = stdout.split("pip가 알려 준 원인:", 1)[1].splitlines()[1:]
    return [ln.strip() for ln in after[:next((i for i, ln in enumerate(after) if not ln.startswith("    ")),
                                             len(after))]]


def test_install_cell_unreachable_git_source_shows_gits_cause(tmp_path):
    """A git source that cannot be cloned: the cell shows git's own `fatal:` line, not pip's generic lines
    ("exit code: 128", "note: This error originates from a subprocess")."""
    py = _fresh_env(tmp_path)
    cell = tmp_path / "cell.py"
    cell.write_text(INSTALL_CELL, encoding="utf-8")
    source = "git+" + (tmp_path / "no-such-repo").as_uri()   # git fails the same way offline as online
    run = subprocess.run([str(py), str(cell)], cwd=tmp_path, capture_output=True, text=True, timeout=120,
                         env=_offline_env(tmp_path, XPUCALC_SOURCE=source, FORCE_COLOR="1"))
    assert run.returncode == 1, run.stdout + run.stderr
    cause = _cause_lines(run.stdout)
    assert cause and all(ln.startswith("fatal:") for ln in cause), run.stdout
    assert "exit code" not in run.stdout and "originates from a subprocess" not in run.stdout
    assert "\x1b[" not in run.stdout


@pytest.fixture(scope="module")
def xpucalc_wheel(tmp_path_factory) -> Path:
    """A wheel of this checkout, built as the cell's help says (`pip wheel --no-deps -w DIR .`) from a copy."""
    tmp = tmp_path_factory.mktemp("wheel")
    source = tmp / "xpu-course"
    shutil.copytree(REPO, source, symlinks=True, ignore=shutil.ignore_patterns(
        ".git", ".venv", "venv", "_build", "build", "dist", "*.egg-info", "__pycache__", ".jupyter_cache",
        ".pytest_cache", ".hypothesis", ".ipynb_checkpoints", "labs", "book", "_static", "tests"))
    out = tmp / "dist"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
                    "-w", str(out), str(source)], check=True, capture_output=True, text=True, timeout=180,
                   env=_offline_env(tmp))
    (wheel,) = out.glob("xpucalc-*.whl")
    return wheel


def test_install_cell_offline_with_a_local_wheel(tmp_path, xpucalc_wheel):
    """Offline with a local wheel (no package index reachable): xpucalc installs, the optional font does not,
    the cell says so in one Korean line and does not stop; the installed xpucalc then draws without the font."""
    py = _fresh_env(tmp_path)
    work = tmp_path / "work"
    work.mkdir()
    cell = work / "cell.py"
    cell.write_text(INSTALL_CELL, encoding="utf-8")
    run = subprocess.run([str(py), str(cell)], cwd=work, capture_output=True, text=True, timeout=240,
                         env=_offline_env(tmp_path, XPUCALC_SOURCE=str(xpucalc_wheel)))
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert FAILED not in run.stdout and "준비 완료" in run.stdout
    font_lines = [ln for ln in run.stdout.splitlines() if "koreanize-matplotlib" in ln]
    assert len(font_lines) == 1 and "네모" in font_lines[0], run.stdout
    after = _probe(py, work)
    assert after["xpucalc"] and str(tmp_path / "venv") in after["xpucalc"], after
    site = Path(after["xpucalc"]).parents[1]
    installed = {q.name.split("-")[0].lower() for q in site.iterdir()}
    assert "koreanize_matplotlib" not in installed, installed
    draw = ("import matplotlib; matplotlib.use('Agg'); import matplotlib.pyplot as plt\n"
            "from xpucalc.render.plot import setup_korean_font\n"
            "print('family', setup_korean_font()); plt.plot([1, 2]); plt.title('한국어'); plt.gcf().canvas.draw()\n")
    drawn = subprocess.run([str(py), "-c", draw], cwd=work, capture_output=True, text=True, timeout=120,
                           env=_clean_env(MPLCONFIGDIR=str(tmp_path / "mpl")))
    assert drawn.returncode == 0, drawn.stderr[-3000:]
    assert "family" in drawn.stdout


def test_install_cell_unreachable_source_stops_the_notebook(tmp_path, monkeypatch):
    """In a Jupyter kernel without xpucalc: the cell prints the Korean help, ends with one short error line
    (no traceback), and a run-all stops there, so the next cell's `import xpucalc` never runs."""
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    py = _fresh_env(tmp_path)
    spec = tmp_path / "jupyter" / "kernels" / "fresh"
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [str(py), "-m", "ipykernel_launcher", "-f", "{connection_file}"], "display_name": "fresh",
        "language": "python",
        "env": {"XPUCALC_SOURCE": str(tmp_path / "no-such-checkout"), "PIP_DISABLE_PIP_VERSION_CHECK": "1"}}))
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path / "jupyter"))
    # the kernel's own check that it is fresh: no xpucalc on its path (a PYTHONPATH inherited from whoever
    # started pytest, or a working directory inside the checkout, would put it there)
    probe = "import importlib.util, os\nassert importlib.util.find_spec('xpucalc') is None, os.environ.get('PYTHONPATH')"
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(probe),
                                         nbformat.v4.new_code_cell(INSTALL_CELL),
                                         nbformat.v4.new_code_cell("import xpucalc\nprint('second cell ran')")])
    work = tmp_path / "work"   # outside the checkout: the kernel puts its working directory on sys.path
    work.mkdir()
    client = nbclient.NotebookClient(nb, kernel_name="fresh", timeout=180, allow_errors=False,
                                     resources={"metadata": {"path": str(work)}})
    with pytest.raises(nbclient.exceptions.CellExecutionError):
        client.execute(env=_clean_env())   # the kernel's environment: this one without PYTHONPATH and the venv
    probed, first, second = nb.cells
    assert not [o for o in probed.outputs if o.output_type == "error"], probed.outputs
    text = "".join(o.get("text", "") for o in first.outputs if o.output_type == "stream")
    assert FAILED in text and "XPUCALC_SOURCE" in text
    errors = [o for o in first.outputs if o.output_type == "error"]
    assert len(errors) == 1 and errors[0].ename == "XpucalcInstallFailed"
    assert errors[0].traceback == ["실행을 멈췄습니다: xpucalc 설치 실패 (위 안내를 보십시오)"]
    assert second.outputs == [] and second.get("execution_count") is None
