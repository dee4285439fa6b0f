"""xpucalc.render.catalog_tables: figures as text and the catalog's tables, every cell worked out by hand.

The fake catalogs (tests/_catalog_helpers.FAKE_DEVICES and the small ones below) are swapped in for the data
files, so each expected string follows from the fake figures: e.g. 1.2346e15 FLOP/s -> "1.235 PFLOP/s"
(3 decimals), 1.2346 x 2^30 B binary -> "1.235 GiB".
"""
import json
import pathlib

import pytest

import xpucalc as xc
from xpucalc.catalog import devices
from xpucalc.catalog.figure import Figure
from xpucalc.render import catalog_tables as ct

from _catalog_helpers import FAKE_DEVICES, FAKE_MEMORY, GIB, use_data

DATA = pathlib.Path(xc.__file__).parent / "catalog" / "data"
MEM = json.loads((DATA / "memory_types.json").read_text(encoding="utf-8"))
IC = json.loads((DATA / "interconnects.json").read_text(encoding="utf-8"))


def f(value, unit, evidence="문서 확인", as_published=None, binary=False):
    return Figure(value, unit, as_published, "c", "s", "2026-01-01", evidence, binary=binary)


# --- one figure as text -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("fig, shown", [
    (None, "—"),
    (f(None, "B/s", "미공개"), "미공개"),
    (f(1.2346 * GIB, "B", binary=True), "1.235 GiB (문서 확인)"),
    (f(1.2346e9, "B"), "1.235 GB (문서 확인)"),                                    # decimal bytes
    (f(3.1416e12, "B/s", "분석 계산", "3.14TB/s"), "3.142 TB/s (표기: 3.14TB/s; 분석 계산)"),
    (f(1.2346e15, "FLOP/s"), "1.235 PFLOP/s (문서 확인)"),
    (f(1.0e15, "OP/s", as_published="1,000 TOPS"), "1 POPS (표기: 1,000 TOPS; 문서 확인)"),
    (f(450, "W", as_published=""), "450 W (문서 확인)"),
    (f(1500, "W"), "1.5 kW (문서 확인)"),                                          # W gets a prefix
    (f(132, "count"), "132 count (문서 확인)"),
    (f(1.5e9, "Hz"), "1.5e+09 Hz (문서 확인)"),
])
def test_describe_by_hand(fig, shown):
    assert ct.describe(fig) == shown


def test_figure_text_is_the_value_without_provenance():
    assert ct.figure_text(None) == "—"
    assert ct.figure_text(f(None, "W", "이번 조사에서 미확인")) == "이번 조사에서 미확인"
    assert ct.figure_text(f(989.4e12, "FLOP/s", as_published="989 TFLOPS")) == "989.4 TFLOP/s"
    assert ct.figure_text(f(3.958e15, "OP/s")) == "3.958 POPS"


def test_describe_real_figures():
    # H100 SXM: 80 GiB of HBM (80GB on the spec sheet), 3.35 TB/s
    assert ct.describe(devices.figure("h100-sxm", "memory")) == "80 GiB (표기: 80GB; 문서 확인)"
    assert ct.describe(devices.figure("h100-sxm", "bandwidth")) == "3.35 TB/s (표기: 3.35TB/s; 문서 확인)"
    assert ct.describe(devices.figure("tpu-v5e", "tdp")) == "미공개"


def test_sparsity_vocabulary():
    assert ct.SPARSITY_KO == {True: "sparse (2:4)", False: "dense", None: "미표기 (dense/sparse 불명)"}


# --- the spec table -----------------------------------------------------------------------------------------------
def test_spec_table_cells_by_hand(monkeypatch):
    use_data(monkeypatch, "devices.json", FAKE_DEVICES)
    t = ct.spec_table(["x", "y", "z"], ("bf16", "fp8"), caption="표")
    assert t.caption == "표"
    assert t.headers == ["장치", "정밀도", "dense/sparse", "누산", "범위", "최대 처리율", "메모리", "대역폭", "근거", "출처 (확인일)"]
    assert t.rows == [
        ["Chip X", "BF16", "dense", "FP32", "board", "1.235 PFLOP/s", "1.235 GiB (문서 확인)", "—", "문서 확인",
         "Source One (2026-01-02)"],
        # no accumulate or scope; the source id is not in the catalog: shown as it is
        ["Chip X", "BF16", "sparse (2:4)", "—", "—", "2.469 PFLOP/s", "1.235 GiB (문서 확인)", "—", "분석 계산",
         "elsewhere (2026-01-02)"],
        ["Chip X", "FP8", "미표기 (dense/sparse 불명)", "—", "—", "3 PFLOP/s", "1.235 GiB (문서 확인)", "—",
         "이번 조사에서 미확인", "Source One (2026-01-02)"],
        # no bf16 or fp8 figure: one row of dashes, with the device's own scope, memory and bandwidth
        ["Chip Y", "—", "—", "—", "chip", "—", "미공개", "미공개", "—", "—"],
        ["Chip Z", "BF16", "dense", "—", "—", "400 TFLOP/s", "—", "1 TB/s (표기: 1 TB/s; 문서 확인)", "문서 확인",
         "Source One (2026-01-02)"],
    ]
    assert ct.spec_table(["z"], ("fp32",)).rows == [
        ["Chip Z", "—", "—", "—", "card", "—", "—", "1 TB/s (표기: 1 TB/s; 문서 확인)", "—", "—"]]
    assert ct.spec_table(["x"]).caption == "" and len(ct.spec_table(["x"]).rows) == 2   # bf16 only
    # a peak without a value shows its evidence
    assert ct.spec_table(["y", "z"], ("fp64",)).rows == [
        ["Chip Y", "FP64", "dense", "—", "—", "미공개", "미공개", "미공개", "미공개", "Source One (2026-01-02)"],
        ["Chip Z", "FP64", "dense", "—", "—", "5 TFLOP/s", "—", "1 TB/s (표기: 1 TB/s; 문서 확인)", "문서 확인",
         "Source Two (2026-01-02)"]]


