"""xpucalc.catalog.devices: lookups, peak selection and Device construction, on a small fake catalog whose every
cell is known (tests/_catalog_helpers.FAKE_DEVICES) and on the real catalog, checked against the source documents.

Golden values are written out by hand (the derivation is in the comment), not read back from the catalog. Error
messages are matched in full (from their first word), so a message that loses the argument or the fix fails.
"""
import copy
import pathlib
import re

import pytest

from xpucalc import evidence
from xpucalc.catalog import devices
from xpucalc.catalog.devices import DeviceSpec
from xpucalc.catalog.figure import Figure, Source
from xpucalc.core.device import Device

from _catalog_helpers import FAKE_DEVICES, GIB, all_figures, use_data

KEYS = ["h100-sxm", "h100-pcie", "h200", "b200", "a100-80gb", "a100-sxm4-40gb", "l40s", "rtx-6000-ada", "rtx-4090",
        "rtx-5090", "mi300x", "apple-m3-ultra", "tpu-v5e", "core-ultra-9-288v", "virtual-a", "virtual-b"]
DATE = re.compile(r"^20\d\d-\d\d-\d\d$")
REAL = [k for k in KEYS if devices.entry(k).kind != "virtual"]
ICI = "ICI bandwidth per chip (bidirectional)"


@pytest.fixture
def fake(monkeypatch):
    data = copy.deepcopy(FAKE_DEVICES)
    use_data(monkeypatch, "devices.json", data)
    return data


def raises(exc, message):
    """pytest.raises matching the whole message (KeyError's str() adds quotes around it)."""
    return pytest.raises(exc, match=("^" if exc is ValueError else "") + re.escape(message) + ("$" if exc is ValueError else ""))


# --- lookups ----------------------------------------------------------------------------------------------------------
def test_every_device_of_the_sources_is_there():
    assert devices.keys() == KEYS


def test_lookups_and_their_errors(fake):
    assert devices.keys() == ["x", "y", "z", "w"]
    z = devices.entry("z")
    assert z == DeviceSpec("z", "Chip Z", "V", "gpu", "card", "card", "메모", None, Figure.from_dict(fake["devices"]["z"]["bandwidth"]),
                           None, tuple(map(Figure.from_dict, fake["devices"]["z"]["peaks"])), ())
    with raises(KeyError, "unknown device key 'nope'; known keys: x, y, z, w"):
        devices.entry("nope")
    assert devices.source("s1") == Source("s1", "Source One", None, "2026-01-02")
    with raises(KeyError, "unknown source id 'nope' in devices.json; known: s1, s2"):
        devices.source("nope")
    assert devices.figure("x", "tdp").value == 450
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
    assert devices.extra("w", "L1").value == 3
    with raises(KeyError, "w: no extra figure labelled 'L2'; have: ['L1']"):
        devices.extra("w", "L2")
    assert devices.conflicts("w", "L1") == []
    assert [p.precision for p in devices.peaks("x")] == ["bf16", "bf16", "int8", "int8", "fp8", "fp16", "fp16", "fp32"]


def test_extra_lists_the_real_labels():
    with raises(KeyError, "h100-sxm: no extra figure labelled 'nope'; have: "
                          "['NVLink bandwidth', 'PCIe Gen5 bandwidth', 'SM count']"):
        devices.extra("h100-sxm", "nope")


def test_vocabulary():
    assert devices.PRECISIONS == ("fp64", "fp32", "tf32", "bf16", "fp16", "fp8", "fp4", "int8", "int4")
    assert devices.FIELDS == ("memory", "bandwidth", "tdp")
    assert devices.SPARSITY_READINGS == ("dense", "sparse")


