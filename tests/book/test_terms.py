"""One word per idea, set by the glossary (book/terms.yml), and Korean wherever a reader reads.

Two checks:

* **Retired variants** (page sources, always run): the prose of every chapter, every lab's Markdown cells and
  the glossary's own definitions must not use a variant that terms.yml retired (``TFLOPS`` for a rate, 밀집 for
  dense, ``decode`` for 디코드, 지붕 for 상한선, 첫 쪽 for 첫 페이지 …). Code, math, roles, link targets, HTML
  and quotations (“…”, "…", ‘…’) are left out: a quotation keeps its own words. A failure names the file, the
  line (a lab: its cell), the variant, the term to write and the sentence.
* **Latin words** (the built site, as the reader sees it; skipped without a build unless XPU_REQUIRE_SITE=1):
  every Latin word in a Korean sentence, table cell or caption outside code, math, links and quotations must
  be allowed: a glossary term, its English term or an alias (terms.yml), a unit, a product / company / library
  name (NAMES below), a widely known abbreviation (COMMON), a one-letter symbol, or a word with a digit
  (H100, BF16, x16). Anything else is an English leftover to translate, or a term the glossary lacks.
"""
from __future__ import annotations

import html
import json
import pathlib
import re

import pytest
from _toc import ROOT, SITE, require_site, toc_files

from xpucalc.render import glossary

TERMS = glossary.load(ROOT / "book" / "terms.yml")

# ------------------------------------------------------------------------------------------- page sources

#: Directives whose body is not prose (code, math, figures' source, raw output).
CODE_DIRECTIVE = re.compile(r"^(code-cell|code-block|code|sourcecode|math|raw|eval-rst|graphviz|mermaid|"
                            r"literalinclude|glue:figure|glue:math|glue|image|figure|toctree|include)\b")
#: Directives whose argument is a title a reader reads (other directives take an identifier: {xpu-calculator} roofline).
PROSE_TITLE = re.compile(r"^(admonition|note|tip|hint|warning|important|caution|attention|danger|error|seealso|topic|"
                         r"sidebar|margin|dropdown|exercise|exercise-start|card|tab-item)$")   # {solution} takes a label
#: An English gloss in parentheses, "(decode)" after 디코드 or "(grouped-query attention)" after GQA, names the
#: original term for the reader: not a use of a retired variant.
PAREN_GLOSS = re.compile(r"\([A-Za-z][A-Za-z0-9 .'’/-]*\)")
QUOTES = re.compile(r"“[^”]{0,400}”|\"[^\"\n]{0,400}\"|‘[^’]{0,400}’|「[^」]{0,400}」|『[^』]{0,400}』")
INLINE_DROP = [
    re.compile(r"<!--.*?-->", re.S),
    re.compile(r"\$\$.*?\$\$|\$[^$\n]+\$|\\\(.*?\\\)", re.S),   # math
    re.compile(r"\{[\w:.-]+\}`[^`]*`"),                            # roles: {glue:text}`x`, {doc}`…`, {term}`…`
    re.compile(r"``.*?``|`[^`\n]*`"),                              # code spans
    re.compile(r"!\[[^\]]*\]\([^)]*\)"),                           # images
    re.compile(r"<https?://[^>]+>|https?://\S+"),                  # bare links
    re.compile(r"<[^>\n]+>"),                                      # HTML tags
]
LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")


