"""Oracles for xpucalc.devices: peak selection, Device construction, figure display and the spec table, on a small
fake catalog whose every cell is known (and a few lookups in the real one, checked against the source documents).

The fake catalog is swapped in with monkeypatch, so each expected string below is worked out by hand from the
fake figures: e.g. 1.2346e15 FLOP/s -> "1.235 PFLOP/s" (3 decimals), 1.2346 x 2^30 B binary -> "1.235 GiB".
Error messages are matched in full (from their first word), so a message that loses the argument or the fix fails.
"""
import re

import pytest

from xpucalc.catalog import devices
from xpucalc.core.device import Device

GIB = 2**30
FAKE = {
    "sources": {"s1": {"title": "Source One", "url": None, "checked": "2026-01-02"}, "s2": {"url": None}},
    "devices": {
        "x": {
            "name": "Chip X", "kind": "gpu", "scope": "board",
            "peaks": [
                {"precision": "bf16", "sparse": False, "accumulate": "fp32", "scope": "board", "value": 1.2346e15,
                 "unit": "FLOP/s", "as_published": "1,234.6 TFLOPS", "source": "s1", "checked": "2026-01-02",
                 "evidence": "문서 확인"},
                {"precision": "bf16", "sparse": True, "value": 2.4692e15, "unit": "FLOP/s", "source": "elsewhere",
                 "evidence": "분석 계산"},
                {"precision": "int8", "sparse": False, "accumulate": "int16", "value": 2.0e15, "unit": "OP/s",
                 "source": "s1", "evidence": "문서 확인"},
                {"precision": "int8", "sparse": False, "accumulate": "int32", "value": 1.0e15, "unit": "OP/s",
                 "source": "s1", "evidence": "문서 확인"},
                {"precision": "fp8", "sparse": None, "value": 3.0e15, "unit": "FLOP/s", "as_published": None,
                 "source": "s1", "evidence": "이번 조사에서 미확인"},
                {"precision": "fp16", "sparse": None, "value": 1.6e16, "unit": "FLOP/s", "as_published": "16 PF*",
                 "source": "s1", "evidence": "이번 조사에서 미확인"},
                {"precision": "fp16", "sparse": None, "value": 1.7e16, "unit": "FLOP/s", "as_published": "other",
                 "source": "s1", "evidence": "이번 조사에서 미확인"},
                {"precision": "fp32", "sparse": True, "value": 1.0e14, "unit": "FLOP/s", "source": "s1",
                 "evidence": "문서 확인"},
            ],
            "memory": {"value": 1.2346 * GIB, "unit": "B", "binary": True, "as_published": None, "evidence": "문서 확인"},
            "tdp": {"value": 450, "unit": "W", "as_published": "450 W", "evidence": "문서 확인"},
        },
        "y": {
            "name": "Chip Y", "kind": "npu",
            "peaks": [{"precision": "fp64", "sparse": False, "value": None, "unit": "FLOP/s", "evidence": "미공개"}],
            "memory": {"value": None, "unit": "B", "evidence": "미공개"},
            "bandwidth": {"value": None, "unit": "B/s", "evidence": "미공개"},
        },
        "z": {
            "name": "Chip Z", "kind": "gpu", "scope": "card",
            "peaks": [{"precision": "fp64", "sparse": False, "value": 5e12, "unit": "FLOP/s", "source": "s2",
                       "evidence": "문서 확인"},
                      {"precision": "bf16", "sparse": False, "value": 4e14, "unit": "FLOP/s", "source": "s1",
                       "evidence": "문서 확인"}],
            "bandwidth": {"value": 1e12, "unit": "B/s", "as_published": "1 TB/s", "evidence": "문서 확인"},
        },
        "w": {"name": "Chip W", "kind": "gpu", "peaks": [], "extra": [{"label": "L1", "value": 3, "unit": "count"}]},
    },
}


@pytest.fixture
def fake(monkeypatch):
    monkeypatch.setattr(devices, "catalog", lambda: FAKE)


def raises(exc, message):
    """pytest.raises matching the whole message (KeyError's str() adds quotes around it)."""
    return pytest.raises(exc, match=("^" if exc is ValueError else "") + re.escape(message) + ("$" if exc is ValueError else ""))


