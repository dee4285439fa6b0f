"""xpucalc.catalog.interconnect: PCIe bandwidths worked out by hand from GT/s and the line encoding, the link
catalog's rows, and the error messages (each starts with the argument's name).

PCIe by hand (GT/s x 1e9 x payload/total / 8 bytes/s per lane and direction):
  Gen3:  8e9 x 128/130 / 8 = 984,615,385 B/s   x16 = 15.754 GB/s, both ways 31.508 GB/s
  Gen4: 16e9 x 128/130 / 8 = 1.969 GB/s       x16 = 31.508 GB/s, both ways 63.015 GB/s
  Gen5: 32e9 x 128/130 / 8 = 3.938 GB/s       x16 = 63.015 GB/s, both ways 126.031 GB/s
  Gen6: 64e9 x 242/256 / 8 = 7.5625 GB/s      x16 = 121 GB/s,    both ways 242 GB/s
"""
import json
import pathlib

import pytest

import xpucalc as xc
from xpucalc.catalog import devices, interconnect as ic
from xpucalc.catalog.interconnect import Link, PcieGeneration

from _catalog_helpers import use_data

DATA = json.loads((pathlib.Path(xc.__file__).parent / "catalog" / "data" / "interconnects.json").read_text(encoding="utf-8"))


def test_encoding_efficiency_by_hand():
    assert ic.encoding_efficiency("128b/130b") == pytest.approx(0.984615, rel=1e-6)   # 128 / 130
    assert ic.encoding_efficiency("FLIT 242B/256B") == pytest.approx(0.9453125)       # 242 / 256
    assert ic.encoding_efficiency("8b/10b") == pytest.approx(0.8)
    assert ic.encoding_efficiency("8 b / 10 b") == pytest.approx(0.8)                 # spaces allowed
    assert ic.encoding_efficiency("10b/10b") == 1.0                                   # payload == total allowed
    assert ic.encoding_efficiency("1b/2b") == 0.5                                     # a payload of 1 bit is allowed
    with pytest.raises(ValueError, match=r"^encoding must be a string such as '128b/130b', got 128"):
        ic.encoding_efficiency(128)
    with pytest.raises(ValueError, match=r"^encoding '128/130' is not of the form '<payload>b/<total>b'"):
        ic.encoding_efficiency("128/130")
    with pytest.raises(ValueError, match=r"^encoding '130b/128b': payload must be between 1 and the total"):
        ic.encoding_efficiency("130b/128b")
    with pytest.raises(ValueError, match=r"^encoding '0b/10b': payload must be between 1 and the total"):
        ic.encoding_efficiency("0b/10b")


def test_pcie_rows_as_stored():
    assert ic.pcie_generations() == [3, 4, 5, 6]
    g5 = ic.pcie_row(5)
    assert g5 == PcieGeneration(5, 32, "128b/130b", g5.lane_bytes_per_s_one_way, 4, "pcisig", "2026-11-30", "분석 계산")
    # Gen5: 32 GT/s x 128/130 / 8 = 3.938 GB/s per lane one way (the stored, computed figure)
    assert ic.pcie_row(5).lane_bytes_per_s_one_way == pytest.approx(32e9 * 128 / 130 / 8)
    assert ic.pcie_row(6.0).encoding == "FLIT 242B/256B"                # a whole float names the generation


def test_pcie_lane_and_link_bandwidth_by_hand():
    assert ic.pcie_lane_bandwidth(3) == pytest.approx(984_615_384.6, rel=1e-9)
    assert ic.pcie_lane_bandwidth(6) == pytest.approx(7.5625e9, rel=1e-12)
    assert ic.pcie_bandwidth(4) == pytest.approx(16 * 16e9 * 128 / 130 / 8, rel=1e-12)     # default x16, one way
    assert ic.pcie_bandwidth(5, 4) == pytest.approx(4 * 3.938461538e9, rel=1e-9)
    assert ic.pcie_bandwidth(6, 16, both_ways=True) == pytest.approx(242e9, rel=1e-12)
    assert ic.pcie_bandwidth(3, 1, True) == pytest.approx(2 * 984_615_384.6, rel=1e-9)
    # the rounded figures people quote: 1/2/4/8 GB/s per lane one way
    assert ic.pcie_nominal(5) == 64e9
    assert ic.pcie_nominal(5, 16, both_ways=True) == 128e9
    assert ic.pcie_nominal(3, 4) == 4e9
    assert ic.pcie_nominal(6, 1, True) == 16e9


def test_pcie_errors_name_the_argument():
    with pytest.raises(ValueError, match=r"^lanes must be one of \(1, 2, 4, 8, 16\), got 3"):
        ic.pcie_bandwidth(5, 3)
    with pytest.raises(ValueError, match=r"^lanes must be a whole number"):
        ic.pcie_bandwidth(5, 0)
    with pytest.raises(ValueError, match=r"^both_ways must be True or False, got 1"):
        ic.pcie_bandwidth(5, 16, 1)
    with pytest.raises(ValueError, match=r"^lanes must be a whole number"):
        ic.pcie_nominal(5, 0)
    with pytest.raises(ValueError, match=r"^gen must be a whole number"):
        ic.pcie_row(0)
    with pytest.raises(KeyError, match=r"unknown PCIe generation key 7; known keys: 3, 4, 5, 6"):
        ic.pcie_row(7)
    with pytest.raises(KeyError, match=r"unknown PCIe generation key 2; known keys: 3, 4, 5, 6"):
        ic.pcie_row(2)
    with pytest.raises(KeyError, match=r"unknown source id 'nope' in interconnects.json; known: "):
        ic.source("nope")
    assert ic.source("pcisig").checked == DATA["sources"]["pcisig"]["checked"]


