"""Reading _toc.yml: shared by the chapter-execution and site tests."""
from __future__ import annotations

import pathlib

import yaml

ROOT = pathlib.Path(__file__).resolve().parents[1]


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


def executed(entry: str):
    """The notebook of a TOC entry, executed once per test session in a fresh kernel (cached).

    Shared by the chapter-execution test and the chapter-value test so that each page runs once.
    Raises ``nbclient.exceptions.CellExecutionError`` with the failing cell on any error.
    """
    if entry not in _EXECUTED:
        import jupytext
        import nbformat
        from nbclient import NotebookClient

        path = resolve(entry)
        nb = jupytext.read(path) if path.suffix == ".md" else nbformat.read(path, as_version=4)
        try:
            NotebookClient(nb, timeout=300, kernel_name="python3",
                           resources={"metadata": {"path": str(path.parent)}}).execute()
            _EXECUTED[entry] = nb
        except Exception as exc:  # a failing page fails every test that reads it, without running again
            _EXECUTED[entry] = exc
    if isinstance(_EXECUTED[entry], Exception):
        raise _EXECUTED[entry]
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
