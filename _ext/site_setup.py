"""Site setup that Jupyter Book 1's _config.yml cannot express.

1. Serve MathJax from the built site itself, so math renders with no network at view time.
2. Give the theme a valid default colour mode (Jupyter Book leaves it empty, and the
   theme then logs a console error on every first visit).
3. Show the labs' "Open in Colab" badge from the site's own copy (``_static/colab-badge.svg``):
   the notebooks keep Colab's official badge URL, which works on GitHub and in Colab,
   but the site must not fetch anything from the network.
4. Drop sphinx-thebe's scripts: the course has no live-code buttons, and sphinx-thebe
   adds its settings script twice per page, which is a JavaScript error.
5. Load the reader-facing rules (``xpu_reader``: Korean UI strings, collapsed computations,
   lab answers, figure captions, per-page exercise numbers) and the Korean search
   (``xpu_search``: Pagefind index written by the build), the templates in ``_ext/templates``
   (search page, Korean footer) and ``_ext/static/xpu-site.js`` (sidebar buttons, tap-to-zoom figures, phone
   panels that close on a choice, tooltips that do not stick, search words marked on the page a result opens).

MathJax 3.2.2 comes from the PyPI wheel ``django-static-mathjax`` (pinned in
requirements.txt; it ships the official ``es5`` build as package data and has no
dependencies). At the end of an HTML build its ``es5`` folder is copied to
``_static/mathjax`` and ``mathjax_path`` points there instead of a CDN.
"""
from __future__ import annotations

import pathlib
import shutil

from sphinx.application import Sphinx
from sphinx.config import Config

MATHJAX_ENTRY = "mathjax/tex-mml-chtml.js"
COLAB_BADGE = "https://colab.research.google.com/assets/colab-badge.svg"


def mathjax_es5_dir() -> pathlib.Path:
    """Folder of the MathJax es5 build inside the installed wheel."""
    import mathjax  # the django-static-mathjax wheel's top-level package

    path = pathlib.Path(mathjax.__file__).parent / "static" / "mathjax" / "es5"
    if not (path / "tex-mml-chtml.js").is_file():
        raise RuntimeError(f"MathJax es5 build not found at {path}; reinstall django-static-mathjax")
    return path


TEMPLATES = pathlib.Path(__file__).parent / "templates"
STATIC = pathlib.Path(__file__).parent / "static"


def _configure(app: Sphinx, config: Config) -> None:
    mathjax_es5_dir()  # fail early, with a clear message, if the package is missing
    config.mathjax_path = MATHJAX_ENTRY
    config.html_context.setdefault("default_mode", "light")
    config.templates_path = [str(TEMPLATES), *config.templates_path]
    # Scripts live in _ext/static, not _static: Jupyter Book adds every _static/*.js to every page.
    config.html_static_path = [*config.html_static_path, str(STATIC)]
    config.html_theme_options["footer_content_items"] = ["xpu-footer.html"]
    # One search box: pydata-sphinx-theme 0.17 adds a header bar with its own search field unless this is set,
    # and sphinx-book-theme already puts one in the sidebar (and a search button in the article header on phones).
    config.html_theme_options.setdefault("navbar_persistent", [])


def _drop_thebe(app: Sphinx, pagename: str, templatename: str, context: dict, doctree) -> None:
    scripts = context.get("script_files")
    if scripts is not None:
        scripts[:] = [s for s in scripts if "thebe" not in (str(s) + str(getattr(s, "attributes", {})))]
    css = context.get("css_files")
    if css is not None:
        css[:] = [c for c in css if "thebe" not in str(c)]


def _local_badge(app: Sphinx, doctree, docname: str) -> None:
    from docutils import nodes

    depth = docname.count("/")
    for img in doctree.findall(nodes.image):
        if img.get("uri") == COLAB_BADGE:
            img["uri"] = "../" * depth + "_static/colab-badge.svg"
            img["candidates"] = {"*": img["uri"]}


def _copy(app: Sphinx, exception: Exception | None) -> None:
    if exception is not None or app.builder.format != "html":
        return
    target = pathlib.Path(app.outdir) / "_static" / "mathjax"
    if target.exists():
        shutil.rmtree(target)
    src = mathjax_es5_dir()
    # The page needs only the entry file, the CHTML output with its fonts and the TeX
    # extensions that autoload on demand (about 3 MB instead of the whole 19 MB build).
    target.mkdir(parents=True)
    shutil.copy2(src / "tex-mml-chtml.js", target / "tex-mml-chtml.js")
    shutil.copytree(src / "output" / "chtml", target / "output" / "chtml")
    shutil.copytree(src / "input" / "tex", target / "input" / "tex")


def setup(app: Sphinx) -> dict:
    app.setup_extension("xpu_reader")
    app.setup_extension("xpu_search")
    app.setup_extension("xpu_calc")  # in-page calculators: Pyodide runtime + xpucalc zip (see _ext/xpu_calc.py)
    app.setup_extension("xpu_fresh")  # pages execute again when xpucalc, its data or book/terms.yml change
    app.add_js_file("xpu-site.js", defer="defer")
    app.connect("config-inited", _configure)
    app.connect("html-page-context", _drop_thebe, priority=900)
    app.connect("doctree-resolved", _local_badge)
    app.connect("build-finished", _copy)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