def prose_lines(text: str) -> list[tuple[int, str]]:
    """(line number, text) of the prose lines of a MyST page or cell: no front matter, code, directive options."""
    lines = text.split("\n")
    i, out, stack = 0, [], []          # stack of (fence, is_code)
    if lines and lines[0].strip() == "---" and "---" in (s.strip() for s in lines[1:]):
        i = next(k for k in range(1, len(lines)) if lines[k].strip() == "---") + 1
    in_math = False
    while i < len(lines):
        s = lines[i].strip()
        if not (stack and stack[-1][1]) and (in_math or s.startswith("$$")):
            # a $$ block: its first line opens it unless it closes on the same line; a line ending in $$ closes it
            in_math = not s.endswith("$$") if in_math else not (len(s) > 2 and s.endswith("$$"))
            i += 1
            continue
        m = re.match(r"^(`{3,}|~{3,}|:{3,})\s*(\{([^}]+)\})?\s*(.*)$", s)
        if m:
            fence, directive, rest = m.group(1), m.group(2), m.group(4)
            if stack and fence[0] == stack[-1][0][0] and len(fence) >= len(stack[-1][0]) and not directive and not rest:
                stack.pop()
                i += 1
                continue
            if directive or fence[0] != ":":
                code = (not directive) or bool(CODE_DIRECTIVE.match(m.group(3).strip()))
                stack.append((fence, code or bool(stack and stack[-1][1])))
                if directive and not stack[-1][1] and rest and PROSE_TITLE.match(m.group(3).strip()):
                    out.append((i + 1, rest))          # an admonition's or exercise's title is prose
                i += 1
                if directive:                          # its options: a --- block or :key: lines
                    if i < len(lines) and lines[i].strip() == "---":
                        i = next((k for k in range(i + 1, len(lines)) if lines[k].strip() == "---"), len(lines)) + 1
                    while i < len(lines) and re.match(r"^\s*:[\w-]+:", lines[i]):
                        i += 1
                continue
        if not (stack and stack[-1][1]) and not (s.startswith(">") or re.match(r"^\(.+\)=$", s) or s == "+++"):
            out.append((i + 1, lines[i]))
        i += 1
    return out


def clean(text: str, links: bool = True) -> str:
    """A prose line without code, math, roles, HTML, URLs and quotations; link texts kept when ``links``."""
    for rx in INLINE_DROP[:4]:
        text = rx.sub(" ", text)
    text = INLINE_DROP[4].sub(" ", text)
    text = LINK.sub(lambda m: m.group(1) if links else " ", text)
    for rx in INLINE_DROP[5:]:
        text = rx.sub(" ", text)
    return QUOTES.sub(" ", text)


def source_files() -> list[str]:
    """The chapter pages of the table of contents, the labs and the glossary file, as repository paths."""
    files = []
    for entry in toc_files():
        for suffix in (".md", ".ipynb"):
            if (ROOT / f"{entry}{suffix}").is_file():
                files.append(f"{entry}{suffix}")
    return files + ["book/terms.yml"]


def prose_of(path: str) -> list[tuple[str, str]]:
    """(where, prose line) of one source file: a page's lines, a lab's Markdown cells, the glossary definitions."""
    p = ROOT / path
    if path.endswith(".md"):
        return [(f"line {n}", t) for n, t in prose_lines(p.read_text(encoding="utf-8"))]
    if path.endswith(".ipynb"):
        nb = json.loads(p.read_text(encoding="utf-8"))
        return [(f"cell {c} line {n}", t) for c, cell in enumerate(nb["cells"]) if cell["cell_type"] == "markdown"
                for n, t in prose_lines("".join(cell["source"]))]
    return [(f"entry {t.term!r}", t.definition) for t in TERMS]


def _variant_pattern(variant: str) -> re.Pattern:
    body = re.escape(variant)
    if re.match(r"[A-Za-z]", variant):
        return re.compile(rf"(?<![A-Za-z0-9_/.-]){body}(?![A-Za-z0-9_])")
    return re.compile(body)


RETIRED = [(v, t.term, _variant_pattern(v)) for t in TERMS for v in t.retired]


def retired_uses(path: str) -> list[str]:
    found = []
    for where, line in prose_of(path):
        text = PAREN_GLOSS.sub(" ", clean(line))
        for variant, term, rx in RETIRED:
            if rx.search(text):
                found.append(f"{path} {where}: {variant!r} -> write {term!r}: {line.strip()[:160]}")
    return found


#: Labs whose Markdown still uses retired variants: a lab is rewritten whole when it is re-executed, so its owner
#: applies the replacements (issue 22's report lists them, lab by lab). Delete a lab from here once it is clean.
PENDING_LABS: set[str] = set()


