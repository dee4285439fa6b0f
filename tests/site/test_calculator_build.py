"""How the build ships the in-page calculators (``_ext/xpu_calc.py``): the pinned npm runtime and the package zip.

No built site or browser needed: a tiny Sphinx project checks the directive and what a build without
``node_modules/pyodide`` says; the zip is imported by a fresh CPython with numpy and matplotlib blocked, as
Pyodide imports it.
"""
from __future__ import annotations

import json
import subprocess
import sys
import zipfile

import pytest
from _toc import ROOT

sys.path.insert(0, str(ROOT / "_ext"))
import xpu_calc  # noqa: E402

HANGUL_AND_FIX = ("npm ci", "Pyodide", "런타임")


def test_the_runtime_version_is_pinned_exactly_and_locked():
    pkg = json.loads((ROOT / "package.json").read_text(encoding="utf-8"))
    lock = json.loads((ROOT / "package-lock.json").read_text(encoding="utf-8"))
    pinned = pkg["dependencies"]["pyodide"]
    assert pinned[0].isdigit() and not any(c in pinned for c in "^~*<>| "), f"not an exact version: {pinned}"
    assert lock["packages"]["node_modules/pyodide"]["version"] == pinned
    assert "node_modules/" in (ROOT / ".gitignore").read_text(encoding="utf-8").split()


def test_the_installed_runtime_is_the_pinned_one():
    d = xpu_calc.runtime_dir(ROOT)
    if not d.is_dir():
        pytest.skip("node_modules/pyodide is not installed (npm ci)")
    assert not xpu_calc.missing_runtime(ROOT)
    pinned = json.loads((ROOT / "package.json").read_text(encoding="utf-8"))["dependencies"]["pyodide"]
    assert json.loads((d / "package.json").read_text(encoding="utf-8"))["version"] == pinned


def test_without_npm_every_runtime_file_is_missing_and_the_message_says_what_to_run(tmp_path):
    assert xpu_calc.missing_runtime(tmp_path) == list(xpu_calc.RUNTIME_FILES)
    assert all(w in xpu_calc.MISSING for w in HANGUL_AND_FIX) and "apt-get install nodejs npm" in xpu_calc.MISSING


def test_the_zip_holds_the_package_and_its_catalog_and_runs_without_numpy(tmp_path):
    target = tmp_path / "xpucalc.zip"
    n = xpu_calc.package_zip(ROOT / "xpucalc", target)
    names = zipfile.ZipFile(target).namelist()
    assert len(names) == n and "xpucalc/__init__.py" in names and "xpucalc/catalog/data/models.json" in names
    assert not [x for x in names if "__pycache__" in x or x.endswith((".pyc", ".csv", ".md"))]
    code = f"""
import sys
class NoNumpy:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("numpy", "matplotlib"):
            raise ImportError(name + " is blocked")
sys.meta_path.insert(0, NoNumpy())
sys.path.insert(0, {str(target)!r})
import json
from xpucalc.render import calculators
assert calculators.__file__.startswith({str(target)!r}), calculators.__file__
out = json.loads(calculators.run_json("serving", "{{}}"))
assert out["errors"] == {{}} and out["rows"], out
print("ok")
"""
    r = subprocess.run([sys.executable, "-I", "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr[-2000:]


SPHINX_CONF = """
import sys
sys.path.insert(0, {ext!r})
extensions = ["xpu_calc"]
html_static_path = [{static!r}]
"""


@pytest.mark.parametrize("with_runtime", [False, True])
def test_a_build_writes_the_form_and_the_zip_and_warns_without_the_runtime(tmp_path, with_runtime):
    src = tmp_path / "src"
    src.mkdir()
    (src / "conf.py").write_text(SPHINX_CONF.format(ext=str(ROOT / "_ext"), static=str(ROOT / "_ext" / "static")))
    (src / "index.rst").write_text("Calc\n====\n\n.. xpu-calculator:: roofline\n", encoding="utf-8")
    if with_runtime:
        if xpu_calc.missing_runtime(ROOT):
            pytest.skip("node_modules/pyodide is not installed (npm ci)")
        (src / "node_modules").symlink_to(ROOT / "node_modules")
    out = tmp_path / "html"
    r = subprocess.run([sys.executable, "-m", "sphinx", "-q", "-b", "html", str(src), str(out)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    page = (out / "index.html").read_text(encoding="utf-8")
    assert 'class="xpu-calc" data-calc="roofline"' in page and "xpu-calc.js" in page and "xpu-calc.css" in page
    assert (out / "_static" / "xpucalc.zip").is_file()
    shipped = sorted(p.name for p in (out / "_static" / "pyodide").glob("*")) if with_runtime else []
    if with_runtime:
        assert shipped == sorted(xpu_calc.RUNTIME_FILES) and "npm ci" not in r.stderr
    else:
        assert not (out / "_static" / "pyodide").exists() and "npm ci" in r.stderr and "런타임" in r.stderr
