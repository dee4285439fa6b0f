"""xpucalc.llm.hardware: one device lookup for serve and the memo, each figure a literal typed from the catalog.

Catalog figures are copied from xpucalc/catalog/data/devices.json (NVIDIA H100 SXM datasheet: 80 GiB HBM3,
3.35 TB/s, 989.4 TFLOP/s BF16/FP16 dense with FP32 accumulate, 1,979 TFLOP/s FP8 dense, NVLink 900 GB/s both
directions, PCIe Gen5 128 GB/s both directions). Nothing here is computed with the function under test.
"""
import pytest

from xpucalc.core.device import Device
from xpucalc.llm import hardware
from xpucalc.llm.hardware import Hardware, MissingFigureError, resolve

H100_MEM = 85899345920.0          # 80 GiB = 80 * 2**30 bytes
H100_BW = 3.35e12                 # 3.35 TB/s
H100_BF16 = 989.4e12              # BF16 dense, FP32 accumulate
H100_FP8 = 1979e12                # FP8 dense
H100_LINK = 900e9 / 2             # NVLink 900 GB/s counts both directions
H100_HOST = 128e9 / 2             # PCIe Gen5 x16 128 GB/s both directions
PCIE4_X16 = 31.5076923076923e9    # Gen4: 16 GT/s x 16 lanes x 128/130 / 8 bits = 31.50769... GB/s one way
NVLINK_LABEL = "NVLink bandwidth ÷ 2 (NVIDIA adds both directions)"
ASSUMED_LABEL = "PCIe Gen4 x16 one way (assumed: no link in the catalog)"


def test_resolve_h100_catalog_fields():
    h = hardware.resolve("h100-sxm")
    assert h.name == "NVIDIA H100 SXM"
    assert h.memory == H100_MEM and h.bandwidth == H100_BW
    assert h.peak_flops == H100_BF16
    assert (h.peak_precision, h.peak_accumulate) == ("bf16", "fp32")
    assert h.peak_label == "BF16 dense, FP32 accumulate"
    assert h.link_bandwidth == H100_LINK and h.link_label == NVLINK_LABEL
    assert h.host_link_bandwidth == H100_HOST and h.host_link_label == "PCIe Gen5 x16"
    assert h.host_link_assumed is False
    assert h.key == "h100-sxm" and h.from_catalog is True


def test_resolve_precision_choice():
    assert hardware.resolve("h100-sxm", weight_bytes=1).peak_flops == H100_FP8          # 1-byte weights: FP8
    assert hardware.resolve("h100-sxm", weight_bytes=1).peak_precision == "fp8"
    assert hardware.resolve("h100-sxm", weight_bytes=1.5).peak_precision == "bf16"
    assert resolve("h100-sxm", "bf16", 1).peak_flops == H100_BF16                       # a named precision wins
    assert hardware.resolve("h100-sxm", "fp16").peak_precision == "fp16"
    assert hardware.resolve("h100-sxm", "tf32").peak_flops == 494.5e12                  # TF32 dense
    # A100 publishes no FP8: a named precision it lacks falls back to BF16 (312 TFLOP/s dense)
    a = hardware.resolve("a100-80gb", "fp8")
    assert (a.peak_flops, a.peak_precision) == (312e12, "bf16")
    assert hardware.resolve("a100-80gb", weight_bytes=1).peak_precision == "bf16"


def test_a_precision_the_device_lacks_falls_back_and_says_so():
    # the RTX 4090 publishes no BF16 tensor rate; FP16 with FP32 accumulate is 165.2 TFLOP/s dense
    h = resolve("rtx-4090", "bf16")
    assert h.peak_flops == 165.2e12 and h.peak_label == "FP16 dense, FP32 accumulate"


def test_resolve_falls_back_to_fp16_and_label_without_accumulate():
    # RTX 6000 Ada: no BF16 in the catalog, FP16 dense 364.25 TFLOP/s with no accumulate stated
    h = hardware.resolve("rtx-6000-ada")
    assert (h.peak_flops, h.peak_precision, h.peak_accumulate) == (364.25e12, "fp16", None)
    assert h.peak_label == "FP16 dense"
    # and no link of any kind: Gen4 x16 is assumed for both
    assert h.link_label == ASSUMED_LABEL and h.host_link_label == "PCIe Gen4 x16"
    assert h.host_link_assumed is True
    assert h.link_bandwidth == pytest.approx(PCIE4_X16, rel=1e-9)
    assert h.host_link_bandwidth == pytest.approx(PCIE4_X16, rel=1e-9)


