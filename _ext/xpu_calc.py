"""In-page calculators: the tested ``xpucalc`` package run in the reader's browser by Pyodide, offline.

A page writes::

    ```{xpu-calculator} serving
    ```

and gets the calculator's form (``xpucalc.render.calculators.calculator_html``) in a closed box. Opening
the box makes ``_ext/static/xpu-calc.js`` load the Pyodide runtime and a zip of ``xpucalc`` from this
site and call ``xpucalc.render.calculators.run_json``: the page runs the package's own functions.

At the end of an HTML build this extension copies the runtime files of the npm package ``pyodide``
(pinned in ``package.json``, installed by ``npm ci`` into ``node_modules/``) to ``_static/pyodide/``
and zips the working tree's ``xpucalc`` (its ``.py`` files and catalog JSON) to ``_static/xpucalc.zip``,
so a page always runs the code the tests tested. Without ``node_modules/pyodide`` the build warns
(a failure under ``-W``, as in CI) and the calculators' boxes say that the runtime could not be loaded.
"""
from __future__ import annotations

import pathlib
import shutil
import zipfile

from docutils import nodes
from docutils.parsers.rst import Directive
from sphinx.application import Sphinx
from sphinx.util import logging

logger = logging.getLogger(__name__)

#: The files of the npm package that the browser loads (the rest is typings, source maps and demos).
RUNTIME_FILES = ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json")
MISSING = ("Pyodide 런타임이 없습니다(node_modules/pyodide): 저장소 루트에서 `npm ci`를 실행하세요(Node.js와 npm 필요: "
           "apt-get install nodejs npm). 계산기 없이 빌드합니다. / The Pyodide runtime (node_modules/pyodide) is missing: "
           "run `npm ci` at the repository root (needs Node.js and npm: apt-get install nodejs npm); "
           "the in-page calculators will not load.")


def runtime_dir(srcdir: str | pathlib.Path) -> pathlib.Path:
    """Where ``npm ci`` puts the runtime: ``<repository>/node_modules/pyodide``."""
    return pathlib.Path(srcdir) / "node_modules" / "pyodide"


def missing_runtime(srcdir: str | pathlib.Path) -> list[str]:
    """The runtime files not found under ``node_modules/pyodide`` (all of them when npm was never run)."""
    d = runtime_dir(srcdir)
    return [f for f in RUNTIME_FILES if not (d / f).is_file()]


def package_zip(package: pathlib.Path, target: pathlib.Path) -> int:
    """Zip ``package`` (the ``xpucalc`` folder) as Pyodide imports it: ``.py`` files and catalog JSON, no caches.

    Returns the number of files written.
    """
    files = sorted(p for p in package.rglob("*") if p.is_file() and "__pycache__" not in p.parts
                   and (p.suffix == ".py" or (p.suffix == ".json" and p.parent.name == "data")))
    target.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as z:
        for p in files:
            z.write(p, p.relative_to(package.parent).as_posix())
    return len(files)


class CalculatorDirective(Directive):
    """``{xpu-calculator} NAME``: the form of calculator NAME (roofline, serving, memo)."""

    required_arguments = 1
    has_content = False

    def run(self):
        from xpucalc.render import calculators

        name = self.arguments[0]
        if name not in calculators.TITLES:
            raise self.error(f"unknown calculator {name!r}; known: {', '.join(calculators.TITLES)}")
        return [nodes.raw("", calculators.calculator_html(name), format="html")]


def _page_assets(app: Sphinx, pagename: str, templatename: str, context: dict, doctree) -> None:
    if doctree is not None and 'class="xpu-calc"' in context.get("body", ""):
        app.add_js_file("xpu-calc.js", defer="defer")
        app.add_css_file("xpu-calc.css")


def _copy(app: Sphinx, exception: Exception | None) -> None:
    if exception is not None or app.builder.format != "html":
        return
    static = pathlib.Path(app.outdir) / "_static"
    import xpucalc

    package_zip(pathlib.Path(app.srcdir) / "xpucalc" if (pathlib.Path(app.srcdir) / "xpucalc").is_dir()
                else pathlib.Path(xpucalc.__file__).parent, static / "xpucalc.zip")
    if missing_runtime(app.srcdir):
        # Only a site with calculators needs the runtime (a one-week build with --toc may have none).
        if any('class="xpu-calc"' in p.read_text(encoding="utf-8") for p in pathlib.Path(app.outdir).rglob("*.html")
               if "_static" not in p.parts):
            logger.warning(MISSING)
        return
    target = static / "pyodide"
    if target.exists():
        shutil.rmtree(target)
    target.mkdir(parents=True)
    for f in RUNTIME_FILES:
        shutil.copy2(runtime_dir(app.srcdir) / f, target / f)


def setup(app: Sphinx) -> dict:
    app.add_directive("xpu-calculator", CalculatorDirective)
    app.connect("html-page-context", _page_assets)
    app.connect("build-finished", _copy)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