# --- lookups ----------------------------------------------------------------------------------------------------------
def test_lookups_and_their_errors(fake):
    assert devices.keys() == ["x", "y", "z", "w"]
    assert devices.entry("z")["name"] == "Chip Z"
    with raises(KeyError, "unknown device key 'nope'; known keys: x, y, z, w"):
        devices.entry("nope")
    assert devices.source("s1")["title"] == "Source One"
    with raises(KeyError, "unknown source id 'nope'"):
        devices.source("nope")
    assert devices.figure("x", "tdp")["value"] == 450
    assert devices.figure("x", "bandwidth") is None
    with raises(ValueError, "field must be 'memory', 'bandwidth' or 'tdp', got 'peak'"):
        devices.figure("x", "peak")
    assert devices.runtime_memory("x") is None and devices.runtime_memory("z") is None   # z has no memory at all
    # a device without any "extra" list
    assert devices.conflicts("x", "memory") == []
    with raises(ValueError, "field must be 'memory', 'bandwidth', 'tdp' or an extra label of x, got 'nope'"):
        devices.conflicts("x", "nope")
    with raises(KeyError, "x: no extra figure labelled 'L1'; have: []"):
        devices.extra("x", "L1")
    assert devices.extra("w", "L1")["value"] == 3
    with raises(KeyError, "w: no extra figure labelled 'L2'; have: ['L1']"):
        devices.extra("w", "L2")
    assert devices.conflicts("w", "L1") == []


def test_extra_lists_the_real_labels():
    with raises(KeyError, "h100-sxm: no extra figure labelled 'nope'; have: "
                          "['NVLink bandwidth', 'PCIe Gen5 bandwidth', 'SM count']"):
        devices.extra("h100-sxm", "nope")


# --- peak -------------------------------------------------------------------------------------------------------------
def test_peak_selection(fake):
    assert devices.peak("x")["value"] == 1.2346e15                          # default: bf16, dense
    assert devices.peak("x", "bf16", True)["value"] == 2.4692e15
    # two dense int8 figures: the one accumulating in int32 is returned (listed second)
    assert devices.peak("x", "int8")["value"] == 1.0e15
    # unstated sparsity: as printed with sparse=None (the first of two), or read on purpose
    assert devices.peak("x", "fp16", sparse=None)["as_published"] == "16 PF*"
    assert devices.peak("x", "fp16", unstated_sparsity="dense")["value"] == 1.6e16
    assert devices.peak("x", "fp16", True, unstated_sparsity="sparse")["value"] == 1.6e16


def test_peak_from_the_real_catalog():
    assert devices.peak("h100-sxm")["value"] == 989.4e12        # BF16 dense, half of the 1,979 TFLOPS* sparse figure
    # RTX 4090 FP16 dense: 330.3 TFLOPS with FP16 accumulation, 165.2 with FP32 accumulation -> the safe FP32 one
    assert devices.peak("rtx-4090", "fp16")["value"] == 165.2e12


def test_peak_errors_in_full(fake):
    with raises(ValueError, "precision 'fp6' is not one of fp64, fp32, tf32, bf16, fp16, fp8, int8, int4"):
        devices.peak("x", "fp6")
    with raises(ValueError, "sparse must be True, False or None (sparsity not stated), got 'yes'"):
        devices.peak("x", "bf16", "yes")
    with raises(ValueError, "unstated_sparsity must be 'dense', 'sparse' or None, got 'maybe'"):
        devices.peak("x", "fp16", unstated_sparsity="maybe")
    unstated = ("x: the {p} peak ({shown}) does not say whether it is dense or sparse (sparse: null in the catalog), "
                "so it cannot be used as a {w} figure silently. Pass unstated_sparsity='{w}' to read it as {w} on "
                "purpose (if it is really a 2:4-sparse figure, the dense peak is half), or sparse=None to get the "
                "figure as printed.")
    with raises(ValueError, unstated.format(p="fp16", shown="16 PF*", w="dense")):
        devices.peak("x", "fp16")
    with raises(ValueError, unstated.format(p="fp16", shown="16 PF*", w="sparse")):
        devices.peak("x", "fp16", True, unstated_sparsity="dense")             # read as the other reading: refused
    with raises(ValueError, unstated.format(p="fp8", shown="3e+15 FLOP/s", w="dense")):   # no as_published
        devices.peak("x", "fp8")
    with raises(ValueError, "x: the catalog has only a sparse fp32 peak; a sparse figure cannot stand in for a dense "
                            "one. Ask with sparse=True and convert explicitly with xpucalc.units.sparse_to_dense()."):
        devices.peak("x", "fp32")
    have = "bf16 dense, bf16 sparse, fp16 sparsity not stated, fp32 sparse, fp8 sparsity not stated, int8 dense"
    with raises(ValueError, f"x: no unstated-sparsity fp32 peak in the catalog; available: {have}"):
        devices.peak("x", "fp32", None)
    with raises(ValueError, f"x: no dense int4 peak in the catalog; available: {have}"):
        devices.peak("x", "int4")
    with raises(ValueError, f"x: no sparse int8 peak in the catalog; available: {have}"):
        devices.peak("x", "int8", True)
    with raises(ValueError, "w: no dense bf16 peak in the catalog; available: none"):
        devices.peak("w")