@pytest.mark.parametrize("path", source_files())
def test_no_retired_variant(path):
    found = retired_uses(path)
    if path in PENDING_LABS:
        assert found, f"{path} is clean now: delete it from PENDING_LABS"
        pytest.xfail(f"{path}: {len(found)} retired variant(s) wait for the lab's owner")
    assert not found, (f"{len(found)} use(s) of a variant the glossary (book/terms.yml) retired:\n  "
                       + "\n  ".join(found[:40]))


def test_the_extractor_keeps_prose_and_drops_code_math_and_quotations():
    page = "\n".join(["---", "kernelspec: x", "---", "# 제목 decode", "", "```{code-cell} ipython3", "decode = 1",
                      "```", "````{exercise} 문제 decode", ":label: ex-decode", "", "본문의 decode입니다.", "````",
                      "> 인용한 decode", "수식 $decode$와 `decode`, {glue:text}`decode`, “decode”는 빠집니다.",
                      "$$", "\\text{decode}", "$$", "$$x = \\text{decode}$$", "끝"])
    lines = prose_lines(page)
    assert [n for n, _ in lines] == [4, 5, 9, 11, 12, 15, 20]
    texts = [clean(t) for _, t in lines]
    assert [bool(_variant_pattern("decode").search(t)) for t in texts] == [True, False, True, False, True, False, False]
    assert clean("[디코드 (decode)](https://x.org/decode)") == "디코드 (decode)"
    assert clean("[a](b)", links=False).strip() == ""


def test_a_retired_variant_is_found_and_reported(tmp_path, monkeypatch):
    """Break a page on purpose: the check names the file, the line, the variant, the term and the sentence."""
    monkeypatch.setattr(pathlib.Path, "read_text", lambda self, **kw: "# 제목\n\n배치 1의 decode는 TFLOPS가 아니라 TB/s가 정합니다.\n")
    found = retired_uses("book/week05/index.md")
    assert any("line 3: 'decode' -> write '디코드'" in f and "배치 1의 decode" in f for f in found), found
    assert any("'TFLOPS' -> write 'TFLOP/s'" in f for f in found), found
    monkeypatch.setattr(pathlib.Path, "read_text", lambda self, **kw: "`decode`와 $TFLOPS$, “지붕”, 디코드(decode)는 괜찮습니다.\n")
    assert retired_uses("book/week05/index.md") == []


def test_every_retired_variant_is_no_alias_of_another_term():
    """A variant retired for one idea must not be another entry's term (the check would forbid that term)."""
    words = {t.term: t for t in TERMS}
    for variant, term, _ in RETIRED:
        assert variant not in words, f"{variant!r} is retired by {term!r} but is the term of its own entry"


# ------------------------------------------------------------------------------------------- the built site

#: Pages in English by design: the API reference is rendered from the package's (English) docstrings; the build
#: record lists package names and myst-nb's execution states; the reference list gives each source's own title
#: (its notes come from the catalogs' ``sources``, which are English data: translating them is the catalog's task).
ENGLISH_PAGES = {"book/appendix/api", "book/appendix/status", "book/appendix/references"}

#: English still shown to readers that this check knows about and whose text lives outside the pages (catalog data,
#: xpucalc's renderers, stored lab outputs), with where it comes from. Each is a to-do for its owner: translate it
#: there, then delete the line here (a pattern that no page shows any more fails test_pending_is_still_needed).
PENDING: dict[str, str] = {}   # empty: lab 03's memo now shows its argument names as code


def page_patterns(table: dict[str, str]) -> list[tuple[re.Pattern, str]]:
    """(compiled pattern, page prefix) of each key of a PENDING table; the prefix is "" for every page.

    A pattern that starts with ``(?#labs/04)`` applies to the pages whose name starts with ``labs/04`` only
    (a comment in the regex names them).
    """
    return [(re.compile(k), (re.match(r"\(\?#([^)]*)\)", k) or [None, ""])[1]) for k in table]