# --- peak -------------------------------------------------------------------------------------------------------------
def test_peak_selection(fake):
    assert devices.peak("x").value == 1.2346e15                          # default: bf16, dense
    assert devices.peak("x", "bf16", True).value == 2.4692e15
    # two dense int8 figures: the one accumulating in int32 is returned (listed second)
    assert devices.peak("x", "int8").value == 1.0e15
    # unstated sparsity: as printed with sparse=None (the first of two), or read on purpose
    assert devices.peak("x", "fp16", sparse=None).as_published == "16 PF*"
    assert devices.peak("x", "fp16", unstated_sparsity="dense").value == 1.6e16
    assert devices.peak("x", "fp16", True, unstated_sparsity="sparse").value == 1.6e16


def test_peak_from_the_real_catalog():
    assert devices.peak("h100-sxm").value == 989.4e12        # BF16 dense, half of the 1,979 TFLOPS* sparse figure
    # RTX 4090 FP16 dense: 330.3 TFLOPS with FP16 accumulation, 165.2 with FP32 accumulation -> the safe FP32 one
    assert devices.peak("rtx-4090", "fp16").value == 165.2e12


def test_peak_errors_in_full(fake):
    with raises(ValueError, "precision 'fp6' is not one of fp64, fp32, tf32, bf16, fp16, fp8, fp4, int8, int4"):
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


def test_sparse_is_double_dense_for_h100():
    sparse = devices.peak("h100-sxm", "bf16", sparse=True).value
    dense = devices.peak("h100-sxm", "bf16").value
    assert sparse == pytest.approx(1979e12)
    assert sparse / dense == pytest.approx(2, rel=1e-3)
    d = devices.get("h100-sxm", "bf16", sparse=True)
    assert d.sparse and d.peak_flops == pytest.approx(1979e12)


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
    fake["devices"]["y2"] = dict(fake["devices"]["y"], peaks=[dict(fake["devices"]["y"]["peaks"][0], value=1e12)])
    with raises(ValueError, "y2: memory bandwidth is 미공개 in the catalog; pass bandwidth= (bytes/s) with a value "
                            "you can source"):
        devices.get("y2", "fp64")
    assert devices.get("y2", "fp64", bandwidth=1e12).memory is None   # memory figure without a value


@pytest.mark.parametrize("key, precision, tflops", [
    ("h100-sxm", "bf16", 989.4), ("tpu-v5e", "bf16", 197), ("a100-80gb", "bf16", 312),
    ("virtual-a", "bf16", 200), ("virtual-b", "bf16", 100),
])
def test_known_dense_peaks(key, precision, tflops):
    assert devices.get(key, precision).peak_flops == pytest.approx(tflops * 1e12)


def test_catalog_errors():
    with pytest.raises(KeyError, match="known keys"):
        devices.get("h1000")
    with pytest.raises(ValueError, match="precision"):
        devices.get("h100-sxm", "fp12")
    with pytest.raises(ValueError, match="available"):
        devices.get("core-ultra-9-288v", "bf16", unstated_sparsity="dense")


def test_corrected_figures_of_the_design():
    # §7.1: Google's table gives 819 GB/s for TPU v5e
    assert devices.figure("tpu-v5e", "bandwidth").value == pytest.approx(819e9)
    # §7.6: M3 Ultra up to 512 GB unified memory (binary DRAM: 512 x 2**30 bytes)
    assert devices.figure("apple-m3-ultra", "memory").value == 512 * 1024**3
    # §7.8: B200 180 GB usable (binary, 180 x 2**30); RTX 4090 FP16 330 only with FP16 accumulation, 165 with FP32
    assert devices.figure("b200", "memory").value == 180 * 1024**3
    fp16 = [p for p in devices.peaks("rtx-4090") if p.precision == "fp16" and not p.sparse]
    by_acc = {p.accumulate: p.value for p in fp16}
    assert by_acc["fp16"] == pytest.approx(330.3e12, rel=1e-3)
    assert by_acc["fp32"] == pytest.approx(165.2e12, rel=1e-3)
    assert devices.peak("rtx-4090", "fp16").accumulate == "fp32"  # the safe default


