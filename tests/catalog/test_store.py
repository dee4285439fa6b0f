"""xpucalc.catalog.store: the cached reader of the data files and the one catalog accessor, Catalog."""
import csv
import json
import pathlib
import re

import pytest

import xpucalc as xc
from xpucalc.catalog import store
from xpucalc.catalog.figure import Source
from xpucalc.catalog.store import Catalog

from _catalog_helpers import use_data

DATA = pathlib.Path(xc.__file__).parent / "catalog" / "data"
FAKE = {
    "sources": {"s1": {"title": "One", "url": "https://one", "checked": "2026-01-01"},
                "s2": {"title": "Two", "url": None, "checked": "2026-01-02", "cross_check": "Three"}},
    "by_key": {"b": {"n": 1}, "a": {"n": 2}},                       # a mapping: file order, not sorted
    "listed": [{"key": "z", "n": 3}, {"key": "y", "n": 4}],
    "numbered": [{"gen": 5, "n": 5}, {"gen": 3, "n": 6}],
}


def test_load_json_and_read_text_read_the_data_folder():
    assert store.load_json("devices.json") == json.loads((DATA / "devices.json").read_text(encoding="utf-8"))
    assert store.load_json("devices.json") is store.load_json("devices.json")       # cached: read once
    assert store.read_text("SOURCES.md") == (DATA / "SOURCES.md").read_text(encoding="utf-8")


def test_entries_of_a_mapping_a_list_and_a_numbered_list(monkeypatch):
    use_data(monkeypatch, "fake.json", FAKE)
    m, lst, num = (Catalog("fake.json", "by_key", "thing"), Catalog("fake.json", "listed", "row"),
                   Catalog("fake.json", "numbered", "generation", key_field="gen"))
    assert m.data() is FAKE
    assert (m.keys(), lst.keys(), num.keys()) == (["b", "a"], ["z", "y"], [5, 3])
    assert m.entries() == [{"n": 1}, {"n": 2}] and lst.entries() == FAKE["listed"]
    assert m.entry("a") == {"n": 2} and lst.entry("y") == {"key": "y", "n": 4} and num.entry(3)["n"] == 6
    with pytest.raises(KeyError, match=re.escape("unknown thing key 'c'; known keys: b, a")):
        m.entry("c")
    with pytest.raises(KeyError, match=re.escape("unknown generation key 7; known keys: 5, 3")):
        num.entry(7)


def test_sources_are_typed(monkeypatch):
    use_data(monkeypatch, "fake.json", FAKE)
    c = Catalog("fake.json", "listed", "row")
    assert c.source("s2") == Source("s2", "Two", None, "2026-01-02", "Three")
    assert c.sources() == {"s1": Source("s1", "One", "https://one", "2026-01-01"), "s2": c.source("s2")}
    assert list(c.sources()) == ["s1", "s2"]
    with pytest.raises(KeyError, match=re.escape("unknown source id 's3' in fake.json; known: s1, s2")):
        c.source("s3")
    use_data(monkeypatch, "bare.json", {"rows": []})                # a file without sources
    assert Catalog("bare.json", "rows", "row").sources() == {} and Catalog("bare.json", "rows", "row").keys() == []
    with pytest.raises(KeyError, match=re.escape("unknown source id 'x' in bare.json; known: ")):
        Catalog("bare.json", "rows", "row").source("x")


def test_reference_runs_csv():
    rows = list(csv.DictReader((DATA / "reference_runs.csv").open(encoding="utf-8")))
    assert len(rows) == 16
    a100 = [r for r in rows if r["device_key"] == "a100-sxm4-40gb"]
    assert len(a100) == 8
    r = next(r for r in a100 if r["path"] == "eager" and r["precision"] == "bf16" and r["m"] == "128")
    assert float(r["device_ms"]) == 0.0625 and float(r["with_transfer_ms"]) == 0.2410