def strip_pending(text: str, patterns, page: str = "", pending: dict[str, int] | None = None) -> str:
    """``text`` with what each of ``patterns`` (from :func:`page_patterns`) that applies to ``page`` matches
    replaced by a space; with a dict ``pending``, each pattern's number of matches is added to
    ``pending[pattern]`` (test_pending_is_still_needed reads the counts)."""
    for rx, only in patterns:
        if only and not page.startswith(only):
            continue
        if pending is not None:
            pending[rx.pattern] = pending.get(rx.pattern, 0) + len(rx.findall(text))
        text = rx.sub(" ", text)
    return text


_PENDING = page_patterns(PENDING)

UNITS = {
    "s", "ms", "us", "µs", "ns", "h", "min", "B", "KB", "kB", "MB", "GB", "TB", "PB", "KiB", "MiB", "GiB", "TiB",
    "bit", "bits", "Gb", "Mb", "Tb", "Gbps", "GT", "FLOP", "FLOPs", "GFLOP", "TFLOP", "PFLOP", "MFLOP", "EFLOP",
    "OP", "TOPS", "POPS", "ZFLOP", "req", "MT", "GBps", "GiBps", "PetaOps", "Gi", "Mi", "Ki", "Ti", "W", "kW", "MW", "J", "kJ", "MJ", "Wh", "kWh", "Hz", "MHz", "GHz", "x", "pt", "px", "dpi",
}
NAMES = {
    # companies, products, chips and their parts
    "NVIDIA", "Google", "Intel", "Apple", "AMD", "Meta", "Qualcomm", "Microsoft", "Amazon", "AWS", "Kaggle", "Colab",
    "Cloud", "Lunar", "Lake", "Core", "Ultra", "Ryzen", "EPYC", "Xeon", "GeForce", "RTX", "Blackwell", "Hopper",
    "Ampere", "Ada", "Lovelace", "Volta", "Turing", "DGX", "HGX", "SXM", "NVL", "ConnectX", "GPUDirect", "Hexagon",
    "Neural", "Engine", "Silicon", "Max", "Pro", "lite", "Pod", "Gaudi", "Trainium", "Inferentia", "Cerebras",
    "Groq", "Ethernet", "PCI-SIG", "IEEE", "CMX", "TMA", "SMEM", "LPDDR", "DDR", "NVMe", "SSD", "NIC", "PCI",
    "Express", "GB200", "SuperNIC", "NVSwitch", "Processor", "Generation", "Instinct", "Genoa", "Sapphire", "Rapids",
    "UPI", "Infinity", "Fabric", "Interchip",
    # models and their authors
    "Llama", "Mistral", "Mixtral", "Chinchilla", "PaLM", "GPT", "Gemma", "Qwen", "DeepSeek", "Falcon",
    "Kaplan", "Hoffmann", "Chowdhery", "Narayanan", "Korthikanti", "Frantar", "Lin", "Dettmers", "Shoeybi",
    # software
    "PyTorch", "JAX", "TensorFlow", "OpenVINO", "Triton", "CUDA", "cuBLAS", "cuBLASLt", "cuDNN", "ROCm", "Pallas",
    "NumPy", "Python", "Jupyter", "nbval", "vLLM", "TensorRT", "TensorRT-LLM", "NeMo", "Megatron", "Megatron-LM",
    "Megatron-Core", "DeepSpeed", "DeepSpeed-MoE", "MegaBlocks", "GPipe", "FlashAttention", "PagedAttention",
    "SmoothQuant", "bitsandbytes", "Unsloth", "Hugging", "Face", "transformers", "nsys", "nvprof", "nvidia-smi",
    "DataLoader", "WebDataset", "TransformerEngine", "Graphviz", "Pyodide", "Chromium", "Linux", "Markdown",
    "xpucalc", "MLCommons", "Scaling", "Book", "llama.cpp", "Ollama", "SGLang", "TGI", "ONNX", "NIM",
    "Mosaic", "Inductor", "Dynamo", "Lightning", "Nsight", "Systems", "Profiler", "py-spy", "AutoGPTQ", "AutoAWQ",
    "bnb", "TE", "LayerNorm", "Dropout", "PDF", "Groq", "Compute", "Services", "Chimera", "Zero-Bubble", "OCP", "OBS",
    "OBQ", "Metal", "LM", "Studio", "myst-nb", "SCALE-Sim", "torch", "HIP", "MLX", "MPS", "ModelOpt", "NVFP4", "MXFP4",
}
#: Abbreviations a reader of this course knows without a glossary entry.
COMMON = {"CPU", "RAM", "DRAM", "OOM", "ECC", "NUMA", "TCP", "P2P", "API", "AI", "ML", "OS", "PC", "VM", "ID", "IR", "FP", "INT", "OK", "GPUs", "vs",
          "Gen", "e.g", "NaN", "SIMD", "mmap", "URL", "JSON"}