# --- get --------------------------------------------------------------------------------------------------------------
def test_get_builds_the_device(fake):
    d = devices.get("x", bandwidth=2e12)
    assert d == Device("Chip X", 1.2346e15, 2e12, 1.2346 * GIB, "bf16", False, "x", sparsity_assumed=False)
    assert (d.precision, d.key, d.sparse, d.sparsity_assumed) == ("bf16", "x", False, False)
    s = devices.get("x", "bf16", True, bandwidth=2e12)
    assert (s.peak_flops, s.sparse) == (2.4692e15, True)
    u = devices.get("x", "fp16", bandwidth=2e12, unstated_sparsity="dense")
    assert (u.peak_flops, u.sparsity_assumed, u.precision) == (1.6e16, True, "fp16")
    z = devices.get("z")                                           # catalog bandwidth; no memory entry at all
    assert (z.bandwidth, z.memory, z.peak_flops, z.key) == (1e12, None, 4e14, "z")
    y = devices.get("z", "fp64", bandwidth=3e12)                   # explicit bandwidth wins
    assert (y.bandwidth, y.peak_flops) == (3e12, 5e12)


def test_get_errors_in_full(fake):
    with raises(ValueError, "sparse must be True or False for get(), got None; a figure of unstated sparsity needs "
                            "unstated_sparsity='dense' or 'sparse'"):
        devices.get("x", sparse=None)
    with raises(ValueError, "x: memory bandwidth is missing in the catalog; pass bandwidth= (bytes/s) with a value "
                            "you can source"):
        devices.get("x")
    with raises(ValueError, "y: the fp64 peak is 미공개 (no value); pick another precision"):
        devices.get("y", "fp64")
    fake_y = dict(FAKE["devices"]["y"], peaks=[dict(FAKE["devices"]["y"]["peaks"][0], value=1e12)])
    FAKE["devices"]["y2"] = fake_y
    try:
        with raises(ValueError, "y2: memory bandwidth is 미공개 in the catalog; pass bandwidth= (bytes/s) with a value "
                                "you can source"):
            devices.get("y2", "fp64")
        assert devices.get("y2", "fp64", bandwidth=1e12).memory is None   # memory figure without a value
    finally:
        del FAKE["devices"]["y2"]


