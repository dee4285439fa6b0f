"""xpucalc.catalog.memory: DRAM bandwidths worked out by hand (MT/s x 1e6 x bus bits / 8), the representative value
and range rules, the rows against the device catalog, and the errors.

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
from xpucalc.catalog import devices, memory
from xpucalc.catalog.memory import Example, MemoryType

from _catalog_helpers import FAKE_MEMORY, use_data

DATA = json.loads((pathlib.Path(xc.__file__).parent / "catalog" / "data" / "memory_types.json").read_text(encoding="utf-8"))


def test_transfer_bandwidth_by_hand():
    assert memory.transfer_bandwidth(8533, 128) == 8533e6 * 128 / 8 == 136.528e9  # LPDDR5X-8533, 128-bit
    assert memory.transfer_bandwidth(6400, 1024) == 819.2e9                       # LPDDR5-6400, 1024-bit
    assert memory.transfer_bandwidth(21000, 384) == 1008e9                        # GDDR6X 21 Gb/s, 384-bit
    assert memory.transfer_bandwidth(28000, 512) == pytest.approx(1.792e12, rel=1e-12)
    assert memory.transfer_bandwidth(3200, 64) == pytest.approx(25.6e9, rel=1e-12)
    assert memory.transfer_bandwidth(1, 8) == pytest.approx(1e6)                 # 1 MT/s on 8 bits = 1 MB/s
    assert memory.transfer_bandwidth(8, 1) == pytest.approx(1e6)                 # 8 MT/s on a 1-bit bus = 1 MB/s
    with pytest.raises(ValueError, match=r"^transfer_rate_mt_s must be > 0"):
        memory.transfer_bandwidth(0, 128)
    for bad in (True, 0, 1.5, 12.5, "128"):
        with pytest.raises(ValueError, match=r"^bus_width_bits must be a positive integer \(bits\), got "):
            memory.transfer_bandwidth(6400, bad)


def test_rows_are_typed_as_stored():
    stored = next(r for r in DATA["rows"] if r["key"] == "hbm3")
    assert memory.row("hbm3") == MemoryType("hbm3", "HBM3", 3.35e12, (3.35e12, 5.3e12), "stored", "3.35 TB/s",
                                            stored["typical_use_ko"], stored["notes_ko"], "hpctech-h100", "2026-12-01",
                                            "이번 조사에서 미확인", (Example("h100-sxm"), Example("mi300x")))
    ddr5 = memory.row("ddr5")
    assert ddr5.stored_bandwidth is None and ddr5.bandwidth_from == "examples"
    assert ddr5.examples[0] == Example(None, "DDR5-5600 dual channel (2 x 64-bit)", 5600, 128, None, "glossary-s1",
                                       "2026-11-30", "분석 계산", ddr5.examples[0].conditions)
    assert [r.key for r in memory.rows()] == memory.keys() == [r["key"] for r in DATA["rows"]]
    for k in ("hbm3e", "hbm3", "hbm2e", "gddr7", "gddr6x", "gddr6", "lpddr5x", "ddr5", "ddr4", "nvme-gen5", "nvme-gen4"):
        assert k in memory.keys(), k                                    # every row of the glossary's table
    for n in ("HBM3e", "HBM3", "HBM2e", "GDDR7", "GDDR6X", "GDDR6", "DDR5", "DDR4"):
        assert any(n in r.name for r in memory.rows()), n


def test_examples_get_a_bandwidth_only_with_rate_and_width():
    ex = memory.examples("gddr6")
    assert [e.device for e in ex] == ["l40s", "rtx-6000-ada", None]   # the consumer card is not in the catalog
    # 18 and 20 Gb/s on 384 bits; RTX 3060 12GB: 15 Gb/s on 192 bits = 360 GB/s
    assert [e.bandwidth for e in ex] == [pytest.approx(864e9), pytest.approx(960e9), pytest.approx(360e9)]
    assert ex[0].transfer_rate_mt_s == 18000                           # the stored fields stay
    assert memory.examples("hbm3") == [Example("h100-sxm"), Example("mi300x")]   # no rate: nothing added
    assert memory.row("gddr6").examples[0].bandwidth is None           # the stored row is not changed
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
    assert memory.bandwidth_range("gddr6") == (pytest.approx(360e9), pytest.approx(960e9))
    assert memory.bandwidth_range("gddr6x") == (1.008e12, 1.008e12)   # no range, one example: (v, v)
    assert memory.bandwidth_range("gddr7") == (pytest.approx(1.792e12), pytest.approx(1.792e12))
    assert memory.bandwidth_range("nvme-gen5") == (14e9, 14e9)
    assert all(type(v) is float for v in memory.bandwidth_range("ddr5") + memory.bandwidth_range("nvme-gen5"))


def test_lpddr_rows_are_separate_and_hold_their_examples():
    assert memory.bandwidth("lpddr5x") == pytest.approx(136.5e9, rel=1e-3)
    lo, hi = memory.bandwidth_range("lpddr5x")
    assert lo <= memory.transfer_bandwidth(8533, 128) <= hi
    assert memory.example_devices("lpddr5x") == ["core-ultra-9-288v"]
    assert memory.bandwidth("lpddr5") == 819.2e9
    assert memory.example_devices("lpddr5") == ["apple-m3-ultra"]


def test_gddr6_representative_is_one_of_its_examples():
    computed = [e.bandwidth for e in memory.examples("gddr6")]
    assert sorted(computed) == [360e9, 864e9, 960e9]  # 15 Gb/s x 192 bits; 18 and 20 Gb/s x 384 bits
    assert memory.bandwidth("gddr6") in computed
    assert memory.bandwidth("gddr6") != 700e9          # the glossary's figure fits neither card
    assert memory.bandwidth_range("gddr6") == (360e9, 960e9)  # the range spans the computed examples


def test_computed_examples_reproduce_the_device_bandwidths():
    checked = 0
    for key in memory.keys():
        lo, hi = memory.bandwidth_range(key)
        assert lo <= memory.bandwidth(key) <= hi, key
        for e in memory.examples(key):
            if e.bandwidth is None or not e.device:
                continue
            dev_bw = devices.figure(e.device, "bandwidth").value
            if dev_bw is None:   # the NPU: no published figure to compare with
                continue
            checked += 1
            assert e.bandwidth == pytest.approx(dev_bw, rel=1e-3), (key, e.device)
    assert checked == 5  # 5090, 4090, L40S, RTX 6000 Ada, M3 Ultra


def test_device_memory_types_match_the_rows_that_list_them():
    for key in memory.keys():
        for dev in memory.example_devices(key):
            row_name = memory.row(key).name.split(" ")[0]
            dev_type = devices.figure(dev, "memory").memory_type.split(" ")[0]
            assert dev_type == row_name, (key, dev)


def test_m3_ultra_is_lpddr5_819_gbs_512_gib_everywhere():
    m = devices.figure("apple-m3-ultra", "memory")
    assert m.memory_type.startswith("LPDDR5 ") and m.value == 512 * 2**30
    assert devices.figure("apple-m3-ultra", "bandwidth").value == 819e9
    assert "apple-m3-ultra" not in memory.example_devices("lpddr5x")


def test_lookups_and_their_errors():
    assert memory.keys()[:2] == ["hbm3e", "hbm3"]
    assert memory.row("ddr5").name == "DDR5 (시스템 메모리)"
    with pytest.raises(KeyError, match=r"unknown memory type key 'hbm9'; known keys: hbm3e, hbm3, hbm2e, "):
        memory.row("hbm9")
    s = memory.source("glossary-s1")
    assert (s.id, s.title, s.url, s.checked) == ("glossary-s1", DATA["sources"]["glossary-s1"]["title"],
                                                 DATA["sources"]["glossary-s1"]["url"], DATA["sources"]["glossary-s1"]["checked"])
    with pytest.raises(KeyError, match=r"unknown source id 'nope' in memory_types.json; known: "):
        memory.source("nope")


FAKE = {**FAKE_MEMORY, "rows": FAKE_MEMORY["rows"] + [
    # the examples rule without a computable example
    {"key": "x", "name": "X", "bandwidth_from": "examples", "examples": [{"device": None}], "source": "s",
     "checked": "2026-01-01", "evidence": "문서 확인"},
]}


@pytest.fixture
def fake(monkeypatch):
    use_data(monkeypatch, "memory_types.json", FAKE)


def test_fake_rows_without_optional_fields(fake):
    m1 = memory.row("m1")
    assert (m1.as_published, m1.typical_use_ko, m1.notes_ko, m1.examples) == (None, None, None, ())
    assert m1.bandwidth_range == (1.2346e9, 2.4692e9)
    assert memory.examples("m1") == [] and memory.example_devices("m1") == []
    assert memory.examples("m2") == [Example(None, transfer_rate_mt_s=6400)]
    assert memory.bandwidth_range("m2") == (5e9, 5e9)
    with pytest.raises(KeyError, match=r"unknown source id 'nope' in memory_types.json; known: s, t"):
        memory.source("nope")


def test_examples_rule_without_a_computable_example_is_an_error(fake):
    with pytest.raises(ValueError, match=r"^memory type 'x' says bandwidth_from='examples' but no example has a rate"):
        memory.bandwidth("x")
    with pytest.raises(ValueError, match=r"^memory type 'x' says bandwidth_from='examples'"):
        memory.bandwidth_range("x")


def test_current_generation_examples():
    # Apple M4 Max: LPDDR5X-8533 on 512 bits = 8533e6 x 64 B = 546.112 GB/s (Apple: "up to 546GB/s")
    m4 = [e for e in memory.examples("lpddr5x") if "M4 Max" in e.label]
    assert len(m4) == 1 and m4[0].bandwidth == pytest.approx(546.112e9)
    assert memory.bandwidth("lpddr5x") == pytest.approx(136.528e9)     # the first example (288V) stays the value
    # HBM3e is the current datacenter generation, HBM3 the previous one
    assert "주력" in memory.row("hbm3e").typical_use_ko and "현행" not in memory.row("hbm3").typical_use_ko
    for e in memory.examples("gddr6") + memory.examples("lpddr5x"):
        assert e.source and e.checked and e.evidence, e.label