#: Products of matrices written as letters (Y = ReLU(XW + b), s·(MK + KN + N + MN)) and the bandwidth symbol.
SYMBOLS = {"XW", "MK", "KN", "MN", "BW", "QK"}
LATIN = re.compile(r"(?<![A-Za-z0-9_])[A-Za-z][A-Za-z0-9_'’.:-]*[A-Za-z0-9_]|(?<![A-Za-z0-9_])[A-Za-z](?![A-Za-z0-9_])")
#: An identifier (xpucalc.llm.serve, block_until_ready, aten::addmm, devices.json) is code, not a word: this check
#: leaves it alone (it belongs in a code span; whether it belongs in the prose at all is another question).
IDENTIFIER = re.compile(r"[A-Za-z0-9][._:]+[A-Za-z0-9_]|_")
SITE_DROP = re.compile(r"(?is)<(script|style|pre|code|kbd|samp|blockquote|a|cite|math|svg|mjx-container|button|"
                       r"select|textarea)\b.*?</\1>")
SITE_BLOCK = re.compile(r"(?is)<(p|li|td|th|figcaption|caption|h[1-6]|dt|dd)\b[^>]*>(.*?)</\1>")
SITE_MATH = re.compile(r"(?s)\\\(.*?\\\)|\\\[.*?\\\]|\$\$.*?\$\$")


def _allowed_words() -> tuple[set[str], set[str]]:
    """Words allowed in any case (one-word names), and words allowed as written (parts of longer names).

    "decode" allows Decode; "Time To First Token" allows Time and Token but not "to", "per" or "of".
    """
    anycase, exact = {w.casefold() for w in UNITS | NAMES | COMMON}, set()
    for t in TERMS:
        for name in (t.term, t.en, *t.aliases):
            words = re.findall(r"[A-Za-z][A-Za-z0-9'.-]*", name)
            if len(words) == 1:
                anycase.add(words[0].casefold())
            else:
                exact.update(w for w in words if not w.islower())
    return anycase, exact


ALLOWED, ALLOWED_AS_WRITTEN = _allowed_words()


def _ok(word: str) -> bool:
    return (len(word) <= 1 or bool(re.search(r"\d", word)) or word.casefold() in ALLOWED or word in ALLOWED_AS_WRITTEN
            or word in SYMBOLS or bool(IDENTIFIER.search(word)))


#: The original English of a term, in parentheses right after it: 시스톨릭 배열(systolic array), MFU(model FLOPs
#: utilization). The reader is told the original word; it is not a leftover.
GLOSS = re.compile(r"(?<=[가-힣A-Za-z0-9*])\([A-Za-z][A-Za-z0-9 ,.'’/-]*\)")


#: Code-like spans left in the text: file paths (xpucalc/catalog/data/models.json) and key=value settings.
CODE_LIKE = re.compile(r"[\w.-]+(?:/[\w.-]+)+\.\w+|\w+=\S+|\b[A-Za-z]+ #\d+")   # … and "issue #1264"
SINGLE_QUOTED = re.compile(r"(?<![A-Za-z])'[^'\n]{1,200}'(?![A-Za-z])")


