"""Oracles for xpucalc.catalog.memory: DRAM bandwidths worked out by hand (MT/s x 1e6 x bus bits / 8), the
representative value and range rules, the offload bound on fresh numbers, the table's cells, and the errors.

By hand:
  GDDR7  (RTX 5090):  28,000 MT/s x 512 bit / 8 = 1.792 TB/s
  GDDR6X (RTX 4090):  21,000 x 384 / 8 = 1.008 TB/s
  GDDR6  (L40S):      18,000 x 384 / 8 = 864 GB/s; (RTX 6000 Ada) 20,000 x 384 / 8 = 960 GB/s
  LPDDR5 (M3 Ultra):   6,400 x 1024 / 8 = 819.2 GB/s
  LPDDR5X (288V):      8,533 x 128 / 8 = 136.528 GB/s
  DDR5-5600 x 128 bit: 89.6 GB/s;  DDR4-3200 x 128 bit: 51.2 GB/s, x 64 bit: 25.6 GB/s
"""
import json
import pathlib

import pytest

import xpucalc as xc
from xpucalc.catalog import memory

DATA = json.loads((pathlib.Path(xc.__file__).parent / "catalog" / "data" / "memory_types.json").read_text(encoding="utf-8"))


def test_transfer_bandwidth_by_hand():
    assert memory.transfer_bandwidth(8533, 128) == pytest.approx(136.528e9, rel=1e-12)
    assert memory.transfer_bandwidth(28000, 512) == pytest.approx(1.792e12, rel=1e-12)
    assert memory.transfer_bandwidth(3200, 64) == pytest.approx(25.6e9, rel=1e-12)
    assert memory.transfer_bandwidth(1, 8) == pytest.approx(1e6)                 # 1 MT/s on 8 bits = 1 MB/s
    with pytest.raises(ValueError, match=r"^transfer_rate_mt_s must be > 0"):
        memory.transfer_bandwidth(0, 128)
    for bad in (True, 0, 1.5, "128"):
        with pytest.raises(ValueError, match=r"^bus_width_bits must be a positive integer \(bits\), got "):
            memory.transfer_bandwidth(6400, bad)


def test_examples_get_a_bandwidth_only_with_rate_and_width():
    ex = memory.examples("gddr6")
    assert [e["device"] for e in ex] == ["l40s", "rtx-6000-ada"]
    assert [e["bandwidth"] for e in ex] == [pytest.approx(864e9), pytest.approx(960e9)]
    assert ex[0]["transfer_rate_mt_s"] == 18000                       # the stored fields stay
    assert memory.examples("hbm3") == [{"device": "h100-sxm"}, {"device": "mi300x"}]   # no rate: nothing added
    assert memory.examples("nvme-gen5") == []
    assert memory.example_devices("gddr6") == ["l40s", "rtx-6000-ada"]
    assert memory.example_devices("ddr4") == []                       # examples without a catalog device
    assert memory.example_devices("nvme-gen4") == []


def test_representative_bandwidth_and_range():
    # computed from the FIRST example (L40S), not the second
    assert memory.bandwidth("gddr6") == pytest.approx(864e9)
    assert memory.bandwidth("lpddr5") == pytest.approx(819.2e9)
    assert memory.bandwidth("ddr4") == pytest.approx(51.2e9)
    # stored rows
    assert memory.bandwidth("hbm3") == 3.35e12
    assert isinstance(memory.bandwidth("nvme-gen4"), float) and memory.bandwidth("nvme-gen4") == 7e9
    # range: stored when given, else min / max of computed examples, else (v, v)
    assert memory.bandwidth_range("ddr5") == (70e9, 90e9)
    assert memory.bandwidth_range("ddr4") == (25.6e9, 51.2e9)
    assert memory.bandwidth_range("gddr6") == (pytest.approx(864e9), pytest.approx(960e9))
    assert memory.bandwidth_range("gddr7") == (pytest.approx(1.792e12), pytest.approx(1.792e12))
    assert memory.bandwidth_range("nvme-gen5") == (14e9, 14e9)
    assert all(type(v) is float for v in memory.bandwidth_range("ddr5") + memory.bandwidth_range("nvme-gen5"))


def test_examples_rule_without_a_computable_example_is_an_error(monkeypatch):
    fake = {"sources": {}, "rows": [{"key": "x", "bandwidth_from": "examples", "examples": [{"device": None}]}]}
    monkeypatch.setattr(memory, "_data", lambda: fake)
    with pytest.raises(ValueError, match=r"^memory type 'x' says bandwidth_from='examples' but no example has a rate"):
        memory.bandwidth("x")


def test_lookups_and_their_errors():
    assert memory.keys() == [r["key"] for r in DATA["rows"]]
    assert memory.keys()[:2] == ["hbm3e", "hbm3"]
    assert memory.row("ddr5")["name"] == "DDR5 (system RAM)"
    with pytest.raises(KeyError, match=r"unknown memory type key 'hbm9'; known keys: hbm3e, hbm3, hbm2e, "):
        memory.row("hbm9")
    assert memory.source("glossary-s1") == DATA["sources"]["glossary-s1"]
    with pytest.raises(KeyError, match=r"unknown source id 'nope'; known: "):
        memory.source("nope")


def test_slowdown_by_hand():
    assert memory.slowdown(3.35e12, 89.6e9) == pytest.approx(37.388, rel=1e-4)   # 3,350 / 89.6
    with pytest.raises(ValueError, match=r"^fast_bandwidth must be > 0"):
        memory.slowdown(0.0, 1e9)
    with pytest.raises(ValueError, match=r"^slow_bandwidth must be > 0"):
        memory.slowdown(1e9, 0.0)
    # HBM3 (3.35 TB/s) over DDR5's 70-90 GB/s: 3350 / 90 = 37.22 (fastest DDR5) to 3350 / 70 = 47.86
    lo, hi = memory.slowdown_range("hbm3", "ddr5")
    assert lo == pytest.approx(37.2222, rel=1e-5) and hi == pytest.approx(47.8571, rel=1e-5)


