"""Catalog corrections of issue #11: byte capacities, runtime-reported memory, unstated sparsity,
source conflicts, the corrected peaks and the memory-type and interconnect rows.

Golden values are written out by hand (the derivation is in the comment), not read back from the catalog.
"""
import pathlib
import re

import pytest

from xpucalc.catalog import devices, interconnect, memory
from xpucalc import evidence
from xpucalc.core.device import Device

from _catalog_helpers import all_figures

GIB = 2**30
MIB = 2**20
DATE = re.compile(r"^20\d\d-\d\d-\d\d$")
REAL = [k for k in devices.keys() if devices.entry(k)["kind"] != "virtual"]


# --- schema -------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("key, field, fig", list(all_figures()), ids=lambda v: v if isinstance(v, str) else "")
def test_every_figure_has_the_full_schema(key, field, fig):
    for name in ("value", "unit", "as_published", "conditions", "source", "checked", "evidence"):
        assert name in fig, f"{key}.{field} lacks {name}"
    assert fig["evidence"] in evidence.LABELS
    assert DATE.match(fig["checked"])
    assert fig["source"] in devices.catalog()["sources"]
    if fig.get("conflicts_with") is not None:  # a main field or the label of another extra of the same device
        labels = {f["label"] for f in devices.entry(key).get("extra", [])} - {fig.get("label")}
        assert fig["conflicts_with"] in {"memory", "bandwidth", "tdp"} | labels


def test_every_memory_says_whether_it_is_binary():
    for key in devices.keys():
        m = devices.figure(key, "memory")
        assert isinstance(m["binary"], bool), key
        # every real device has DRAM (HBM, GDDR, LPDDR) whose capacity is binary; the virtual devices are decimal
        assert m["binary"] is (key in REAL), key
        if m["binary"]:
            assert m["value"] % GIB == 0, key
            assert "GiB" in m["conditions"] or "Binary" in m["conditions"], key


# --- capacities as the bytes the vendor means ---------------------------------------------------------------------
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
    assert devices.figure(key, "memory")["value"] == n_bytes
    if key not in ("core-ultra-9-288v", "apple-m3-ultra"):  # no published bandwidth / no published peak
        assert devices.get(key, "fp16" if key not in ("virtual-a", "tpu-v5e") else "bf16").memory == n_bytes


def test_h100_binary_capacity_is_7_percent_above_decimal():
    mem = devices.get("h100-sxm").memory
    assert mem == 80 * 2**30
    assert mem / 80e9 == pytest.approx(1.073741824)


def test_b200_usable_and_physical_stay_separate():
    usable = devices.figure("b200", "memory")
    physical = devices.extra("b200", "Physical HBM3e capacity per GPU")
    assert usable["value"] == 180 * 2**30 and physical["value"] == 192 * 2**30
    assert "usable" in usable["conditions"].lower()
    # the DGX total is 8 usable GPUs
    assert devices.extra("b200", "DGX B200 total GPU memory (8 GPUs)")["value"] == 8 * usable["value"]


@pytest.mark.parametrize("key, mib, source", [
    ("h100-sxm", 81_559, "nccl-1264"),
    ("h200", 143_771, "cuda-samples-311"),
    ("b200", 183_359, "trtllm-10278"),
    ("rtx-4090", 24_564, "rlinf-255"),
])
def test_runtime_reported_memory(key, mib, source):
    rt = devices.runtime_memory(key)
    assert rt["value"] == mib * 2**20
    assert rt["source"] == source and rt["source"] in devices.catalog()["sources"]
    assert rt["checked"] == "2026-12-01" and rt["evidence"] == evidence.MEASURED
    # second reading of the same number: the printed string
    assert int(rt["as_reported"].replace(" MiB", "").replace(",", "")) == mib


def test_runtime_reports_are_below_the_capacity():
    seen = 0
    for key in devices.keys():
        rt = devices.runtime_memory(key)
        if rt is None:
            continue
        seen += 1
        cap = devices.figure(key, "memory")["value"]
        assert 0.9 * cap < rt["value"] <= cap, key  # drivers keep up to a few percent; never more than the capacity
        assert rt["source"] in devices.catalog()["sources"] and DATE.match(rt["checked"])
    assert seen >= 4
    assert devices.runtime_memory("mi300x") is None  # no public source found: nothing stored