def test_spec_table_renders_from_catalog():
    t = ct.spec_table(["h100-sxm", "tpu-v5e"], ("bf16",))
    assert len(t.rows) == 3  # H100 dense + sparse, TPU dense
    assert "sparse (2:4)" in t.column("dense/sparse")


# --- memory types -------------------------------------------------------------------------------------------------
def test_memory_table_cells_by_hand():
    t = ct.memory_table(caption="mem")
    assert t.caption == "mem"
    assert t.headers == ["메모리", "대표 대역폭", "범위", "원자료 표기", "주 용도", "예시 장치", "근거", "출처 (확인일)"]
    rows = {r[0]: r for r in t.rows}
    assert list(rows) == [r["name"] for r in MEM["rows"]]
    assert rows["HBM3"][1:4] == ["3.35 TB/s", "3.35 TB/s – 5.3 TB/s", "3.35 TB/s"]
    assert rows["HBM3"][5] == "NVIDIA H100 SXM, AMD Instinct MI300X"
    assert rows["GDDR7"][1:3] == ["1.792 TB/s (계산: 28000 MT/s × 512비트 / 8)", "—"]
    assert rows["GDDR6"][1:3] == ["864 GB/s (계산: 18000 MT/s × 384비트 / 8)", "360 GB/s – 960 GB/s"]
    # a consumer card and Apple M4 Max are examples outside the device catalog, shown with their computed value
    # (15 Gb/s x 192 bits / 8 = 360 GB/s; 8533 MT/s x 512 bits / 8 = 546.112 GB/s)
    assert rows["GDDR6"][5].endswith("GeForce RTX 3060 12GB (소비자용) (360 GB/s, 카탈로그 밖)")
    assert "Apple M4 Max (16-core CPU / 40-core GPU) (546.112 GB/s, 카탈로그 밖)" in rows["LPDDR5X (패키지 내장)"][5]
    assert rows["LPDDR5X (패키지 내장)"][1] == "136.528 GB/s (계산: 8533 MT/s × 128비트 / 8)"
    assert rows["DDR4 (시스템 메모리)"][1:3] == ["51.2 GB/s (계산: 3200 MT/s × 128비트 / 8)", "25.6 GB/s – 51.2 GB/s"]
    assert rows["DDR5 (시스템 메모리)"][5] == "—"
    lpddr5x = next(r for r in MEM["rows"] if r["key"] == "lpddr5x")
    assert rows["LPDDR5X (패키지 내장)"][3] == lpddr5x.get("as_published", "—")
    assert rows["LPDDR5X (패키지 내장)"][4] == lpddr5x["typical_use_ko"]
    nvme = next(r for r in MEM["rows"] if r["key"] == "nvme-gen4")
    assert rows["NVMe Gen4 SSD"] == ["NVMe Gen4 SSD", "7 GB/s", "—", "7 GB/s", nvme["typical_use_ko"], "—", nvme["evidence"],
                                     f"{MEM['sources'][nvme['source']]['title']} ({nvme['checked']})"]


def test_memory_table_of_rows_without_optional_fields(monkeypatch):
    use_data(monkeypatch, "memory_types.json", FAKE_MEMORY)
    t = ct.memory_table()
    assert t.caption == ""
    assert t.rows == [["Mem 1", "1.235 GB/s", "1.235 GB/s – 2.469 GB/s", "—", "—", "—", "문서 확인", "Src (2026-01-01)"],
                      ["Mem 2", "5 GB/s", "—", "—", "—", "—", "분석 계산", "Other (2026-01-02)"]]


# --- PCIe and links -----------------------------------------------------------------------------------------------
def test_pcie_table_cells_by_hand():
    t = ct.pcie_table(caption="PCIe")
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