def test_unpublished_npu_bandwidth_is_an_error_not_a_number():
    assert devices.figure("core-ultra-9-288v", "bandwidth").evidence == evidence.NOT_PUBLISHED
    with pytest.raises(ValueError, match="bandwidth"):
        devices.get("core-ultra-9-288v", "int8", unstated_sparsity="dense")
    d = devices.get("core-ultra-9-288v", "int8", bandwidth=100e9, unstated_sparsity="dense")
    assert d.peak_flops == pytest.approx(48e12) and d.sparsity_assumed


# --- capacities as the bytes the vendor means ---------------------------------------------------------------------
def test_every_memory_says_whether_it_is_binary():
    for key in devices.keys():
        m = devices.figure(key, "memory")
        assert isinstance(m.binary, bool), key
        # every real device has DRAM (HBM, GDDR, LPDDR) whose capacity is binary; the virtual devices are decimal
        assert m.binary is (key in REAL), key
        if m.binary:
            assert m.value % GIB == 0, key
            assert "GiB" in m.conditions or "Binary" in m.conditions, key


@pytest.mark.parametrize("key, n_bytes", [
    ("h100-sxm", 85_899_345_920),      # 80 GiB = 80 x 1024**3
    ("h100-pcie", 85_899_345_920),
    ("a100-80gb", 85_899_345_920),
    ("a100-sxm4-40gb", 42_949_672_960),  # 40 GiB
    ("h200", 151_397_597_184),         # 141 GiB
    ("b200", 193_273_528_320),         # 180 GiB usable
    ("mi300x", 206_158_430_208),       # 192 GiB, as AMD's ROCm table prints it
    ("rtx-4090", 25_769_803_776),      # 24 GiB
    ("rtx-5090", 34_359_738_368),      # 32 GiB
    ("l40s", 51_539_607_552),          # 48 GiB
    ("apple-m3-ultra", 549_755_813_888),  # 512 GiB
    ("core-ultra-9-288v", 34_359_738_368),
    ("virtual-a", 16_000_000_000),     # the Week 5 virtual device is defined in decimal GB
])
def test_capacity_is_the_byte_value(key, n_bytes):
    assert devices.figure(key, "memory").value == n_bytes
    if key not in ("core-ultra-9-288v", "apple-m3-ultra"):  # no published bandwidth / no published peak
        assert devices.get(key, "fp16" if key not in ("virtual-a", "tpu-v5e") else "bf16").memory == n_bytes


def test_h100_binary_capacity_is_7_percent_above_decimal():
    mem = devices.get("h100-sxm").memory
    assert mem == 80 * 2**30
    assert mem / 80e9 == pytest.approx(1.073741824)


def test_b200_usable_and_physical_stay_separate():
    usable = devices.figure("b200", "memory")
    physical = devices.extra("b200", "Physical HBM3e capacity per GPU")
    assert usable.value == 180 * 2**30 and physical.value == 192 * 2**30
    assert "usable" in usable.conditions.lower()
    # the DGX total is 8 usable GPUs
    assert devices.extra("b200", "DGX B200 total GPU memory (8 GPUs)").value == 8 * usable.value


@pytest.mark.parametrize("key, mib, source", [
    ("h100-sxm", 81_559, "nccl-1264"),
    ("h200", 143_771, "cuda-samples-311"),
    ("b200", 183_359, "trtllm-10278"),
    ("rtx-4090", 24_564, "rlinf-255"),
])
def test_runtime_reported_memory(key, mib, source):
    rt = devices.runtime_memory(key)
    assert rt.value == mib * 2**20 and rt.unit == "B"
    assert rt.source == source and rt.source in devices.CATALOG.sources()
    # another user's nvidia-smi output is a documented figure naming its report, never this course's 실측
    assert rt.checked == "2026-12-01" and rt.evidence == evidence.DOCUMENTED
    # second reading of the same number: the printed string
    assert int(rt.as_published.replace(" MiB", "").replace(",", "")) == mib