def unknown_latin(text: str) -> list[str]:
    """The Latin words of one text block that the glossary, the units and the names do not allow."""
    out = []
    text = SINGLE_QUOTED.sub(" ", CODE_LIKE.sub(" ", GLOSS.sub(" ", text)))
    for w in LATIN.findall(text):
        w = w.strip(".'’-")
        if _ok(w) or ("-" in w and all(_ok(p) for p in w.split("-"))):
            continue
        out.append(w)
    return out


#: Table columns that show a document's own words (a source's title, a label as printed): English by right.
AS_PRINTED = re.compile(r"출처|표기|원문|원자료|문서|제목|영문|영어|source|English|API|함수", re.I)


def _text(fragment: str) -> str:
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"(?s)<[^>]+>", "", fragment))).strip()


def _table_cells(table: str):
    """The cells of one table a reader reads as the course's words: every column but the as-printed ones."""
    head = [_text(h) for h in re.findall(r"(?is)<th\b[^>]*>(.*?)</th>", table)]
    for row in re.findall(r"(?is)<tr\b[^>]*>(.*?)</tr>", table):
        cells = re.findall(r"(?is)<(td|th)\b[^>]*>(.*?)</\1>", row)
        for k, (tag, cell) in enumerate(cells):
            header = head[k] if tag == "td" and k < len(head) else ""
            if not AS_PRINTED.search(header):
                yield _text(cell)


def site_blocks(page_html: str):
    """The text a reader reads on a built page, without code, math, links or quotations: every paragraph, list
    item, caption and heading with Korean in it, and every table cell but those that show a document's words."""
    m = re.search(r"(?is)<main\b.*?</main>", page_html)
    s = SITE_DROP.sub(" ", SITE_MATH.sub(" ", m.group(0) if m else page_html))
    for table in re.findall(r"(?is)<table\b.*?</table>", s):
        for text in _table_cells(table):
            if text:
                yield QUOTES.sub(" ", text)
    s = re.sub(r"(?is)<table\b.*?</table>", " ", s)
    for b in SITE_BLOCK.finditer(s):
        if re.search(r"(?i)<(p|li|td|th)\b", b.group(2)):
            continue                                 # the inner block is visited on its own
        text = _text(b.group(2))
        if re.search(r"[가-힣]", text):
            yield QUOTES.sub(" ", text)


def latin_leftovers(page_html: str, pending=None, page: str = "") -> list[tuple[str, str]]:
    """(word, block) of every Latin word the glossary does not allow; PENDING text is left out (and counted)."""
    out = []
    for text in site_blocks(page_html):
        text = strip_pending(text, _PENDING, page, pending)
        out += [(w, text) for w in unknown_latin(text)]
    return out


SITE_PAGES = [p for p in toc_files() if p not in ENGLISH_PAGES]


@pytest.mark.parametrize("page", [f"{p}.html" for p in SITE_PAGES])
def test_no_english_leftovers(page):
    require_site()
    hits = latin_leftovers((SITE / page).read_text(encoding="utf-8"), page=page)
    assert not hits, (f"{page}: {len(hits)} Latin word(s) outside code that the glossary does not allow "
                      f"(translate them, or add the term to book/terms.yml):\n  "
                      + "\n  ".join(f"{w!r} in: {t[:150]}" for w, t in hits[:30]))


#: Retired variants in text that xpucalc writes (tables, calculators, the memo), with the module to fix.
RETIRED_PENDING = {
    r"피크|(?<![A-Za-z])(?:decode|prefill)(?![A-Za-z])":
        "xpucalc/llm/memo.py, xpucalc/llm/memo_inputs.py, xpucalc/render/calculators.py, xpucalc/render/catalog_tables.py",
    r"\d[\d,.]* TFLOPS\*?": "as-published peak conditions: xpucalc/catalog/data/devices.json",
    r"(?#labs/)(?:밀집|최대 성능|roofline|rank 16|TFLOPS)": "labs' stored outputs (re-executed by their owner after xpucalc is fixed)",
    r"(?#labs/04)지붕": "lab 04's text and stored outputs (its owner applies issue 22's replacements and re-executes it)",
    r"\d+ TOPs \(이전 판 인쇄값\)": "not a use: the figure as an earlier revision printed it (errata)",
}
_RETIRED_PENDING = page_patterns(RETIRED_PENDING)