def test_resolve_device_without_peak():
    h = hardware.resolve("apple-m3-ultra")           # Apple publishes no FP16/FP32 TFLOP/s
    assert h.peak_flops is None and h.peak_precision is None and h.peak_accumulate is None
    assert h.peak_label == "미공개 (no dense peak in the catalog)"
    assert h.memory == 549755813888 and h.bandwidth == 819e9     # 512 GiB, 819 GB/s
    assert h.from_catalog is True
    # no link in the catalog: PCIe Gen4 x16 assumed, 16 lanes x 16 GT/s x 128/130 / 8 = 31.51 GB/s one way
    assert h.link_bandwidth == pytest.approx(16 * 16e9 * 128 / 130 / 8) and h.host_link_assumed


def test_resolve_links():
    l40s = hardware.resolve("l40s")                  # PCIe Gen4 x16 64 GB/s both ways, no NVLink
    assert l40s.link_bandwidth == 32e9 and l40s.link_label == "PCIe Gen4 x16 ÷ 2 (both directions added)"
    assert (l40s.host_link_bandwidth, l40s.host_link_label, l40s.host_link_assumed) == (32e9, "PCIe Gen4 x16", False)
    pcie = hardware.resolve("h100-pcie")             # only an NVLink *bridge*: the PCIe Gen5 link
    assert pcie.link_bandwidth == 64e9 and pcie.link_label == "PCIe Gen5 x16 ÷ 2 (both directions added)"
    b200 = hardware.resolve("b200")                  # NVLink 5 1.8 TB/s both directions, no PCIe figure
    assert b200.link_bandwidth == 900e9
    assert b200.link_label == "NVLink 5 bandwidth ÷ 2 (NVIDIA adds both directions)"
    assert b200.host_link_assumed is True and b200.host_link_label == "PCIe Gen4 x16"
    a100 = hardware.resolve("a100-80gb")             # NVLink 600 GB/s, PCIe Gen4 64 GB/s
    assert a100.link_bandwidth == 300e9 and a100.host_link_bandwidth == 32e9
    assert a100.host_link_label == "PCIe Gen4 x16"


def test_link_functions_without_key():
    bw, label, assumed = hardware.host_link(None)
    assert bw == pytest.approx(PCIE4_X16, rel=1e-9) and label == "PCIe Gen4 x16" and assumed is True
    bw, label = hardware.device_link(None)
    assert bw == pytest.approx(PCIE4_X16, rel=1e-9) and label == ASSUMED_LABEL


def test_resolve_overrides_on_catalog_key():
    h = hardware.resolve("h100-sxm", memory=40e9)
    assert h.memory == 40e9 and h.bandwidth == H100_BW and h.peak_flops == H100_BF16
    assert h.peak_precision == "bf16" and h.from_catalog is False
    h = hardware.resolve("h100-sxm", bandwidth=1e12)
    assert h.bandwidth == 1e12 and h.memory == H100_MEM and h.from_catalog is False
    h = hardware.resolve("h100-sxm", peak_flops=5e14)
    assert (h.peak_flops, h.peak_precision, h.peak_accumulate) == (5e14, None, None)
    assert h.peak_label == "given dense peak" and h.from_catalog is False
    assert h.link_bandwidth == H100_LINK and h.key == "h100-sxm"


def test_resolve_catalog_entry_without_bandwidth():
    with pytest.raises(MissingFigureError, match=r"^bandwidth: the catalog has no memory bandwidth for "
                                                 r"core-ultra-9-288v; pass bandwidth=\.\.\. \(bytes/s\)$") as e:
        hardware.resolve("core-ultra-9-288v")      # the NPU entry has no memory bandwidth
    assert e.value.argument == "bandwidth" and isinstance(e.value, ValueError)
    h = hardware.resolve("core-ultra-9-288v", bandwidth=120e9)
    assert h.bandwidth == 120e9 and h.memory == 34359738368 and h.from_catalog is False
    assert h.peak_flops is None                     # only INT8 TOPS, no BF16/FP16


