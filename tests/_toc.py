"""Reading _toc.yml: shared by the chapter-execution and site tests; reading numbers as a page shows them."""
from __future__ import annotations

import os
import pathlib
import re

import yaml

ROOT = pathlib.Path(__file__).resolve().parents[1]
# The built site: $XPU_SITE_DIR (e.g. a `--path-output` build's _build/html), else the repository's _build/html.
SITE = pathlib.Path(os.environ.get("XPU_SITE_DIR") or ROOT / "_build" / "html")
REQUIRE_SITE = os.environ.get("XPU_REQUIRE_SITE") == "1"


def unavailable(reason: str):
    """Skip, or fail under XPU_REQUIRE_SITE=1 (as in .ci/run)."""
    import pytest

    if REQUIRE_SITE:
        pytest.fail(reason)
    pytest.skip(reason)


def require_site() -> None:
    """Skip (fail under XPU_REQUIRE_SITE=1) when the site is not built."""
    if not (SITE / "index.html").is_file():
        unavailable(f"the site is not built at {SITE} (run `jupyter-book build .` first)")


def toc_files() -> list[str]:
    """Every file entry of _toc.yml (root first), without suffix, in reading order."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    files = [toc["root"]]

    def walk(node):
        if isinstance(node, dict):
            if "file" in node:
                files.append(node["file"])
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(toc.get("parts", toc.get("chapters", [])))
    return files


def resolve(entry: str) -> pathlib.Path:
    """The source file of a TOC entry (.md or .ipynb)."""
    for suffix in ("", ".md", ".ipynb"):
        p = ROOT / f"{entry}{suffix}"
        if p.is_file():
            return p
    raise FileNotFoundError(entry)


_EXECUTED: dict[str, object] = {}
_PLANNED: list[str] = []  # pages the selected tests will read (tests/book/conftest.py), executed together


def plan(entries) -> None:
    """Say which pages this session's tests will read, so that the first :func:`executed` runs them all at once."""
    _PLANNED.extend(e for e in entries if e not in _PLANNED)


def _jobs() -> int:
    """Kernels at a time: $XPU_EXECUTE_JOBS, else the CPU count (a page spends much of its time starting up)."""
    return max(1, int(os.environ.get("XPU_EXECUTE_JOBS") or os.cpu_count() or 1))


def _built(entries: list[str]) -> dict[str, object]:
    """The notebooks a book build executed, read back from its jupyter-cache folder ($XPU_BUILD_CACHE), by source.

    For a build of this very tree made just before the tests (.ci/run builds, then runs pytest with it), so that a
    page runs once: the build executes every page in a fresh kernel and fails on any error, and the tests read
    the outputs the site shows. A page absent from the cache, or whose source changed after the build, runs here.
    Without $XPU_BUILD_CACHE (the default) every page is executed by the tests themselves.
    """
    folder = os.environ.get("XPU_BUILD_CACHE")
    if not folder or not pathlib.Path(folder).is_dir():
        return {}
    from datetime import timezone

    from jupyter_cache import get_cache

    cache = get_cache(folder)
    records = {r.uri: r for r in cache.list_cache_records()}
    found = {}
    for entry in entries:
        path = resolve(entry)
        record = records.get(str(path))
        if record and record.created.replace(tzinfo=timezone.utc).timestamp() >= path.stat().st_mtime:
            found[entry] = cache.get_cache_bundle(record.pk).nb
    return found


def _execute(entries: list[str]) -> None:
    """Execute ``entries``, each in its own fresh kernel, up to :func:`_jobs` at a time; store notebook or error.

    Pages a book build just executed are read back instead (:func:`_built`).
    """
    import asyncio

    import jupytext
    import nbformat
    from nbclient import NotebookClient

    async def one(entry: str, gate: asyncio.Semaphore) -> None:
        path = resolve(entry)
        nb = jupytext.read(path) if path.suffix == ".md" else nbformat.read(path, as_version=4)
        async with gate:
            try:
                await NotebookClient(nb, timeout=300, kernel_name="python3",
                                     resources={"metadata": {"path": str(path.parent)}}).async_execute()
                _EXECUTED[entry] = nb
            except Exception as exc:  # a failing page fails every test that reads it, without running again
                _EXECUTED[entry] = exc

    async def all_of_them(todo: list[str]) -> None:
        gate = asyncio.Semaphore(_jobs())
        await asyncio.gather(*(one(e, gate) for e in todo))

    _EXECUTED.update(_built(entries))
    todo = [e for e in entries if e not in _EXECUTED]
    if todo:
        asyncio.run(all_of_them(todo))


def executed(entry: str):
    """The notebook of a TOC entry, executed once per test session in a fresh kernel (cached).

    Shared by the chapter-execution test and the chapter-value test so that each page runs once. The first call
    also executes every page :func:`plan` announced, several kernels at a time.
    Raises ``nbclient.exceptions.CellExecutionError`` with the failing cell on any error.
    """
    if entry not in _EXECUTED:
        _execute([entry] + [e for e in _PLANNED if e != entry and e not in _EXECUTED])
    if isinstance(_EXECUTED[entry], Exception):
        raise _EXECUTED[entry].with_traceback(None)  # a stored error's traceback would grow with every raise
    return _EXECUTED[entry]


