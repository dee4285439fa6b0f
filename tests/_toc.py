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