def test_overrides_and_hand_typed_devices():
    h = resolve("h100-sxm", bandwidth=2e12)
    assert h.bandwidth == 2e12 and h.memory == 80 * 2**30 and not h.from_catalog
    h = resolve(None, memory=16e9, bandwidth=500e9, name="my GPU")
    assert (h.name, h.memory, h.bandwidth, h.peak_flops, h.key) == ("my GPU", 16e9, 500e9, None, None)
    with pytest.raises(ValueError, match="memory is required"):
        resolve(None, bandwidth=500e9)
    with pytest.raises(ValueError, match="memory is unknown"):
        resolve(Device("x", 1e14, 1e12))
    d = resolve(Device("x", 1e14, 1e12, 8e9))
    assert (d.peak_flops, d.memory, d.peak_label) == (1e14, 8e9, "given dense peak")
    assert resolve(h) is h
    p = resolve(h, peak_flops=5e13)
    assert isinstance(p, Hardware) and p.peak_flops == 5e13 and p.memory == 16e9
    with pytest.raises(ValueError, match="catalog key"):
        resolve(3)


def test_resolve_by_hand():
    with pytest.raises(MissingFigureError, match="memory is required") as e:
        hardware.resolve(None, bandwidth=1e12)
    assert e.value.argument == "memory"
    with pytest.raises(MissingFigureError, match="bandwidth is required") as e:
        hardware.resolve(None, memory=1e10)
    assert e.value.argument == "bandwidth"
    h = hardware.resolve(None, memory=1e10, bandwidth=1e12)
    assert h.name == "hand-entered device" and h.peak_flops is None and h.key is None
    assert h.from_catalog is False and h.peak_precision is None and h.host_link_assumed is True
    assert h.link_label == ASSUMED_LABEL and h.host_link_label == "PCIe Gen4 x16"
    assert h.link_bandwidth == pytest.approx(PCIE4_X16, rel=1e-9)
    assert h.host_link_bandwidth == pytest.approx(PCIE4_X16, rel=1e-9)
    h = hardware.resolve(None, memory=1e10, bandwidth=1e12, peak_flops=2e14, name="mine")
    assert (h.name, h.memory, h.bandwidth, h.peak_flops) == ("mine", 1e10, 1e12, 2e14)
    assert h.peak_label == "given dense peak"
    with pytest.raises(ValueError, match="memory"):
        hardware.resolve(None, memory=0, bandwidth=1e12)
    with pytest.raises(ValueError, match="peak_flops"):
        hardware.resolve("h100-sxm", peak_flops=-1.0)


def test_resolve_hardware_passthrough_and_override():
    h = hardware.resolve("h100-sxm")
    assert hardware.resolve(h) is h
    b = hardware.resolve(h, bandwidth=2e12)
    assert b.bandwidth == 2e12 and b.memory == H100_MEM and b.from_catalog is False
    assert (b.peak_flops, b.peak_precision, b.peak_accumulate) == (H100_BF16, "bf16", "fp32")
    p = hardware.resolve(h, peak_flops=1e14)
    assert (p.peak_flops, p.peak_precision, p.peak_accumulate) == (1e14, None, None)
    assert p.bandwidth == H100_BW and p.from_catalog is False


