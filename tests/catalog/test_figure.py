"""xpucalc.catalog.figure, and the one schema check of every figure in xpucalc/catalog/data/.

Every JSON object with a ``value`` in a data file is a figure: it must load through
:meth:`Figure.from_dict` (all fields present, none unknown) and then follow the course's rules
(CONTRIBUTING.md, "카탈로그에 장치나 모델 추가하기"). The messages are in Korean for the writers who add figures.
"""
import json
import pathlib
import re

import pytest

import xpucalc as xc
from xpucalc import evidence
from xpucalc.catalog import devices, interconnect, memory
from xpucalc.catalog.figure import REQUIRED, Figure, Source
from xpucalc.catalog.store import Catalog

DATA = pathlib.Path(xc.__file__).parent / "catalog" / "data"
DATE = re.compile(r"^20\d\d-\d\d-\d\d$")
UNITS = {"B", "B/s", "W", "FLOP/s", "OP/s", "count", "s"}
SCOPES = ("chip", "board", "platform", "pod")
SEE = "(CONTRIBUTING.md §6. 카탈로그에 장치나 모델 추가하기 참고)"

#: Sources that are runs of this course (design §3.7): the only sources a `실측` figure may name. A run someone
#: else reported (an nvidia-smi output in a GitHub issue, a benchmark table in a thread) is `문서 확인`, naming
#: that report as its source.
COURSE_RUNS = {"week05-s11.3"}
SOFTWARE = re.compile(r"(PyTorch|JAX|torch|jax|CUDA|libtpu)\S*\s+\d+\.\d+")


def data_files():
    return {f.name: json.loads(f.read_text(encoding="utf-8")) for f in sorted(DATA.glob("*.json"))}


def figures():
    """(file, path in the file, raw figure dict, the file's sources) for every object with a ``value``."""
    for name, doc in data_files().items():
        def walk(node, where):
            if isinstance(node, dict):
                if "value" in node:
                    yield name, where, node, doc.get("sources", {})
                    return
                for k, v in node.items():
                    yield from walk(v, f"{where}.{k}" if where else k)
            elif isinstance(node, list):
                for i, v in enumerate(node):
                    yield from walk(v, f"{where}[{i}]")

        yield from walk(doc, "")


FIGURES = list(figures())


def problems(f: Figure, sources: dict) -> list[str]:
    """What is wrong with one figure, in Korean (an empty list when nothing is)."""
    out = []
    if f.unit not in UNITS:
        out.append(f"unit {f.unit!r}는 {sorted(UNITS)} 가운데 하나여야 합니다")
    for name in ("conditions", "source", "checked", "evidence"):
        if not getattr(f, name):
            out.append(f"{name}가 비어 있습니다")
    if not f.as_published and f.evidence != evidence.COMPUTED and f.value is not None:
        out.append("as_published(출처에 적힌 그대로의 글자)가 비어 있습니다; 분석 계산이거나 값이 없을 때만 null입니다")
    if f.source not in sources:
        out.append(f"source {f.source!r}가 그 파일의 sources에 없습니다. sources에 title·url·checked를 더하고 "
                   "xpucalc/catalog/data/SOURCES.md에도 한 줄 적으세요")
    if not DATE.match(str(f.checked)):
        out.append(f"checked {f.checked!r}는 YYYY-MM-DD 날짜가 아닙니다")
    if f.evidence not in evidence.LABELS:
        out.append(f"evidence {f.evidence!r}는 근거 표시 어휘에 없습니다: {', '.join(evidence.LABELS)} 가운데 하나를 쓰세요")
    if f.evidence == evidence.MEASURED:
        if f.source not in COURSE_RUNS:
            out.append(f"'실측'은 이 과정이 직접 돌린 실행({', '.join(sorted(COURSE_RUNS))})에만 씁니다. 다른 사람이 공개한 "
                       f"출력({f.source!r})은 그 보고를 source로 밝힌 '문서 확인'입니다")
        if not re.search(r"20\d\d-\d\d-\d\d", f.conditions) or not SOFTWARE.search(f.conditions):
            out.append("'실측'의 conditions에는 장치와 함께 소프트웨어 버전(PyTorch 2.11.0 등)과 날짜(YYYY-MM-DD)를 적습니다")
    if f.value is None and f.evidence not in evidence.EMPTY_LABELS:
        out.append(f"값이 비어 있으면 evidence는 {', '.join(evidence.EMPTY_LABELS)} 가운데 하나여야 합니다")
    if f.value is not None and not f.value > 0:
        out.append(f"value {f.value!r}는 0보다 큰 SI 단위 수여야 합니다")
    if f.is_peak:
        if f.precision not in devices.PRECISIONS:
            out.append(f"precision {f.precision!r}는 {', '.join(devices.PRECISIONS)} 가운데 하나여야 합니다")
        if f.sparse not in (True, False, None) or (f.sparse is None and "not stated" not in f.conditions):
            out.append("sparse는 true, false, 또는 null(제조사가 밝히지 않음: conditions에 'not stated'라고 적음)입니다")
        if f.scope not in SCOPES:
            out.append(f"scope {f.scope!r}는 {', '.join(SCOPES)} 가운데 하나여야 합니다")
        if f.unit != ("OP/s" if f.precision.startswith("int") else "FLOP/s"):
            out.append("정수 정밀도의 피크는 OP/s, 나머지는 FLOP/s로 적습니다")
    return out