# --- unknown sparsity ----------------------------------------------------------------------------------------------
def test_npu_peaks_store_sparsity_as_unknown():
    for p in devices.peaks("core-ultra-9-288v"):
        assert p["sparse"] is None


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
    assert as_printed["value"] == 48e12
    d = devices.get("core-ultra-9-288v", "int8", bandwidth=136.5e9, unstated_sparsity="dense")
    assert (d.peak_flops, d.sparse, d.sparsity_assumed) == (48e12, False, True)
    s = devices.get("core-ultra-9-288v", "int8", sparse=True, bandwidth=136.5e9, unstated_sparsity="sparse")
    assert s.sparse and s.sparsity_assumed
    assert s.dense().peak_flops == 24e12 and s.dense().sparsity_assumed  # the reading stays visible
    # a stated figure is not affected by the argument
    h = devices.get("h100-sxm", "bf16", unstated_sparsity="dense")
    assert h.peak_flops == 989.4e12 and not h.sparsity_assumed


def test_device_default_is_not_assumed():
    assert Device("x", 1e12, 1e12).sparsity_assumed is False


# --- source conflicts ----------------------------------------------------------------------------------------------
def test_tpu_v5e_bandwidth_conflict():
    (c,) = devices.conflicts("tpu-v5e", "bandwidth")
    assert devices.figure("tpu-v5e", "bandwidth")["value"] == 819e9
    assert c["value"] == 800 * 2**30 == 858_993_459_200  # 800 GiB/s


def test_b200_bandwidth_conflict_uses_the_hgx_figure():
    bw = devices.figure("b200", "bandwidth")
    (c,) = devices.conflicts("b200", "bandwidth")
    assert bw["value"] == 7.7e12 and "HGX B200" in bw["conditions"]
    assert c["value"] == 64e12 / 8 == 8e12  # DGX B200 64 TB/s over 8 GPUs
    assert devices.get("b200").bandwidth == 7.7e12
    assert devices.figure("b200", "bandwidth")["source"] in devices.catalog()["sources"]


def test_conflicts_are_real_disagreements():
    n = 0
    for key in devices.keys():
        for field in ("memory", "bandwidth", "tdp"):
            for c in devices.conflicts(key, field):
                n += 1
                assert c["value"] != devices.figure(key, field)["value"]
                assert c["unit"] == devices.figure(key, field)["unit"]
    assert n == 2
    assert devices.conflicts("h100-sxm", "bandwidth") == []
    with pytest.raises(ValueError, match="field"):
        devices.conflicts("b200", "peak")
    with pytest.raises(KeyError, match="known keys"):
        devices.conflicts("tpu-v9", "bandwidth")


ICI = "ICI bandwidth per chip (bidirectional)"


def test_conflict_of_an_extra_figure_by_its_label():
    ici = devices.extra("tpu-v5e", ICI)
    (c,) = devices.conflicts("tpu-v5e", ICI)
    # Google's current table: '400 GBps'; another revision: '1600 Gbps' = 1,600 x 10^9 bit/s / 8 bit per byte
    # = 200 x 10^9 B/s, half of 400 GB/s.
    assert ici["value"] == 400_000_000_000
    assert c["value"] == 200_000_000_000
    assert ici["value"] / c["value"] == 2
    assert c["as_published"] == "Interchip Interconnect BW 1600 Gbps"
    assert c["unit"] == ici["unit"] == "B/s" and c["evidence"] == "문서 확인"
    # the conflicting figure names a source of its own (not the revision that prints 400 GBps)
    assert c["source"] == "gcloud-tpu-v5e-ici-rev" != ici["source"]
    assert devices.source(c["source"])["url"].startswith("https://cloud.google.com/tpu/docs/v5e")


def test_conflicts_live_only_in_devices_json():
    # one mechanism: every conflict is an extra of the same device whose conflicts_with names a main field or
    # another extra's label of that device; there is no second conflicts file.
    assert not (pathlib.Path(devices.__file__).parent / "data" / "source_conflicts.json").exists()
    found = []
    for key in devices.keys():
        e = devices.entry(key)
        labels = {f["label"] for f in e.get("extra", [])}
        for f in e.get("extra", []):
            if "conflicts_with" in f:
                assert f["conflicts_with"] in {"memory", "bandwidth", "tdp"} | labels, (key, f["label"])
                assert f["conflicts_with"] != f["label"]
                assert f in devices.conflicts(key, f["conflicts_with"])
                found.append((key, f["conflicts_with"]))
    # TPU v5e HBM (819 GBps vs 800 GiBps), B200 HBM (7.7 vs 8 TB/s), TPU v5e ICI (400 GBps vs 1600 Gbps)
    assert sorted(found) == [("b200", "bandwidth"), ("tpu-v5e", ICI), ("tpu-v5e", "bandwidth")]