def is_executable(entry: str) -> bool:
    """False for a plain Markdown page (no jupytext header): nothing to execute."""
    path = resolve(entry)
    return path.suffix == ".ipynb" or "format_name: myst" in path.read_text(encoding="utf-8")[:400]


def glued(nb) -> dict[str, str]:
    """Every ``glue(name, value)`` of an executed notebook: name -> the value's text/plain repr.

    A string glued with ``glue("x", "10")`` comes back as ``"'10'"``; :func:`glue_text` strips the quotes.
    """
    out: dict[str, str] = {}
    for cell in nb.cells:
        for o in cell.get("outputs", []) if cell.cell_type == "code" else []:
            meta = o.get("metadata", {}).get("scrapbook")
            if meta and "name" in meta:
                data = o.get("data", {})
                out[meta["name"]] = data.get(meta.get("mime_prefix", "") + "text/plain", data.get("text/plain", ""))
    return out


def glue_text(plain: str) -> str:
    """The text a ``{glue:text}`` role shows for a glued value's text/plain repr (quotes of a str removed)."""
    import ast

    try:
        v = ast.literal_eval(plain)
    except (ValueError, SyntaxError):
        return plain
    return v if isinstance(v, str) else plain


_GLUED_TEXTS: dict[str, dict[str, str]] = {}


def glued_texts(page: str) -> dict[str, str]:
    """Every value a chapter glues, as its ``{glue:text}`` role shows it (name -> text); one execution per page."""
    if page not in _GLUED_TEXTS:
        _GLUED_TEXTS[page] = {k: glue_text(v) for k, v in glued(executed(page)).items()}
    return _GLUED_TEXTS[page]


_NUM = re.compile(r"(?<![\w.])[-−]?\d[\d,]*(?:\.\d+)?(?:[eE][-+]?\d+)?")


def numbers_shown(text: str) -> list[tuple[float, float, int]]:
    """Each number in ``text`` as ``(value, half a unit of the last digit shown, end position)``, in order.

    Reads thousands separators (``1,311,744``), a Unicode minus (``−3``) and exponents (``3.71e-07``, whose
    half unit is ``0.005e-07``); a range ``44–54`` gives two numbers. The end position is where a unit would start.
    """
    out = []
    for m in _NUM.finditer(text):
        s = m.group().replace(",", "").replace("−", "-")
        mant = re.split(r"[eE]", s)[0]
        decimals = len(mant.split(".")[1]) if "." in mant else 0
        exp = int(re.split(r"[eE]", s)[1]) if re.search(r"[eE]", s) else 0
        out.append((float(s), 0.5 * 10.0 ** (exp - decimals), m.end()))
    return out


def shows(expected: float, value: float, half: float) -> bool:
    """True when a number shown as ``value`` (to within ``half``, from :func:`numbers_shown`) is ``expected`` rounded.

    ``shows(11.52, 11.5, 0.05)`` is True, ``shows(11.52, 11.6, 0.05)`` False.
    """
    return abs(value - expected) <= half * (1 + 1e-9) + 1e-12 * abs(expected)


def assert_glued(page: str, name: str, expected: object) -> None:
    """Assert that ``page`` glues ``name`` as ``expected`` (worked by hand in the caller's comment):

    - a str: the glued text exactly;
    - a number: the first number the text shows, rounded as shown;
    - a list of numbers: the first numbers shown, in order;
    - a (number, unit) tuple: the first number, followed by that unit.
    """
    shown = glued_texts(page)
    assert name in shown, f"{page} no longer glues {name!r}; glued: {sorted(shown)}"
    text = shown[name]
    if isinstance(expected, str):
        assert text == expected, f"{name} = {text!r}, expected {expected!r}"
        return
    nums = numbers_shown(text)
    assert nums, f"{name} = {text!r} shows no number"
    if isinstance(expected, list):
        assert len(nums) >= len(expected), f"{name} = {text!r}"
        for (value, half, _), e in zip(nums, expected):
            assert shows(e, value, half), f"{name} = {text!r}, expected {expected}"
        return
    unit = None
    if isinstance(expected, tuple):
        expected, unit = expected
    value, half, end = nums[0]
    assert shows(float(expected), value, half), f"{name} = {text!r}, expected {expected} (rounded as shown)"
    if unit is not None:
        assert text[end:].strip().startswith(unit), f"{name} = {text!r}, expected the unit {unit}"


def unshown_verdicts(page: str, expected: dict[str, object], exempt: set[str] = frozenset()) -> list[str]:
    """The glued verdicts (str values of ``expected``) that the page's prose never shows with a ``glue:text`` role:
    a verdict glued but not shown would let the prose keep a typed word beside it. ``exempt``: names a table or a
    caption shows instead of the prose."""
    text = resolve(page).read_text(encoding="utf-8")
    return [name for name, value in expected.items()
            if isinstance(value, str) and name not in exempt and f"{{glue:text}}`{name}`" not in text]