def test_resolve_device_object():
    d = Device(name="Mine", peak_flops=1e15, bandwidth=2e12, memory=4e10, precision="bf16", key="h100-sxm")
    h = hardware.resolve(d)
    assert (h.name, h.memory, h.bandwidth, h.peak_flops) == ("Mine", 4e10, 2e12, 1e15)
    assert h.peak_precision == "bf16" and h.peak_accumulate is None and h.from_catalog is False
    assert h.key == "h100-sxm" and h.link_bandwidth == H100_LINK and h.host_link_bandwidth == H100_HOST
    assert h.link_label == NVLINK_LABEL and h.host_link_label == "PCIe Gen5 x16" and h.host_link_assumed is False
    assert isinstance(h.memory, float) and isinstance(h.bandwidth, float)
    o = hardware.resolve(d, memory=1e10, bandwidth=1e11, peak_flops=3e14)
    assert (o.memory, o.bandwidth, o.peak_flops, o.peak_precision) == (1e10, 1e11, 3e14, None)
    sparse = Device(name="S", peak_flops=1e15, bandwidth=2e12, memory=4e10, precision="bf16", sparse=True)
    with pytest.raises(ValueError, match=r"^device 'S' carries a sparse \(2:4\) peak_flops, .*pass device\.dense\(\)"):
        hardware.resolve(sparse)                                    # a sparse peak is not a dense peak
    assert hardware.resolve(sparse.dense()).peak_flops == 5e14     # the conversion the message names
    assert hardware.resolve(sparse, peak_flops=4e14).peak_flops == 4e14
    n = hardware.resolve(Device(name="N", peak_flops=1e15, bandwidth=2e12, memory=4e10, precision=""))
    assert n.peak_precision is None and n.peak_flops == 1e15
    with pytest.raises(MissingFigureError, match=r"^NoMem: memory is unknown; create the Device with memory= "
                                                 r"\(bytes\) or pass memory=$") as e:
        hardware.resolve(Device(name="NoMem", peak_flops=1e15, bandwidth=2e12))
    assert e.value.argument == "memory"
    assert hardware.resolve(Device(name="NoMem", peak_flops=1e15, bandwidth=2e12), memory=8e9).memory == 8e9


def test_resolve_rejects_other_types():
    with pytest.raises(ValueError, match="device must be a catalog key .*, got int$"):
        hardware.resolve(42)


def test_resolve_catalog_entries_without_memory_on_a_fake_catalog(monkeypatch):
    from _catalog_helpers import FAKE_DEVICES, use_data

    use_data(monkeypatch, "devices.json", FAKE_DEVICES)
    # Chip Z publishes a bandwidth (1 TB/s) and a BF16 peak but no memory figure at all
    with pytest.raises(MissingFigureError, match=r"^memory: the catalog has no memory capacity for z; "
                                                 r"pass memory=\.\.\. \(bytes\)$") as e:
        hardware.resolve("z")
    assert e.value.argument == "memory"
    h = hardware.resolve("z", memory=8e9)
    assert (h.memory, h.bandwidth, h.peak_flops, h.from_catalog) == (8e9, 1e12, 4e14, False)
    # Chip Y has both figures, each unpublished (value None): memory is asked first, then bandwidth
    with pytest.raises(MissingFigureError, match=r"^memory: ") as e:
        hardware.resolve("y")
    assert e.value.argument == "memory"
    with pytest.raises(MissingFigureError, match=r"^bandwidth: the catalog has no memory bandwidth for y; ") as e:
        hardware.resolve("y", memory=1e9)
    assert e.value.argument == "bandwidth"


def test_unknown_precision_and_figures_in_gb_are_refused():
    import pytest
    from xpucalc import Device
    from xpucalc.llm import hardware
    for bad in ("fp3", "bf8"):   # fp4 is a catalog precision (Blackwell)
        with pytest.raises(ValueError, match=rf"^precision '{bad}' is not a precision of the catalog .*peak_flops="):
            hardware.resolve("h100-sxm", bad)
    with pytest.raises(ValueError, match=r"names are lower case: precision='fp8'"):
        hardware.resolve("h100-sxm", "FP8")
    with pytest.raises(ValueError, match=r"^memory=80 looks like GB; .*pass 80e9"):
        hardware.resolve("h100-sxm", memory=80)
    with pytest.raises(ValueError, match=r"^bandwidth=3350 looks like GB/s"):
        hardware.resolve(None, memory=80e9, bandwidth=3350)
    with pytest.raises(ValueError, match=r"^peak_flops=989 looks like TFLOP/s"):
        hardware.resolve("h100-sxm", peak_flops=989)
    with pytest.raises(ValueError, match=r"^memory=80.0 looks like GB"):
        hardware.resolve(Device("mine", 1e15, 3e12, memory=80))