@pytest.mark.parametrize("name, where, raw, sources", FIGURES, ids=[f"{n}:{w}" for n, w, _, _ in FIGURES])
def test_every_catalog_figure_is_complete(name, where, raw, sources):
    try:
        f = Figure.from_dict(raw)
    except ValueError as exc:
        pytest.fail(f"xpucalc/catalog/data/{name}의 {where}: {exc}. 카탈로그의 수치마다 {', '.join(REQUIRED)}를 모두 "
                    f"적습니다 {SEE}")
    found = [(where, problems(f, sources))]
    if f.runtime_reported is not None:
        found.append((f"{where}.runtime_reported", problems(f.runtime_reported, sources)))
    for at, bad in found:
        assert not bad, f"xpucalc/catalog/data/{name}의 {at}: " + "; ".join(bad) + f" {SEE}"


def test_the_walk_finds_every_figure_the_catalog_hands_out():
    # every figure of devices.json that devices.py reads is one the schema test checks, and no more
    handed_out = sum(len(e.peaks) + len(e.extra) + sum(getattr(e, f) is not None for f in devices.FIELDS)
                     for e in map(devices.entry, devices.keys()))
    walked = [w for n, w, _, _ in FIGURES if n == "devices.json"]
    assert len(walked) == handed_out > 50
    # one figure per measured all-reduce latency (counted in the raw file, not through the accessor)
    raw = json.loads((DATA / "collective_latency.json").read_text(encoding="utf-8"))["allreduce_latency"]
    assert sum(1 for n, *_ in FIGURES if n == "collective_latency.json") == len(raw) >= 1


def test_every_source_has_a_title_and_a_date():
    for name, doc in data_files().items():
        for sid, raw in doc.get("sources", {}).items():
            s = Source.from_dict(sid, raw)
            assert s.title and DATE.match(s.checked), (name, sid)
            assert s.url is None or s.url.startswith("https://"), (name, sid, s.url)


def test_every_catalog_loads_through_its_types():
    assert all(devices.entry(k).peaks for k in devices.keys())
    assert [r.key for r in memory.rows()] == memory.keys()
    assert [r.key for r in interconnect.links()] == Catalog("interconnects.json", "links", "link").keys()
    assert [interconnect.pcie_row(g).gen for g in interconnect.pcie_generations()] == [3, 4, 5, 6]


# --- Figure and Source, on hand-written dicts ------------------------------------------------------------------------
BASE = {"value": 1.5e12, "unit": "B/s", "as_published": "1.5TB/s", "conditions": "c", "source": "s", "checked": "2026-01-02",
        "evidence": "문서 확인"}


def test_from_dict_reads_every_field():
    f = Figure.from_dict(BASE)
    assert f == Figure(1.5e12, "B/s", "1.5TB/s", "c", "s", "2026-01-02", "문서 확인")
    assert (f.label, f.precision, f.sparse, f.accumulate, f.unit_kind, f.scope) == (None,) * 6
    assert (f.binary, f.memory_type, f.conflicts_with, f.runtime_reported, f.is_peak) == (False, None, None, None, False)
    p = Figure.from_dict({**BASE, "unit": "FLOP/s", "precision": "bf16", "sparse": True, "accumulate": "fp32",
                          "unit_kind": "tensor", "scope": "board"})
    assert (p.precision, p.sparse, p.accumulate, p.unit_kind, p.scope, p.is_peak) == ("bf16", True, "fp32", "tensor",
                                                                                        "board", True)
    x = Figure.from_dict({**BASE, "label": "L", "conflicts_with": "bandwidth", "value": None})
    assert (x.label, x.conflicts_with, x.value) == ("L", "bandwidth", None)
    assert Figure.from_dict({**BASE, "value": 7}).value == 7 and type(Figure.from_dict({**BASE, "value": 7}).value) is int


def test_a_capacity_carries_its_runtime_report_in_the_same_unit():
    rt = {"value": 3, "as_reported": "3 B", "conditions": "rc", "source": "r", "checked": "2026-01-03",
          "evidence": "실측"}
    m = Figure.from_dict({**BASE, "unit": "B", "binary": True, "memory_type": "HBM3", "runtime_reported": rt})
    assert m.binary is True and m.memory_type == "HBM3"
    assert m.runtime_reported == Figure(3, "B", "3 B", "rc", "r", "2026-01-03", "실측")


@pytest.mark.parametrize("raw, message", [
    ({k: v for k, v in BASE.items() if k != "checked"},
     "figure 's' lacks checked; every figure carries value, unit, as_published, conditions, source, checked, evidence"),
    ({k: v for k, v in BASE.items() if k not in ("value", "unit")}, "figure 's' lacks value, unit; "),
    ({**BASE, "label": "L", "valeu": 1}, "figure 'L' has unknown fields valeu; known: value, unit, "),
    ({**BASE, "precision": "fp8", "value": "1.5"}, "figure 'fp8': value must be a number in SI units or null, got '1.5'"),
    ({**BASE, "value": True}, "figure 's': value must be a number in SI units or null, got True"),
    ({**BASE, "runtime_reported": {"value": 1}}, "figure 's runtime_reported' lacks as_reported, conditions, "),
    ({"value": 1}, "figure 'figure' lacks unit, as_published, conditions, source, checked, evidence; "),
    ({**BASE, "runtime_reported": {**BASE, "as_reported": "x"}},
     "figure 's runtime_reported' has unknown fields as_published, unit; known: value, as_reported"),
])
def test_from_dict_refuses_a_figure_it_cannot_read(raw, message):
    with pytest.raises(ValueError, match="^" + re.escape(message)):
        Figure.from_dict(raw)


def test_source_from_dict():
    assert Source.from_dict("a", {"title": "T", "url": "https://x", "checked": "2026-01-01"}) == \
        Source("a", "T", "https://x", "2026-01-01", None)
    assert Source.from_dict("b", {"title": "T", "checked": "d", "cross_check": "C"}) == Source("b", "T", None, "d", "C")