def test_effective_range_and_lanes_by_hand():
    assert ic.effective_range(100e9) == (pytest.approx(70e9), pytest.approx(85e9))      # 70 % .. 85 %
    assert ic.effective_range(64e9, 0.5, 1.0) == (32e9, 64e9)
    assert ic.effective_range(10e9, 0.6, 0.6) == (pytest.approx(6e9), pytest.approx(6e9))  # low == high allowed
    # 70 % and 85 % of Gen5 x16's 63.015 GB/s: 44.11 and 53.56 GB/s
    assert ic.effective_range(ic.pcie_bandwidth(5, 16)) == (pytest.approx(44.11e9, rel=1e-3), pytest.approx(53.56e9, rel=1e-3))
    with pytest.raises(ValueError, match=r"^low \(0\.9\) must not exceed high \(0\.8\)"):
        ic.effective_range(10e9, 0.9, 0.8)
    with pytest.raises(ValueError, match=r"^bandwidth must be > 0"):
        ic.effective_range(0.0)
    with pytest.raises(ValueError, match=r"^low must be a fraction"):
        ic.effective_range(10e9, 0.0, 0.5)
    with pytest.raises(ValueError, match=r"^high must be a fraction"):
        ic.effective_range(10e9, 0.5, 1.5)
    assert ic.lanes_needed([8, 8, 4, 4]) == 24
    assert ic.lanes_needed((16, 1, 2)) == 19
    assert ic.lanes_needed([]) == 0
    with pytest.raises(ValueError, match=r"^widths\[1\] must be one of \(1, 2, 4, 8, 16\), got 12"):
        ic.lanes_needed([8, 12])
    with pytest.raises(ValueError, match=r"^widths\[2\] must be a whole number"):
        ic.lanes_needed([8, 4, 0])


def test_links_one_way_and_errors():
    assert [r.key for r in ic.links()] == [r["key"] for r in DATA["links"]]
    assert ic.link("infiniband-ndr").name == "InfiniBand NDR"
    assert ic.one_way("infiniband-ndr") == 50e9        # 400 Gb/s / 8
    assert ic.one_way("ethernet-100g") == 12.5e9       # 100 Gb/s / 8
    assert isinstance(ic.one_way("nvlink4"), float)
    with pytest.raises(KeyError, match=r"unknown link key 'nvlink9'; known keys: nvlink4, nvlink3, nvlink5, "):
        ic.link("nvlink9")
    with pytest.raises(ValueError, match=r"^link 'nvswitch' has no bandwidth figure \(NVSwitch is a topology, not a rate\)"):
        ic.one_way("nvswitch")
    nvs = ic.link("nvswitch")
    assert (nvs.bandwidth_one_way, nvs.bandwidth_both_ways, nvs.as_published) == (None, None, None)


def test_interconnect_ratios_by_hand():
    pcie5, pcie4 = ic.pcie_bandwidth(5, 16), ic.pcie_bandwidth(4, 16)
    # 450 / 63.015 = 7.14; 900 / 63.015 = 14.28; 450 / 31.508 = 14.28
    assert ic.one_way("nvlink4") / pcie5 == pytest.approx(7.141, abs=1e-3)
    assert ic.one_way("nvlink5") / pcie5 == pytest.approx(14.28, abs=1e-2)
    assert ic.one_way("nvlink4") / pcie4 == pytest.approx(14.28, abs=1e-2)
    # with the rounded 64 GB/s: 450 / 64 = 7.03
    assert ic.one_way("nvlink4") / ic.pcie_nominal(5) == pytest.approx(7.03125)


def test_new_interconnect_rows():
    assert ic.one_way("infiniband-xdr") == 800e9 / 8        # 800 Gb/s per port
    assert ic.link("infiniband-xdr").bandwidth_both_ways == 2 * 100e9
    assert ic.one_way("infiniband-xdr") == 2 * ic.one_way("infiniband-ndr")
    nv3 = ic.link("nvlink3")
    assert nv3.bandwidth_both_ways == devices.extra("a100-80gb", "NVLink bandwidth").value == 600e9
    assert nv3.bandwidth_one_way == 300e9
    for r in ic.links():
        assert r.source in ic.LINKS.sources(), r.key


# --- a small fake catalog: rows without the optional fields ---------------------------------------------------------
FAKE = {
    "sources": {"s": {"title": "Src", "checked": "2026-01-01"}, "t": {"title": "Other", "checked": "2026-01-02"}},
    "pcie": [{"gen": 5, "gt_per_s": 10, "encoding": "8b/10b", "nominal_lane_GBps": 1.25, "source": "s",
              "checked": "2026-01-01", "evidence": "분석 계산"}],
    "links": [{"key": "a", "name": "Link A", "bandwidth_one_way": 1.2346e9, "bandwidth_both_ways": 2.4692e9,
               "source": "t", "checked": "2026-01-02", "evidence": "문서 확인"}],
}


def test_fake_catalog_rows(monkeypatch):
    use_data(monkeypatch, "interconnects.json", FAKE)
    # 10 GT/s x 8/10 / 8 = 1 GB/s per lane; x16 16 GB/s, both ways 32 GB/s; nominal 1.25 GB/s per lane
    assert ic.pcie_generations() == [5]
    assert ic.pcie_row(5).lane_bytes_per_s_one_way is None
    assert ic.pcie_lane_bandwidth(5) == 1e9 and ic.pcie_bandwidth(5, 16, True) == 32e9
    assert ic.pcie_nominal(5, 16) == 20e9
    assert ic.links() == [Link("a", "Link A", 1.2346e9, 2.4692e9, None, None, None, "t", "2026-01-02", "문서 확인")]
    with pytest.raises(KeyError, match=r"unknown source id 'nope' in interconnects.json; known: s, t"):
        ic.source("nope")
