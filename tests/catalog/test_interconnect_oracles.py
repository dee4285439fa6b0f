"""Oracles for xpucalc.catalog.interconnect: PCIe bandwidths worked out by hand from GT/s and the line encoding, the
link catalog's rows and order, and the error messages (each starts with the argument's name).

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
from xpucalc.catalog import interconnect as ic

DATA = json.loads((pathlib.Path(xc.__file__).parent / "catalog" / "data" / "interconnects.json").read_text(encoding="utf-8"))


def test_encoding_efficiency_by_hand():
    assert ic.encoding_efficiency("128b/130b") == pytest.approx(0.984615, rel=1e-6)   # 128 / 130
    assert ic.encoding_efficiency("FLIT 242B/256B") == pytest.approx(0.9453125)       # 242 / 256
    assert ic.encoding_efficiency("8b/10b") == pytest.approx(0.8)
    assert ic.encoding_efficiency("8 b / 10 b") == pytest.approx(0.8)                 # spaces allowed
    assert ic.encoding_efficiency("10b/10b") == 1.0                                   # payload == total allowed
    with pytest.raises(ValueError, match=r"^encoding must be a string such as '128b/130b', got 128"):
        ic.encoding_efficiency(128)
    with pytest.raises(ValueError, match=r"^encoding '128/130' is not of the form '<payload>b/<total>b'"):
        ic.encoding_efficiency("128/130")
    with pytest.raises(ValueError, match=r"^encoding '130b/128b': payload must be between 1 and the total"):
        ic.encoding_efficiency("130b/128b")
    with pytest.raises(ValueError, match=r"^encoding '0b/10b': payload must be between 1 and the total"):
        ic.encoding_efficiency("0b/10b")


def test_pcie_lane_and_link_bandwidth_by_hand():
    assert ic.pcie_generations() == [3, 4, 5, 6]
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
    with pytest.raises(KeyError, match=r"PCIe generation 7 is not in the catalog; known: \[3, 4, 5, 6\]"):
        ic.pcie_row(7)
    with pytest.raises(KeyError, match=r"unknown source id 'nope'; known: "):
        ic.source("nope")
    assert ic.source("pcisig")["checked"] == DATA["sources"]["pcisig"]["checked"]


def test_effective_range_and_lanes_by_hand():
    assert ic.effective_range(100e9) == (pytest.approx(70e9), pytest.approx(85e9))      # 70 % .. 85 %
    assert ic.effective_range(64e9, 0.5, 1.0) == (32e9, 64e9)
    assert ic.effective_range(10e9, 0.6, 0.6) == (pytest.approx(6e9), pytest.approx(6e9))  # low == high allowed
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


def test_pcie_table_cells_by_hand():
    t = ic.pcie_table(caption="PCIe")
    assert t.caption == "PCIe"
    assert t.headers == ["세대", "전송률 (GT/s, 레인당)", "인코딩", "레인당 한 방향 (계산)", "x16 한 방향 (계산)",
                         "x16 양방향 합 (계산)", "흔히 쓰는 반올림값 (레인당 / x16 한 방향 / x16 양방향)", "근거"]
    assert t.rows == [
        ["Gen3", "8", "128b/130b", "984.615 MB/s", "15.754 GB/s", "31.508 GB/s", "1 GB/s / 16 GB/s / 32 GB/s", "분석 계산"],
        ["Gen4", "16", "128b/130b", "1.969 GB/s", "31.508 GB/s", "63.015 GB/s", "2 GB/s / 32 GB/s / 64 GB/s", "분석 계산"],
        ["Gen5", "32", "128b/130b", "3.938 GB/s", "63.015 GB/s", "126.031 GB/s", "4 GB/s / 64 GB/s / 128 GB/s",
         "분석 계산"],
        ["Gen6", "64", "FLIT 242B/256B", "7.562 GB/s", "121 GB/s", "242 GB/s", "8 GB/s / 128 GB/s / 256 GB/s",
         "분석 계산"],
    ]


def test_links_one_way_and_errors():
    assert [r["key"] for r in ic.links()] == [r["key"] for r in DATA["links"]]
    assert ic.link("infiniband-ndr")["name"] == "InfiniBand NDR"
    assert ic.one_way("infiniband-ndr") == 50e9        # 400 Gb/s / 8
    assert ic.one_way("ethernet-100g") == 12.5e9       # 100 Gb/s / 8
    assert isinstance(ic.one_way("nvlink4"), float)
    with pytest.raises(KeyError, match=r"unknown link key 'nvlink9'; known: nvlink4, nvlink3, nvlink5, "):
        ic.link("nvlink9")
    with pytest.raises(ValueError, match=r"^link 'nvswitch' has no bandwidth figure \(NVSwitch is a topology, not a rate\)"):
        ic.one_way("nvswitch")


def test_link_table_order_and_cells():
    t = ic.link_table(caption="links")
    assert t.caption == "links"
    assert t.headers == ["연결", "범위", "한 방향", "양방향 합", "원자료·사양 표기", "비고", "근거", "출처 (확인일)"]
    # NVLink 5, 4, NVSwitch, NVL72 first, then the computed PCIe rows (5, 4), then the rest in catalog order
    assert t.column("연결") == ["NVLink 5 (B200)", "NVLink 4 (H100)", "NVSwitch", "NVLink Switch System (GB200 NVL72)",
                              "PCIe Gen5 x16", "PCIe Gen4 x16", "NVLink 3 (A100)", "InfiniBand NDR", "InfiniBand XDR",
                              "Ethernet 100G", "Ethernet 200G", "Ethernet 400G"]
    rows = {r[0]: r for r in t.rows}
    assert rows["NVLink 4 (H100)"][1:5] == ["per GPU", "450 GB/s", "900 GB/s", "900GB/s"]
    assert rows["NVSwitch"][1:5] == ["node (8 GPUs)", "— (연결 구조)", "—", "—"]
    assert rows["Ethernet 100G"][2:4] == ["12.5 GB/s", "25 GB/s"]
    nvlink4 = next(r for r in DATA["links"] if r["key"] == "nvlink4")
    assert rows["NVLink 4 (H100)"][5] == nvlink4["notes_ko"]
    assert rows["NVLink 4 (H100)"][6:] == [nvlink4["evidence"],
                                           f"{DATA['sources'][nvlink4['source']]['title']} ({nvlink4['checked']})"]
    gen5 = next(r for r in DATA["pcie"] if r["gen"] == 5)
    assert rows["PCIe Gen5 x16"] == [
        "PCIe Gen5 x16", "링크당 (CPU↔장치, NVLink 없는 GPU↔GPU)", "63.015 GB/s", "126.031 GB/s",
        "64 GB/s (한 방향, 반올림)", "32 GT/s × 16레인, 128b/130b 인코딩에서 계산", "분석 계산",
        f"{DATA['sources']['pcisig']['title']} ({gen5['checked']})"]
    assert rows["PCIe Gen4 x16"][2:6] == ["31.508 GB/s", "63.015 GB/s", "32 GB/s (한 방향, 반올림)",
                                          "16 GT/s × 16레인, 128b/130b 인코딩에서 계산"]
    # other PCIe generations on request
    assert ic.link_table(include_pcie=(6,)).column("연결")[4] == "PCIe Gen6 x16"
    assert "PCIe Gen5 x16" not in ic.link_table(include_pcie=()).column("연결")


# --- a small fake catalog: rows without the optional fields, odd numbers, keys the table orders missing -------------
FAKE = {
    "sources": {"s": {"title": "Src", "checked": "2026-01-01"}, "t": {"title": "Other"}},
    "pcie": [{"gen": 5, "gt_per_s": 10, "encoding": "8b/10b", "nominal_lane_GBps": 1.25, "source": "s",
              "checked": "2026-01-01", "evidence": "분석 계산"}],
    "links": [{"key": "a", "name": "Link A", "bandwidth_one_way": 1.2346e9, "bandwidth_both_ways": 2.4692e9,
               "source": "t", "checked": "2026-01-02", "evidence": "문서 확인"},
              {"key": "nvlink4", "name": "NV4", "bandwidth_one_way": 4e11, "bandwidth_both_ways": 8e11, "scope": "per GPU",
               "as_published": "800GB/s", "notes_ko": "메모", "source": "s", "checked": "2026-01-03", "evidence": "문서 확인"}],
}


@pytest.fixture
def fake(monkeypatch):
    monkeypatch.setattr(ic, "_data", lambda: FAKE)


def test_fake_catalog_tables(fake):
    # 10 GT/s x 8/10 / 8 = 1 GB/s per lane; x16 16 GB/s, both ways 32 GB/s; nominal 1.25 GB/s per lane
    assert ic.pcie_table().caption == "" and ic.link_table(include_pcie=(5,)).caption == ""
    assert ic.pcie_table().rows == [["Gen5", "10", "8b/10b", "1 GB/s", "16 GB/s", "32 GB/s",
                                     "1 GB/s / 20 GB/s / 40 GB/s", "분석 계산"]]
    t = ic.link_table(include_pcie=(5,))
    # nvlink5, nvswitch and nvl72 are not in this catalog: only nvlink4 comes first
    assert t.rows == [
        ["NV4", "per GPU", "400 GB/s", "800 GB/s", "800GB/s", "메모", "문서 확인", "Src (2026-01-03)"],
        ["PCIe Gen5 x16", "링크당 (CPU↔장치, NVLink 없는 GPU↔GPU)", "16 GB/s", "32 GB/s", "20 GB/s (한 방향, 반올림)",
         "10 GT/s × 16레인, 8b/10b 인코딩에서 계산", "분석 계산", "Src (2026-01-01)"],
        # no scope, notes or as_published; 3 decimals: 1.2346 GB/s -> 1.235
        ["Link A", "—", "1.235 GB/s", "2.469 GB/s", "—", "", "문서 확인", "Other (2026-01-02)"],
    ]
    with pytest.raises(KeyError, match=r"unknown source id 'nope'; known: s, t"):
        ic.source("nope")
    assert ic.pcie_generations() == [5]


def test_smallest_payload():
    assert ic.encoding_efficiency("1b/2b") == 0.5          # a payload of 1 bit is allowed
