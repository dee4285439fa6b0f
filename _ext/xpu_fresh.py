"""Re-execute every page when what the pages compute with has changed: ``xpucalc`` (code and catalog data) and
``book/terms.yml``.

The book executes pages with myst-nb's cache (``execute_notebooks: cache``), which keys a page on its own code
cells. A page whose source did not change therefore kept its old outputs after an edit to ``xpucalc`` or to the
catalog, and the glossary kept its old entries after an edit to ``terms.yml`` (an incremental ``-W`` build then
failed on a term the stale glossary lacked). This extension keeps a fingerprint of those inputs beside the cache
(``xpu-inputs.sha256``). When it differs from the inputs of this build, it empties the execution cache and has
Sphinx read every page again, so the next build is as a fresh one. A build with no cache yet changes nothing.
"""
from __future__ import annotations

import hashlib
import pathlib

from sphinx.application import Sphinx
from sphinx.util import logging

logger = logging.getLogger(__name__)

#: What the executed pages read besides their own source, relative to the book's root.
INPUTS = ("xpucalc", "book/terms.yml")
#: Files of those folders that count: code and data, not bytecode.
SUFFIXES = (".py", ".json", ".csv", ".yml", ".yaml")
STAMP = "xpu-inputs.sha256"


def inputs_fingerprint(root: str | pathlib.Path, inputs: tuple[str, ...] = INPUTS) -> str:
    """SHA-256 over the relative path and the bytes of every input file under ``root`` (missing inputs skipped)."""
    root = pathlib.Path(root)
    h = hashlib.sha256()
    for name in inputs:
        path = root / name
        files = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else []
        for f in files:
            if f.suffix in SUFFIXES and "__pycache__" not in f.parts:
                h.update(f.relative_to(root).as_posix().encode() + b"\0" + f.read_bytes() + b"\0")
    return h.hexdigest()


def cache_dir(app: Sphinx) -> pathlib.Path:
    """myst-nb's execution cache: ``nb_execution_cache_path``, else ``<outdir>/../.jupyter_cache`` as myst-nb picks."""
    configured = getattr(app.config, "nb_execution_cache_path", "")
    return pathlib.Path(configured) if configured else pathlib.Path(app.outdir).parent / ".jupyter_cache"


def is_stale(cache: pathlib.Path, fingerprint: str) -> bool:
    """True when ``cache`` holds executed pages made from other inputs (or from unknown ones: no stamp)."""
    if not cache.is_dir() or not any(p.name != STAMP for p in cache.iterdir()):
        return False
    stamp = cache / STAMP
    return not stamp.is_file() or stamp.read_text(encoding="utf-8").strip() != fingerprint


def _check(app: Sphinx) -> None:
    cache = cache_dir(app)
    app.xpu_inputs = inputs_fingerprint(app.srcdir)
    app.xpu_stale = is_stale(cache, app.xpu_inputs)
    if app.xpu_stale:
        from jupyter_cache import get_cache

        logger.info("[xpu_fresh] xpucalc, its data or book/terms.yml changed since the last build: "
                    "every page is executed again")
        get_cache(cache).clear_cache()


def _outdated(app: Sphinx, env, added, changed, removed) -> list[str]:
    return sorted(env.found_docs - added - changed - removed) if getattr(app, "xpu_stale", False) else []


def _stamp(app: Sphinx, exception: Exception | None) -> None:
    cache = cache_dir(app)
    if exception is None and cache.is_dir():
        (cache / STAMP).write_text(app.xpu_inputs + "\n", encoding="utf-8")


def setup(app: Sphinx) -> dict:
    app.connect("builder-inited", _check)
    app.connect("env-get-outdated", _outdated)
    app.connect("build-finished", _stamp)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