def test_runtime_reports_are_below_the_capacity():
    seen = 0
    for key in devices.keys():
        rt = devices.runtime_memory(key)
        if rt is None:
            continue
        seen += 1
        cap = devices.figure(key, "memory").value
        assert 0.9 * cap < rt.value <= cap, key  # drivers keep up to a few percent; never more than the capacity
    assert seen >= 4
    # only the course's own run of the Week 5 device is 실측
    assert [k for k in devices.keys() if (devices.runtime_memory(k) or devices.figure(k, "memory")).evidence
            == evidence.MEASURED] == ["a100-sxm4-40gb"]
    assert devices.runtime_memory("mi300x") is None  # no public source found: nothing stored


# --- unknown sparsity ----------------------------------------------------------------------------------------------
def test_npu_peaks_store_sparsity_as_unknown():
    for p in devices.peaks("core-ultra-9-288v"):
        assert p.sparse is None


def test_unknown_sparsity_is_refused_as_dense():
    with pytest.raises(ValueError, match="unstated_sparsity='dense'"):
        devices.peak("core-ultra-9-288v", "int8")
    with pytest.raises(ValueError, match="does not say whether it is dense or sparse"):
        devices.get("core-ultra-9-288v", "int8", bandwidth=136.5e9)
    with pytest.raises(ValueError, match="unstated_sparsity='sparse'"):
        devices.peak("core-ultra-9-288v", "int8", sparse=True)
    with pytest.raises(ValueError, match="unstated_sparsity"):
        devices.peak("core-ultra-9-288v", "int8", unstated_sparsity="maybe")
    with pytest.raises(ValueError, match="sparse must be True or False"):
        devices.get("core-ultra-9-288v", "int8", sparse=None, bandwidth=136.5e9)


def test_unknown_sparsity_with_an_explicit_reading():
    as_printed = devices.peak("core-ultra-9-288v", "int8", sparse=None)
    assert as_printed.value == 48e12
    d = devices.get("core-ultra-9-288v", "int8", bandwidth=136.5e9, unstated_sparsity="dense")
    assert (d.peak_flops, d.sparse, d.sparsity_assumed) == (48e12, False, True)
    s = devices.get("core-ultra-9-288v", "int8", sparse=True, bandwidth=136.5e9, unstated_sparsity="sparse")
    assert s.sparse and s.sparsity_assumed
    assert s.dense().peak_flops == 24e12 and s.dense().sparsity_assumed  # the reading stays visible
    # a stated figure is not affected by the argument
    h = devices.get("h100-sxm", "bf16", unstated_sparsity="dense")
    assert h.peak_flops == 989.4e12 and not h.sparsity_assumed


# --- source conflicts ----------------------------------------------------------------------------------------------
def test_tpu_v5e_bandwidth_conflict():
    (c,) = devices.conflicts("tpu-v5e", "bandwidth")
    assert devices.figure("tpu-v5e", "bandwidth").value == 819e9
    assert c.value == 800 * 2**30 == 858_993_459_200  # 800 GiB/s


def test_b200_bandwidth_conflict_uses_the_hgx_figure():
    bw = devices.figure("b200", "bandwidth")
    (c,) = devices.conflicts("b200", "bandwidth")
    assert bw.value == 7.7e12 and "HGX B200" in bw.conditions
    assert c.value == 64e12 / 8 == 8e12  # DGX B200 64 TB/s over 8 GPUs
    assert devices.get("b200").bandwidth == 7.7e12


def test_conflicts_are_real_disagreements():
    n = 0
    for key in devices.keys():
        for field in devices.FIELDS:
            for c in devices.conflicts(key, field):
                n += 1
                assert c.value != devices.figure(key, field).value
                assert c.unit == devices.figure(key, field).unit
    assert n == 2
    assert devices.conflicts("h100-sxm", "bandwidth") == []
    with pytest.raises(ValueError, match="field"):
        devices.conflicts("b200", "peak")
    with pytest.raises(KeyError, match="known keys"):
        devices.conflicts("tpu-v9", "bandwidth")