def test_tpu_v5e_capacity_label_of_each_revision():
    mem = devices.figure("tpu-v5e", "memory")
    assert mem["value"] == 16 * 2**30 == 17_179_869_184 and mem["binary"] is True
    # the HTML revisions print '16 GB'; the Markdown export prints '16 GiB' (same bytes: evidence, not a conflict)
    assert mem["as_published"] == "16 GB"
    md = devices.extra("tpu-v5e", "HBM capacity label '16 GiB' (Markdown export)")
    assert md["as_published"] == "16 GiB" and md["value"] == 17_179_869_184
    assert "conflicts_with" not in md and devices.conflicts("tpu-v5e", "memory") == []
    assert "16 GiB" in mem["conditions"] and "both revisions" not in mem["conditions"]


# --- notes shown to readers ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("key", devices.keys())
def test_notes_are_short_and_in_the_books_register(key):
    note = devices.entry(key)["notes_ko"]
    assert 0 < len(note) <= 260, (key, len(note))
    # 합니다체: every sentence ends in -니다 (a closing parenthesis may follow the ending)
    for sentence in re.split(r"(?<=[.])\s+", note.strip()):
        assert re.search(r"니다\.\)?$|니다\)\.$", sentence), (key, sentence)
    assert "TFLOPS" not in note and "TFLOPs" not in note, key  # unit spelling: TFLOP/s (integer rates: TOPS)


def test_tpu_v5e_note_leaves_the_819_800_story_to_its_section():
    note = devices.entry("tpu-v5e")["notes_ko"]
    assert not re.search(r"819|800|GiB", note)


# --- corrected peaks -----------------------------------------------------------------------------------------------
def dense_by_acc(key, precision):
    return {p["accumulate"]: p["value"] for p in devices.peaks(key) if p["precision"] == precision and p["sparse"] is False}


def test_rtx_6000_ada_has_its_own_figures_not_the_l40s_ones():
    # datasheet: 1,457.0 TFLOPS FP8 with sparsity -> 728.5 dense -> FP16 dense 364.25 (printed 364.2)
    assert devices.peak("rtx-6000-ada", "fp8", sparse=True)["value"] == 1457.0e12
    assert devices.peak("rtx-6000-ada", "fp8")["value"] == 728.5e12
    assert devices.peak("rtx-6000-ada", "fp16")["value"] == pytest.approx(364.2e12, rel=2e-4)
    assert devices.peak("rtx-6000-ada", "fp16")["value"] != devices.peak("l40s", "fp16")["value"]


def test_rtx_5090_accumulate_rates():
    assert dense_by_acc("rtx-5090", "fp8") == {"fp16": 838e12, "fp32": 419e12}
    assert dense_by_acc("rtx-5090", "fp16") == {"fp16": 419e12, "fp32": 209.5e12}
    assert dense_by_acc("rtx-5090", "bf16") == {"fp32": 209.5e12}
    assert devices.peak("rtx-5090", "fp16")["value"] == 209.5e12  # the safe default is FP32 accumulate
    assert devices.peak("rtx-5090", "fp8")["value"] == 419e12


def test_rtx_4090_matches_the_ada_whitepaper():
    assert dense_by_acc("rtx-4090", "fp16") == {"fp16": 330.3e12, "fp32": 165.2e12}
    assert dense_by_acc("rtx-4090", "fp8") == {"fp16": 660.6e12, "fp32": 330.3e12}


def test_mi300x_checked_in_rocm_documentation():
    for precision, tflops in (("fp16", 1307.4), ("bf16", 1307.4), ("fp8", 2614.9)):
        p = devices.peak("mi300x", precision)
        assert p["value"] == tflops * 1e12
        assert (p["evidence"], p["source"], p["checked"]) == (evidence.DOCUMENTED, "rocm-mi300-arch", "2026-12-01")
    bw = devices.figure("mi300x", "bandwidth")
    assert (bw["value"], bw["evidence"], bw["source"]) == (5.3e12, evidence.DOCUMENTED, "rocm-mi300-arch")


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
        return next(p for p in devices.peaks(key) if p["precision"] == prec
                    and (p["sparse"] is x if isinstance(x, bool) else p["scope"] == x))
    return devices.extra(key, what)


@pytest.mark.parametrize("key, what", RELAYED)
def test_relayed_figures_are_not_labelled_documented(key, what):
    f = _lookup(key, what)
    assert f["evidence"] == evidence.NOT_VERIFIED
    assert "Week 5 text" in f["conditions"] and "not opened in this survey" in f["conditions"]
    assert f["checked"] == "2026-12-01"