def test_link_table_order_and_cells():
    t = ct.link_table(caption="links")
    assert t.caption == "links"
    assert t.headers == ["연결", "범위", "한 방향", "양방향 합", "원자료·사양 표기", "비고", "근거", "출처 (확인일)"]
    # NVLink 5, 4, NVSwitch, NVL72 first, then the computed PCIe rows (5, 4), then the rest in catalog order
    assert t.column("연결") == ["NVLink 5 (B200)", "NVLink 4 (H100)", "NVSwitch", "NVLink Switch System (GB200 NVL72)",
                              "PCIe Gen5 x16", "PCIe Gen4 x16", "NVLink 3 (A100)", "InfiniBand NDR", "InfiniBand XDR",
                              "Ethernet 100G", "Ethernet 200G", "Ethernet 400G"]
    rows = {r[0]: r for r in t.rows}
    assert rows["NVLink 4 (H100)"][1:5] == ["GPU당", "450 GB/s", "900 GB/s", "900GB/s"]
    assert rows["NVSwitch"][1:5] == ["노드 (GPU 8장)", "— (연결 구조)", "—", "—"]
    assert rows["Ethernet 100G"][2:4] == ["12.5 GB/s", "25 GB/s"]
    nvlink4 = next(r for r in IC["links"] if r["key"] == "nvlink4")
    assert rows["NVLink 4 (H100)"][5] == nvlink4["notes_ko"]
    assert rows["NVLink 4 (H100)"][6:] == [nvlink4["evidence"],
                                           f"{IC['sources'][nvlink4['source']]['title']} ({nvlink4['checked']})"]
    gen5 = next(r for r in IC["pcie"] if r["gen"] == 5)
    assert rows["PCIe Gen5 x16"] == [
        "PCIe Gen5 x16", "링크당 (CPU↔장치, NVLink 없는 GPU↔GPU)", "63.015 GB/s", "126.031 GB/s",
        "64 GB/s (한 방향, 반올림)", "32 GT/s × 16레인, 128b/130b 인코딩에서 계산", "분석 계산",
        f"{IC['sources']['pcisig']['title']} ({gen5['checked']})"]
    assert rows["PCIe Gen4 x16"][2:6] == ["31.508 GB/s", "63.015 GB/s", "32 GB/s (한 방향, 반올림)",
                                          "16 GT/s × 16레인, 128b/130b 인코딩에서 계산"]
    # other PCIe generations on request
    assert ct.link_table(include_pcie=(6,)).column("연결")[4] == "PCIe Gen6 x16"
    assert "PCIe Gen5 x16" not in ct.link_table(include_pcie=()).column("연결")
    assert len(ct.link_table().rows) == len(IC["links"]) + 2


FAKE_IC = {
    "sources": {"s": {"title": "Src", "checked": "2026-01-01"}, "t": {"title": "Other", "checked": "2026-01-02"}},
    "pcie": [{"gen": 5, "gt_per_s": 10, "encoding": "8b/10b", "nominal_lane_GBps": 1.25, "source": "s",
              "checked": "2026-01-01", "evidence": "분석 계산"}],
    "links": [{"key": "a", "name": "Link A", "bandwidth_one_way": 1.2346e9, "bandwidth_both_ways": 2.4692e9,
               "source": "t", "checked": "2026-01-02", "evidence": "문서 확인"},
              {"key": "nvlink4", "name": "NV4", "bandwidth_one_way": 4e11, "bandwidth_both_ways": 8e11, "scope": "GPU당",
               "as_published": "800GB/s", "notes_ko": "메모", "source": "s", "checked": "2026-01-03", "evidence": "문서 확인"}],
}


def test_fake_catalog_tables(monkeypatch):
    use_data(monkeypatch, "interconnects.json", FAKE_IC)
    # 10 GT/s x 8/10 / 8 = 1 GB/s per lane; x16 16 GB/s, both ways 32 GB/s; nominal 1.25 GB/s per lane
    assert ct.pcie_table().caption == "" and ct.link_table(include_pcie=(5,)).caption == ""
    assert ct.pcie_table().rows == [["Gen5", "10", "8b/10b", "1 GB/s", "16 GB/s", "32 GB/s",
                                     "1 GB/s / 20 GB/s / 40 GB/s", "분석 계산"]]
    t = ct.link_table(include_pcie=(5,))
    # nvlink5, nvswitch and nvl72 are not in this catalog: only nvlink4 comes first
    assert t.rows == [
        ["NV4", "GPU당", "400 GB/s", "800 GB/s", "800GB/s", "메모", "문서 확인", "Src (2026-01-03)"],
        ["PCIe Gen5 x16", "링크당 (CPU↔장치, NVLink 없는 GPU↔GPU)", "16 GB/s", "32 GB/s", "20 GB/s (한 방향, 반올림)",
         "10 GT/s × 16레인, 8b/10b 인코딩에서 계산", "분석 계산", "Src (2026-01-01)"],
        # no scope, notes or as_published; 3 decimals: 1.2346 GB/s -> 1.235
        ["Link A", "—", "1.235 GB/s", "2.469 GB/s", "—", "", "문서 확인", "Other (2026-01-02)"],
    ]