def test_conflict_of_an_extra_figure_by_its_label():
    ici = devices.extra("tpu-v5e", ICI)
    (c,) = devices.conflicts("tpu-v5e", ICI)
    # Google's current table: '400 GBps'; another revision: '1600 Gbps' = 1,600 x 10^9 bit/s / 8 bit per byte
    # = 200 x 10^9 B/s, half of 400 GB/s.
    assert ici.value == 400_000_000_000
    assert c.value == 200_000_000_000
    assert ici.value / c.value == 2
    assert c.as_published == "Interchip Interconnect BW 1600 Gbps"
    assert c.unit == ici.unit == "B/s" and c.evidence == "문서 확인"
    # the conflicting figure names a source of its own (not the revision that prints 400 GBps)
    assert c.source == "gcloud-tpu-v5e-ici-rev" != ici.source
    assert devices.source(c.source).url.startswith("https://cloud.google.com/tpu/docs/v5e")


def test_conflicts_live_only_in_devices_json():
    # one mechanism: every conflict is an extra of the same device whose conflicts_with names a main field or
    # another extra's label of that device; there is no second conflicts file.
    assert not (pathlib.Path(devices.__file__).parent / "data" / "source_conflicts.json").exists()
    found = []
    for key in devices.keys():
        e = devices.entry(key)
        labels = {f.label for f in e.extra}
        for f in e.extra:
            if f.conflicts_with is not None:
                assert f.conflicts_with in set(devices.FIELDS) | labels, (key, f.label)
                assert f.conflicts_with != f.label
                assert f in devices.conflicts(key, f.conflicts_with)
                found.append((key, f.conflicts_with))
    # TPU v5e HBM (819 GBps vs 800 GiBps), B200 HBM (7.7 vs 8 TB/s), TPU v5e ICI (400 GBps vs 1600 Gbps)
    assert sorted(found) == [("b200", "bandwidth"), ("tpu-v5e", ICI), ("tpu-v5e", "bandwidth")]


def test_tpu_v5e_capacity_label_of_each_revision():
    mem = devices.figure("tpu-v5e", "memory")
    assert mem.value == 16 * 2**30 == 17_179_869_184 and mem.binary is True
    # the HTML revisions print '16 GB'; the Markdown export prints '16 GiB' (same bytes: evidence, not a conflict)
    assert mem.as_published == "16 GB"
    md = devices.extra("tpu-v5e", "HBM capacity label '16 GiB' (Markdown export)")
    assert md.as_published == "16 GiB" and md.value == 17_179_869_184
    assert md.conflicts_with is None and devices.conflicts("tpu-v5e", "memory") == []
    assert "16 GiB" in mem.conditions and "both revisions" not in mem.conditions


# --- notes shown to readers ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("key", KEYS)
def test_notes_are_short_and_in_the_books_register(key):
    note = devices.entry(key).notes_ko
    assert 0 < len(note) <= 260, (key, len(note))
    # 합니다체: every sentence ends in -니다 (a closing parenthesis may follow the ending)
    for sentence in re.split(r"(?<=[.])\s+", note.strip()):
        assert re.search(r"니다\.\)?$|니다\)\.$", sentence), (key, sentence)
    assert "TFLOPS" not in note and "TFLOPs" not in note, key  # unit spelling: TFLOP/s (integer rates: TOPS)


def test_tpu_v5e_note_leaves_the_819_800_story_to_its_section():
    note = devices.entry("tpu-v5e").notes_ko
    assert not re.search(r"819|800|GiB", note)


# --- corrected peaks -----------------------------------------------------------------------------------------------
def dense_by_acc(key, precision):
    return {p.accumulate: p.value for p in devices.peaks(key) if p.precision == precision and p.sparse is False}