# --- display ----------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("fig, shown", [
    (None, "—"),
    ({}, "—"),
    ({"value": None, "evidence": "미공개"}, "미공개"),
    ({"value": 1.2346 * GIB, "unit": "B", "binary": True, "evidence": "문서 확인"}, "1.235 GiB (문서 확인)"),
    ({"value": 1.2346e9, "unit": "B", "evidence": "문서 확인"}, "1.235 GB (문서 확인)"),          # decimal bytes
    ({"value": 3.1416e12, "unit": "B/s", "as_published": "3.14TB/s", "evidence": "분석 계산"},
     "3.142 TB/s (표기: 3.14TB/s; 분석 계산)"),
    ({"value": 1.2346e15, "unit": "FLOP/s", "evidence": "문서 확인"}, "1.235 PFLOP/s (문서 확인)"),
    ({"value": 1.0e15, "unit": "OP/s", "as_published": "1,000 TOPS", "evidence": "문서 확인"},
     "1 POPS (표기: 1,000 TOPS; 문서 확인)"),
    ({"value": 450, "unit": "W", "as_published": "", "evidence": "문서 확인"}, "450 W (문서 확인)"),
    ({"value": 1500, "unit": "W", "evidence": "문서 확인"}, "1.5 kW (문서 확인)"),                # W gets a prefix
    ({"value": 132, "unit": "count", "evidence": "문서 확인"}, "132 count (문서 확인)"),
    ({"value": 1.5e9, "unit": "Hz", "evidence": "문서 확인"}, "1.5e+09 Hz (문서 확인)"),
])
def test_describe_by_hand(fig, shown):
    assert devices.describe(fig) == shown


def test_fmt_figure_of_nothing():
    assert devices._fmt_figure(None) == "—" and devices._fmt_figure({}) == "—"


def test_describe_real_figures():
    # H100 SXM: 80 GiB of HBM (80GB on the spec sheet), 3.35 TB/s
    assert devices.describe(devices.figure("h100-sxm", "memory")) == "80 GiB (표기: 80GB; 이번 조사에서 미확인)"
    assert devices.describe(devices.figure("h100-sxm", "bandwidth")) == "3.35 TB/s (표기: 3.35TB/s; 이번 조사에서 미확인)"
    assert devices.describe(devices.figure("tpu-v5e", "tdp")) == "미공개"


def test_spec_table_cells_by_hand(fake):
    t = devices.spec_table(["x", "y", "z"], ("bf16", "fp8"), caption="표")
    assert t.caption == "표"
    assert t.headers == ["장치", "정밀도", "dense/sparse", "누산", "범위", "피크", "메모리", "대역폭", "근거", "출처 (확인일)"]
    assert t.rows == [
        ["Chip X", "BF16", "dense", "FP32", "board", "1.235 PFLOP/s", "1.235 GiB (문서 확인)", "—", "문서 확인",
         "Source One (2026-01-02)"],
        # no accumulate, scope or checked date; the source id is not in the catalog: shown as it is
        ["Chip X", "BF16", "sparse (2:4)", "—", "—", "2.469 PFLOP/s", "1.235 GiB (문서 확인)", "—", "분석 계산",
         "elsewhere (—)"],
        ["Chip X", "FP8", "미표기 (dense/sparse 불명)", "—", "—", "3 PFLOP/s", "1.235 GiB (문서 확인)", "—",
         "이번 조사에서 미확인", "Source One (—)"],
        # no bf16 or fp8 figure: one row of dashes, with the device's own memory and bandwidth
        ["Chip Y", "—", "—", "—", "—", "—", "미공개", "미공개", "—", "—"],
        ["Chip Z", "BF16", "dense", "—", "—", "400 TFLOP/s", "—", "1 TB/s (표기: 1 TB/s; 문서 확인)", "문서 확인",
         "Source One (—)"],
    ]
    assert devices.spec_table(["z"], ("fp32",)).rows == [
        ["Chip Z", "—", "—", "—", "card", "—", "—", "1 TB/s (표기: 1 TB/s; 문서 확인)", "—", "—"]]
    assert devices.spec_table(["x"]).caption == "" and len(devices.spec_table(["x"]).rows) == 2   # bf16 only
    # a peak without a value shows its evidence; a peak without a source, or whose source has no title, shows dashes
    assert devices.spec_table(["y", "z"], ("fp64",)).rows == [
        ["Chip Y", "FP64", "dense", "—", "—", "미공개", "미공개", "미공개", "미공개", "— (—)"],
        ["Chip Z", "FP64", "dense", "—", "—", "5 TFLOP/s", "—", "1 TB/s (표기: 1 TB/s; 문서 확인)", "문서 확인", "— (—)"]]


def test_sparsity_vocabulary():
    assert devices.SPARSITY_KO == {True: "sparse (2:4)", False: "dense", None: "미표기 (dense/sparse 불명)"}
    assert devices.PRECISIONS == ("fp64", "fp32", "tf32", "bf16", "fp16", "fp8", "int8", "int4")