def site_retired_uses(page_html: str, pending=None, page: str = "") -> list[str]:
    """Retired variants in the text a built page shows (tables and captions that code wrote included)."""
    found = []
    for text in site_blocks(page_html):
        text = strip_pending(text, _RETIRED_PENDING, page, pending)
        text = CODE_LIKE.sub(" ", PAREN_GLOSS.sub(" ", text))
        found += [f"{variant!r} -> write {term!r}: {text[:150]}" for variant, term, rx in RETIRED if rx.search(text)]
    return found


@pytest.mark.parametrize("page", [f"{p}.html" for p in SITE_PAGES])
def test_no_retired_variant_on_site(page):
    """What code writes into a page (a table header, a caption) follows the glossary too."""
    require_site()
    found = site_retired_uses((SITE / page).read_text(encoding="utf-8"), page=page)
    assert not found, f"{page}: {len(found)} retired variant(s) in the built page:\n  " + "\n  ".join(found[:30])


def test_pending_is_still_needed():
    """Every PENDING pattern still matches somewhere: once its owner translated it, delete its line."""
    require_site()
    seen: dict[str, int] = {}
    for p in SITE_PAGES:
        latin_leftovers((SITE / f"{p}.html").read_text(encoding="utf-8"), seen, page=p)
        site_retired_uses((SITE / f"{p}.html").read_text(encoding="utf-8"), seen, page=p)
    gone = [f"{k!r} ({v})" for k, v in {**PENDING, **RETIRED_PENDING}.items() if not seen.get(k)]
    assert not gone, "translated, so delete from PENDING: " + "; ".join(gone)


def test_the_latin_check_allows_terms_units_names_and_catches_english():
    assert unknown_latin("H100 SXM의 BF16 dense 최대 처리율은 TFLOP/s로, KV 캐시는 GiB로 적습니다.") == []
    assert unknown_latin("NVIDIA의 PyTorch에서 all-reduce와 x16 링크, M = 128") == []
    assert unknown_latin("per GPU, within a 72-GPU NVLink domain") == ["per", "within", "domain"]
    assert unknown_latin("**벽면 전력**(wall power)과 가드(guard), MFU(model FLOPs utilization)") == []
    assert unknown_latin("벽면 전력 (wall power)") == ["wall", "power"]          # a gloss sits right after its term
    page = ("<main><p>표의 범위는 per chip입니다. <code>per_gpu</code> <a href='x'>NVIDIA spec sheet</a></p>"
            "<p>“quoted words” 따옴표</p><table><tr><th>연결</th><th>범위</th><th>출처 (확인일)</th></tr>"
            "<tr><td>NVLink 5</td><td>per chip, within a 72-GPU NVLink domain</td><td>NVIDIA key specifications</td>"
            "</tr></table></main>")
    assert [w for w, _ in latin_leftovers(page)] == ["per", "chip", "within", "domain", "per", "chip"]


def test_pending_text_is_left_out_on_its_pages_and_counted():
    patterns = page_patterns({r"(?#labs/04)지붕": "lab 04", r"\d+ TOPs": "everywhere"})
    assert patterns[0][1] == "labs/04" and patterns[1][1] == ""
    seen: dict[str, int] = {}
    text = "지붕은 40 TOPs, 지붕 아래"
    assert strip_pending(text, patterns, "labs/04_my_device.html", seen) == " 은  ,   아래"
    assert seen == {r"(?#labs/04)지붕": 2, r"\d+ TOPs": 1}
    assert strip_pending(text, patterns, "book/week05/index.html", seen) == "지붕은  , 지붕 아래"  # not lab 04
    assert seen[r"(?#labs/04)지붕"] == 2 and seen[r"\d+ TOPs"] == 2
    assert strip_pending(text, patterns, "labs/04_my_device.html") == " 은  ,   아래"
    assert seen[r"(?#labs/04)지붕"] == 2                                      # no dict given: nothing counted