def test_rtx_6000_ada_has_its_own_figures_not_the_l40s_ones():
    # datasheet: 1,457.0 TFLOPS FP8 with sparsity -> 728.5 dense -> FP16 dense 364.25 (printed 364.2)
    assert devices.peak("rtx-6000-ada", "fp8", sparse=True).value == 1457.0e12
    assert devices.peak("rtx-6000-ada", "fp8").value == 728.5e12
    assert devices.peak("rtx-6000-ada", "fp16").value == pytest.approx(364.2e12, rel=2e-4)
    assert devices.peak("rtx-6000-ada", "fp16").value != devices.peak("l40s", "fp16").value


def test_rtx_5090_accumulate_rates():
    assert dense_by_acc("rtx-5090", "fp8") == {"fp16": 838e12, "fp32": 419e12}
    assert dense_by_acc("rtx-5090", "fp16") == {"fp16": 419e12, "fp32": 209.5e12}
    assert dense_by_acc("rtx-5090", "bf16") == {"fp32": 209.5e12}
    assert devices.peak("rtx-5090", "fp16").value == 209.5e12  # the safe default is FP32 accumulate
    assert devices.peak("rtx-5090", "fp8").value == 419e12


def test_rtx_4090_matches_the_ada_whitepaper():
    assert dense_by_acc("rtx-4090", "fp16") == {"fp16": 330.3e12, "fp32": 165.2e12}
    assert dense_by_acc("rtx-4090", "fp8") == {"fp16": 660.6e12, "fp32": 330.3e12}


def test_mi300x_checked_in_rocm_documentation():
    for precision, tflops in (("fp16", 1307.4), ("bf16", 1307.4), ("fp8", 2614.9)):
        p = devices.peak("mi300x", precision)
        assert p.value == tflops * 1e12
        assert (p.evidence, p.source, p.checked) == (evidence.DOCUMENTED, "rocm-mi300-arch", "2026-12-01")
    bw = devices.figure("mi300x", "bandwidth")
    assert (bw.value, bw.evidence, bw.source) == (5.3e12, evidence.DOCUMENTED, "rocm-mi300-arch")


# --- evidence labels of figures only relayed by the Week 5 text ------------------------------------------------------
RELAYED = [("h100-sxm", "memory"), ("h100-sxm", "bandwidth"), ("h100-sxm", ("fp32", False)), ("h100-sxm", ("bf16", True)),
           ("h100-sxm", "NVLink bandwidth"), ("h100-sxm", "PCIe Gen5 bandwidth"), ("core-ultra-9-288v", "memory"),
           ("core-ultra-9-288v", ("int8", "chip")), ("core-ultra-9-288v", ("int8", "platform")),
           ("core-ultra-9-288v", "GPU peak TOPS (Int8)"), ("core-ultra-9-288v", "CPU peak TOPS (Int8)")]


def _lookup(key, what):
    if what in ("memory", "bandwidth"):
        return devices.figure(key, what)
    if isinstance(what, tuple):
        prec, x = what
        return next(p for p in devices.peaks(key) if p.precision == prec
                    and (p.sparse is x if isinstance(x, bool) else p.scope == x))
    return devices.extra(key, what)


#: Relayed figures that were later read in a named copy of the vendor's table (issue 21 re-survey, 2026-12-02).
RELAYED_THEN_COPIED = {"h100-sxm": "nvidia-pages-copy"}


@pytest.mark.parametrize("key, what", RELAYED)
def test_relayed_figures_are_not_labelled_documented(key, what):
    # the Week 5 text's relay alone is not a document: such a figure is 미확인 unless a named copy of the vendor's
    # table was read, and then it cites that copy (a public repository, at a commit) and still says what was relayed
    f = _lookup(key, what)
    assert "Week 5 text" in f.conditions and "not opened in this survey" in f.conditions
    if key in RELAYED_THEN_COPIED:
        assert (f.evidence, f.source, f.checked) == (evidence.DOCUMENTED, RELAYED_THEN_COPIED[key], "2026-12-02")
        assert "/blob/" in devices.source(f.source).url and devices.source(f.source).url.startswith("https://github.com/")
    else:
        assert f.evidence == evidence.NOT_VERIFIED
        assert f.checked == "2026-12-01"


