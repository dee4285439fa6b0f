"""Integrity of the spec catalog and the data files beside it."""
import csv
import json
import pathlib
import re

import pytest

import xpucalc as xc
from xpucalc.catalog import devices
from xpucalc import evidence

from _catalog_helpers import all_figures

DATA = pathlib.Path(xc.__file__).parent / "catalog" / "data"
KEYS = ["h100-sxm", "h100-pcie", "h200", "b200", "a100-80gb", "a100-sxm4-40gb", "l40s", "rtx-6000-ada", "rtx-4090",
        "rtx-5090", "mi300x", "apple-m3-ultra", "tpu-v5e", "core-ultra-9-288v", "virtual-a", "virtual-b"]
UNITS = {"B", "B/s", "W", "FLOP/s", "OP/s", "count"}
DATE = re.compile(r"^20\d\d-\d\d-\d\d$")


def test_every_device_of_the_sources_is_there():
    assert devices.keys() == KEYS


@pytest.mark.parametrize("key, field, fig", list(all_figures()), ids=lambda v: v if isinstance(v, str) else "")
def test_every_figure_is_complete(key, field, fig):
    where = f"{key}.{field}"
    assert fig["unit"] in UNITS, where
    assert fig["evidence"] in evidence.LABELS, where
    assert DATE.match(fig["checked"]), where
    assert fig["source"] in devices.catalog()["sources"], where
    assert fig.get("conditions"), where
    if fig["value"] is None:
        assert fig["evidence"] in evidence.EMPTY_LABELS, where
    else:
        assert isinstance(fig["value"], (int, float)) and fig["value"] > 0, where


def test_peaks_carry_their_identity():
    for key in KEYS:
        for p in devices.peaks(key):
            assert p["precision"] in devices.PRECISIONS
            # True / False, or None when the vendor does not state it (then the conditions must say so)
            assert p["sparse"] in (True, False, None), key
            if p["sparse"] is None:
                assert "not stated" in p["conditions"], key
            assert p["scope"] in ("chip", "board", "platform", "pod")
            assert p["unit"] == ("OP/s" if p["precision"].startswith("int") else "FLOP/s")


def test_sources_have_titles_and_dates():
    for sid, s in devices.catalog()["sources"].items():
        assert s["title"] and DATE.match(s["checked"]), sid


@pytest.mark.parametrize("key, precision, tflops", [
    ("h100-sxm", "bf16", 989.4), ("tpu-v5e", "bf16", 197), ("a100-80gb", "bf16", 312),
    ("virtual-a", "bf16", 200), ("virtual-b", "bf16", 100),
])
def test_known_dense_peaks(key, precision, tflops):
    assert devices.get(key, precision).peak_flops == pytest.approx(tflops * 1e12)


def test_sparse_is_double_dense_for_h100():
    sparse = devices.peak("h100-sxm", "bf16", sparse=True)["value"]
    dense = devices.peak("h100-sxm", "bf16")["value"]
    assert sparse == pytest.approx(1979e12)
    assert sparse / dense == pytest.approx(2, rel=1e-3)
    d = devices.get("h100-sxm", "bf16", sparse=True)
    assert d.sparse and d.peak_flops == pytest.approx(1979e12)


def test_corrected_figures_of_the_design():
    # §7.1: Google's table gives 819 GB/s for TPU v5e
    assert devices.figure("tpu-v5e", "bandwidth")["value"] == pytest.approx(819e9)
    # §7.6: M3 Ultra up to 512 GB unified memory (binary DRAM: 512 x 2**30 bytes)
    assert devices.figure("apple-m3-ultra", "memory")["value"] == 512 * 1024**3
    # §7.8: B200 180 GB usable (binary, 180 x 2**30); RTX 4090 FP16 330 only with FP16 accumulation, 165 with FP32
    assert devices.figure("b200", "memory")["value"] == 180 * 1024**3
    fp16 = [p for p in devices.peaks("rtx-4090") if p["precision"] == "fp16" and not p["sparse"]]
    by_acc = {p["accumulate"]: p["value"] for p in fp16}
    assert by_acc["fp16"] == pytest.approx(330.3e12, rel=1e-3)
    assert by_acc["fp32"] == pytest.approx(165.2e12, rel=1e-3)
    assert devices.peak("rtx-4090", "fp16")["accumulate"] == "fp32"  # the safe default


def test_unpublished_npu_bandwidth_is_an_error_not_a_number():
    assert devices.figure("core-ultra-9-288v", "bandwidth")["evidence"] == evidence.NOT_PUBLISHED
    with pytest.raises(ValueError, match="bandwidth"):
        devices.get("core-ultra-9-288v", "int8", unstated_sparsity="dense")
    d = devices.get("core-ultra-9-288v", "int8", bandwidth=100e9, unstated_sparsity="dense")
    assert d.peak_flops == pytest.approx(48e12) and d.sparsity_assumed


def test_catalog_errors():
    with pytest.raises(KeyError, match="known keys"):
        devices.get("h1000")
    with pytest.raises(ValueError, match="precision"):
        devices.get("h100-sxm", "fp12")
    with pytest.raises(ValueError, match="available"):
        devices.get("core-ultra-9-288v", "bf16", unstated_sparsity="dense")


def test_spec_table_renders_from_catalog():
    t = devices.spec_table(["h100-sxm", "tpu-v5e"], ("bf16",))
    assert len(t.rows) == 3  # H100 dense + sparse, TPU dense
    assert "sparse (2:4)" in t.column("dense/sparse")


def test_memory_and_interconnect_tables_parse():
    mem = json.loads((DATA / "memory_types.json").read_text(encoding="utf-8"))
    names = {r["name"] for r in mem["rows"]}
    for n in ("HBM3e", "HBM3", "HBM2e", "GDDR7", "GDDR6X", "GDDR6", "DDR5", "DDR4"):
        assert any(n in x for x in names), n
    ic = json.loads((DATA / "interconnects.json").read_text(encoding="utf-8"))
    gens = {r["gen"]: r for r in ic["pcie"]}
    assert sorted(gens) == [3, 4, 5, 6]
    # Gen5: 32 GT/s x 128/130 / 8 = 3.938 GB/s per lane one way; x16 = 63.0 GB/s
    assert gens[5]["lane_bytes_per_s_one_way"] == pytest.approx(32e9 * 128 / 130 / 8)


def test_reference_runs_csv():
    rows = list(csv.DictReader((DATA / "reference_runs.csv").open(encoding="utf-8")))
    assert len(rows) == 16
    a100 = [r for r in rows if r["device_key"] == "a100-sxm4-40gb"]
    assert len(a100) == 8
    r = next(r for r in a100 if r["path"] == "eager" and r["precision"] == "bf16" and r["m"] == "128")
    assert float(r["device_ms"]) == 0.0625 and float(r["with_transfer_ms"]) == 0.2410