def test_offload_bound_by_hand():
    # 16 GB of weights, 4 GB of them over a 32 GB/s link, the rest from 2 TB/s HBM:
    # 12e9 / 2e12 + 4e9 / 32e9 = 0.006 + 0.125 = 0.131 s per token -> 7.634 tokens/s
    assert memory.offload_tokens_per_s_bound(16e9, 4e9, 2e12, 32e9) == pytest.approx(1 / 0.131)
    assert memory.offload_tokens_per_s_bound(16e9, 0.0, 2e12, 32e9) == pytest.approx(125.0)   # 2e12 / 16e9
    assert memory.offload_tokens_per_s_bound(16e9, 16e9, 2e12, 32e9) == pytest.approx(2.0)    # all offloaded
    with pytest.raises(ValueError, match=r"^offloaded_bytes \(17000000000\.0\) cannot exceed model_bytes \(16000000000\.0\)"):
        memory.offload_tokens_per_s_bound(16e9, 17e9, 2e12, 32e9)
    for args, name in (((0.0, 0.0, 1e12, 1e9), "model_bytes must be > 0"),
                       ((1e9, -1.0, 1e12, 1e9), "offloaded_bytes must be >= 0"),
                       ((1e9, 0.0, 0.0, 1e9), "device_bandwidth must be > 0"),
                       ((1e9, 0.0, 1e12, 0.0), "offload_bandwidth must be > 0")):
        with pytest.raises(ValueError, match="^" + name):
            memory.offload_tokens_per_s_bound(*args)


def test_table_cells_by_hand():
    t = memory.table(caption="mem")
    assert t.caption == "mem"
    assert t.headers == ["메모리", "대표 대역폭", "범위", "원자료 표기", "주 용도", "예시 장치 (카탈로그)", "근거", "출처 (확인일)"]
    rows = {r[0]: r for r in t.rows}
    assert list(rows) == [r["name"] for r in DATA["rows"]]
    assert rows["HBM3"][1:4] == ["3.35 TB/s", "3.35 TB/s – 5.3 TB/s", "3.35 TB/s"]
    assert rows["HBM3"][5] == "NVIDIA H100 SXM, AMD Instinct MI300X"
    assert rows["GDDR7"][1:3] == ["1.792 TB/s (계산: 28000 MT/s × 512비트 / 8)", "—"]
    assert rows["GDDR6"][1:3] == ["864 GB/s (계산: 18000 MT/s × 384비트 / 8)", "864 GB/s – 960 GB/s"]
    assert rows["LPDDR5X (on package)"][1] == "136.528 GB/s (계산: 8533 MT/s × 128비트 / 8)"
    assert rows["DDR4 (system RAM)"][1:3] == ["51.2 GB/s (계산: 3200 MT/s × 128비트 / 8)", "25.6 GB/s – 51.2 GB/s"]
    assert rows["DDR5 (system RAM)"][5] == "—"
    lpddr5x = next(r for r in DATA["rows"] if r["key"] == "lpddr5x")
    assert rows["LPDDR5X (on package)"][3] == lpddr5x["as_published"]
    assert rows["LPDDR5X (on package)"][4] == lpddr5x["typical_use_ko"]
    nvme = next(r for r in DATA["rows"] if r["key"] == "nvme-gen4")
    assert rows["NVMe Gen4 SSD"] == ["NVMe Gen4 SSD", "7 GB/s", "—", "7 GB/s", nvme["typical_use_ko"], "—", nvme["evidence"],
                                     f"{DATA['sources'][nvme['source']]['title']} ({nvme['checked']})"]


FAKE = {
    "sources": {"s": {"title": "Src"}, "t": {"title": "Other"}},
    "rows": [
        # no examples list, no as_published, no typical use; stored value and range with 4 significant digits
        {"key": "m1", "name": "Mem 1", "bandwidth": 1.2346e9, "bandwidth_range": [1.2346e9, 2.4692e9],
         "bandwidth_from": "stored", "source": "s", "checked": "2026-01-01", "evidence": "문서 확인"},
        # an example with a rate but no width gets no bandwidth
        {"key": "m2", "name": "Mem 2", "bandwidth": 5e9, "bandwidth_range": None, "bandwidth_from": "stored",
         "examples": [{"transfer_rate_mt_s": 6400}], "source": "t", "checked": "2026-01-02", "evidence": "분석 계산"},
    ],
}


@pytest.fixture
def fake(monkeypatch):
    monkeypatch.setattr(memory, "_data", lambda: FAKE)


def test_fake_rows_without_optional_fields(fake):
    assert memory.examples("m1") == [] and memory.example_devices("m1") == []
    assert memory.examples("m2") == [{"transfer_rate_mt_s": 6400}]
    assert memory.bandwidth_range("m2") == (5e9, 5e9)
    t = memory.table()
    assert t.caption == ""
    assert t.rows == [["Mem 1", "1.235 GB/s", "1.235 GB/s – 2.469 GB/s", "—", "—", "—", "문서 확인", "Src (2026-01-01)"],
                      ["Mem 2", "5 GB/s", "—", "—", "—", "—", "분석 계산", "Other (2026-01-02)"]]
    with pytest.raises(KeyError, match=r"unknown source id 'nope'; known: s, t"):
        memory.source("nope")


def test_one_bit_bus():
    assert memory.transfer_bandwidth(8, 1) == pytest.approx(1e6)    # 8 MT/s on a 1-bit bus = 1 MB/s