def test_no_figure_cites_an_unopened_vendor_page_as_documented():
    for key, field, f in all_figures():
        if f.source in ("nvidia-h100", "intel-ark-288v", "week05-s4"):
            assert f.evidence != evidence.DOCUMENTED, (key, field, f.label)


def test_current_generation_low_precision_peaks():
    # Blackwell B200: DGX B200 "144 petaFLOPS inference" (FP4, with sparsity) for 8 GPUs -> 18 PFLOPS per GPU,
    # dense = half = 9 PFLOPS, twice the dense FP8 (72 / 8 / 2 = 4.5 PFLOPS)
    sp, de = devices.peak("b200", "fp4", sparse=True), devices.peak("b200", "fp4")
    assert (sp.value, de.value) == (18e15, 9e15)
    assert de.value == 2 * devices.peak("b200", "fp8").value
    # the per-GPU sparse figure is the documented DGX total / 8, the dense one its half: both computed
    assert de.evidence == sp.evidence == "분석 계산"
    assert devices.extra("b200", "DGX B200 FP4 peak, sparse (8 GPUs)").evidence == "문서 확인"
    # FP8 is not Hopper-only: the Ada cards have FP8 Tensor Core peaks (L40S 1,466 sparse / 2 = 733 dense)
    assert devices.peak("l40s", "fp8").value == 733e12
    assert devices.peak("rtx-4090", "fp8").value > 0
    # no FP4 on Hopper or Ada
    for key in ("h100-sxm", "h200", "l40s", "rtx-4090"):
        with pytest.raises(ValueError):
            devices.peak(key, "fp4")


def test_figures_read_in_a_named_copy_are_documented():
    # RTX 6000 Ada: the datasheet table copied with its footnotes in a public repository (issue 21 re-survey)
    for f in (devices.figure("rtx-6000-ada", "memory"), devices.figure("rtx-6000-ada", "bandwidth"),
              devices.figure("rtx-6000-ada", "tdp"), devices.peak("rtx-6000-ada", "fp8", sparse=True)):
        assert f.evidence == "문서 확인" and f.source == "rtx6000ada-datasheet-copy" and f.checked == "2026-12-02"
        assert devices.source(f.source).url.startswith("https://github.com/")
    assert devices.peak("rtx-6000-ada", "fp8", sparse=True).value == 1457e12
    assert devices.figure("rtx-6000-ada", "bandwidth").value == 960e9


# Values as the two copies print them (read 2026-12-02): MaoSong2022/MaoSong2022.github.io GPU-specs.mdx (NVIDIA's
# A100/H100/H200 page tables) and atineoSE/coding-model-seeks-gpu gb200_specs.md (Blackwell datasheet, HGX B200).
COPIED = [("h100-sxm", "bandwidth", 3.35e12, "nvidia-pages-copy"), ("h100-sxm", ("bf16", True), 1979e12, "nvidia-pages-copy"),
          ("h100-sxm", ("int8", True), 3958e12, "nvidia-pages-copy"), ("h100-sxm", "tdp", 700, "nvidia-pages-copy"),
          ("h200", "bandwidth", 4.8e12, "nvidia-pages-copy"), ("h200", ("fp8", True), 3958e12, "nvidia-pages-copy"),
          ("a100-80gb", "bandwidth", 2039e9, "nvidia-pages-copy"), ("a100-80gb", ("int8", True), 1248e12, "nvidia-pages-copy"),
          ("a100-80gb", "tdp", 400, "nvidia-pages-copy"), ("b200", "bandwidth", 7.7e12, "blackwell-datasheet-copy"),
          ("b200", "memory", 180 * 2**30, "blackwell-datasheet-copy"), ("b200", ("bf16", True), 4.5e15, "blackwell-datasheet-copy"),
          ("b200", "tdp", 1000, "blackwell-datasheet-copy"), ("b200", "NVLink 5 bandwidth", 1.8e12, "blackwell-datasheet-copy")]