def test_no_figure_cites_an_unopened_vendor_page_as_documented():
    for key, field, f in all_figures():
        if f["source"] in ("nvidia-h100", "intel-ark-288v", "week05-s4"):
            assert f["evidence"] != evidence.DOCUMENTED, (key, field, f.get("label"))


# --- memory types --------------------------------------------------------------------------------------------------
def test_transfer_bandwidth_by_hand():
    assert memory.transfer_bandwidth(8533, 128) == 8533e6 * 128 / 8 == 136.528e9  # LPDDR5X-8533, 128-bit
    assert memory.transfer_bandwidth(6400, 1024) == 819.2e9                       # LPDDR5-6400, 1024-bit
    assert memory.transfer_bandwidth(21000, 384) == 1008e9                        # GDDR6X 21 Gb/s, 384-bit
    with pytest.raises(ValueError, match="bus_width_bits"):
        memory.transfer_bandwidth(6400, 12.5)
    with pytest.raises(ValueError, match="transfer_rate_mt_s"):
        memory.transfer_bandwidth(0, 128)


def test_lpddr_rows_are_separate_and_hold_their_examples():
    assert memory.bandwidth("lpddr5x") == pytest.approx(136.5e9, rel=1e-3)
    lo, hi = memory.bandwidth_range("lpddr5x")
    assert lo <= memory.transfer_bandwidth(8533, 128) <= hi
    assert memory.example_devices("lpddr5x") == ["core-ultra-9-288v"]
    assert memory.bandwidth("lpddr5") == 819.2e9
    assert memory.example_devices("lpddr5") == ["apple-m3-ultra"]


def test_gddr6_representative_is_one_of_its_examples():
    computed = [e["bandwidth"] for e in memory.examples("gddr6")]
    assert sorted(computed) == [864e9, 960e9]        # 18 and 20 Gb/s on 384 bits
    assert memory.bandwidth("gddr6") in computed
    assert memory.bandwidth("gddr6") != 700e9          # the glossary's figure fits neither card
    assert memory.bandwidth_range("gddr6") == (864e9, 960e9)  # the range spans the two computed examples


def test_computed_examples_reproduce_the_device_bandwidths():
    checked = 0
    for key in memory.keys():
        lo, hi = memory.bandwidth_range(key)
        assert lo <= memory.bandwidth(key) <= hi, key
        for e in memory.examples(key):
            if "bandwidth" not in e or not e.get("device"):
                continue
            dev_bw = devices.figure(e["device"], "bandwidth")["value"]
            if dev_bw is None:   # the NPU: no published figure to compare with
                continue
            checked += 1
            assert e["bandwidth"] == pytest.approx(dev_bw, rel=1e-3), (key, e["device"])
    assert checked == 5  # 5090, 4090, L40S, RTX 6000 Ada, M3 Ultra


def test_device_memory_types_match_the_rows_that_list_them():
    for key in memory.keys():
        for dev in memory.example_devices(key):
            row_name = memory.row(key)["name"].split(" ")[0]
            dev_type = devices.figure(dev, "memory")["memory_type"].split(" ")[0]
            assert dev_type == row_name, (key, dev)


def test_m3_ultra_is_lpddr5_819_gbs_512_gib_everywhere():
    m = devices.figure("apple-m3-ultra", "memory")
    assert m["memory_type"].startswith("LPDDR5 ") and m["value"] == 512 * 2**30
    assert devices.figure("apple-m3-ultra", "bandwidth")["value"] == 819e9
    assert "apple-m3-ultra" not in memory.example_devices("lpddr5x")


# --- interconnect rows ---------------------------------------------------------------------------------------------
def test_new_interconnect_rows():
    assert interconnect.one_way("infiniband-xdr") == 800e9 / 8        # 800 Gb/s per port
    assert interconnect.link("infiniband-xdr")["bandwidth_both_ways"] == 2 * 100e9
    assert interconnect.one_way("infiniband-xdr") == 2 * interconnect.one_way("infiniband-ndr")
    nv3 = interconnect.link("nvlink3")
    assert nv3["bandwidth_both_ways"] == devices.extra("a100-80gb", "NVLink bandwidth")["value"] == 600e9
    assert nv3["bandwidth_one_way"] == 300e9
    for r in interconnect.links():
        assert r["source"] in interconnect._data()["sources"], r["key"]