@pytest.mark.parametrize("key, what, value, source", COPIED)
def test_figures_read_in_a_copy_of_nvidia_tables_are_documented(key, what, value, source):
    f = devices.figure(key, what) if what in ("memory", "bandwidth", "tdp") else _lookup(key, what)
    assert (f.value, f.evidence, f.source, f.checked) == (value, "문서 확인", source, "2026-12-02")
    url = devices.source(source).url
    assert url.startswith("https://github.com/") and "/blob/" in url and len(url.split("/blob/")[1].split("/")[0]) == 40


def test_what_the_copies_do_not_print_stays_unverified():
    # H100 PCIe's memory is only in the blog post's preliminary column, and B200's physical 192 GB is in no NVIDIA
    # table read
    for f in (devices.figure("h100-pcie", "memory"), devices.extra("b200", "Physical HBM3e capacity per GPU"),
              devices.peak("h100-pcie", "bf16", sparse=True)):
        assert f.evidence == "이번 조사에서 미확인"


# As NVIDIA's "NVIDIA Hopper Architecture In-Depth" blog post prints them (a stored capture, read 2026-12-02): Table 3's
# A100 column (SXM4, 40 GB, shipping) and the text's SM counts; the H100 columns of Table 3 are preliminary, unused.
HOPPER_BLOG = [("a100-sxm4-40gb", "bandwidth", 1555e9), ("a100-sxm4-40gb", "tdp", 400),
               ("a100-sxm4-40gb", ("bf16", False), 312e12), ("a100-sxm4-40gb", ("bf16", True), 624e12),
               ("a100-sxm4-40gb", ("tf32", False), 156e12), ("a100-sxm4-40gb", ("int8", True), 1248e12),
               ("a100-sxm4-40gb", ("fp32", False), 19.5e12), ("h100-sxm", "SM count", 132), ("h100-pcie", "SM count", 114)]


@pytest.mark.parametrize("key, what, value", HOPPER_BLOG)
def test_figures_read_in_nvidias_hopper_blog_post_are_documented(key, what, value):
    if what in ("memory", "bandwidth", "tdp"):
        f = devices.figure(key, what)
    elif isinstance(what, tuple):
        f = _lookup(key, what)
    else:
        f = devices.extra(key, what)
    assert (f.value, f.evidence, f.source, f.checked) == (value, "문서 확인", "nvidia-hopper-blog-copy", "2026-12-02")
    assert devices.source(f.source).url == "https://developer.nvidia.com/blog/nvidia-hopper-architecture-in-depth/"


def test_the_a100_40gb_figures_a_page_uses_are_all_documented_now():
    a = devices.entry("a100-sxm4-40gb")
    shown = [a.memory, a.bandwidth, a.tdp, *a.peaks]
    assert all(f.evidence == "문서 확인" for f in shown), [(f.as_published, f.evidence) for f in shown]


def test_peak_conditions_shown_on_the_pages_are_korean():
    # compute-budget shows, per precision and unit, the first sentence of the dense figure's conditions (the sparse
    # one's where no dense figure exists) for H100 SXM; no English stub may lead them
    shown = {}
    for p in devices.peaks("h100-sxm"):
        if p.sparse is not True or (p.precision, p.unit_kind) not in shown:
            shown[p.precision, p.unit_kind] = p
    assert len(shown) == 8
    for p in shown.values():
        first = p.conditions.split(".")[0]
        assert re.search("[가-힣]", first) and not first.startswith(("Dense:", "Non-tensor")), first
