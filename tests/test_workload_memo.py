"""xpucalc.workload_memo: the 'my workload' memo (expected values worked by hand)."""
import pytest

from xpucalc import devices
from xpucalc.workload_memo import MemoInputError, WorkloadInputs, estimate, memo, resolve_hardware

LLAMA2_7B = dict(layers=32, kv_heads=32, head_dim=128)
LLAMA3_70B = dict(layers=80, kv_heads=8, head_dim=128)


def test_7b_serving_on_one_rtx4090_fits():
    r = memo(n_params=7e9, gpu="rtx-4090", seq_len=4096, batch=1, **LLAMA2_7B)
    # weights 14e9 x 1.2 = 16.8e9; KV 2 x 32 x 4096 x 32 x 128 x 2 = 2,147,483,648 -> 18,947,483,648 B
    assert r.error is None and r.fits
    assert r.needed_bytes == pytest.approx(18_947_483_648)
    assert r.total_memory == devices.figure("rtx-4090", "memory")["value"]
    # decode bound: bandwidth / (14e9 + 2.147e9)
    bw = devices.figure("rtx-4090", "bandwidth")["value"]
    assert r.decode_tokens_per_s == pytest.approx(bw / 16_147_483_648)


def test_70b_serving_on_8_h100_fits_and_critical_batch():
    r = memo(n_params=70e9, gpu="h100-sxm", n_gpus=8, nvlink=True, seq_len=4096, batch=32, **LLAMA3_70B)
    # 140e9 x 1.2 + KV 2 x 80 x 4096 x 8 x 128 x 2 x 32 = 42,949,672,960 -> 210,949,672,960 B vs 640e9
    assert r.fits
    assert r.needed_bytes == pytest.approx(210_949_672_960)
    assert r.total_memory == pytest.approx(640e9)
    assert "295" in str(r)  # 989.4e12 x 2 / (2 x 3.35e12) = 295.3


def test_7b_full_finetune_on_one_a100_does_not_fit_and_says_what_would():
    r = memo(n_params=7e9, gpu="a100-80gb", goal="full_ft", train_tokens=10e9, mfu=0.5)
    assert r.fits is False
    assert r.needed_bytes == pytest.approx(140e9)  # 20 B x 7e9
    text = str(r)
    assert "최소 2개" in text           # ceil(140 / 80) = 2
    assert "LoRA" in text
    # 6 x 7e9 x 10e9 / (312e12 x 0.5) = 2,692,308 s
    assert r.train_time_s == pytest.approx(2_692_307.7, rel=1e-6)


def test_serving_too_big_suggests_lower_precision():
    # 13B FP16 on one 24 GB card: 26e9 x 1.2 = 31.2e9 > 24e9; at 1 byte: 15.6e9 fits
    r = memo(n_params=13e9, gpu="rtx-4090")
    assert not r.fits
    assert "FP8/INT8" in str(r)


def test_hand_entered_gpu():
    r = memo(n_params=7e9, gpu_name="내 GPU", gpu_memory=16e9, bandwidth=500e9, peak_flops=100e12)
    assert r.fits is False  # 16.8e9 > 16e9
    assert "INT8" in str(r)
    hw = resolve_hardware(WorkloadInputs(n_params=7e9, gpu="h100-sxm", bandwidth=2e12))
    assert hw.bandwidth == 2e12  # an override wins over the catalog


def test_report_renders_as_korean_table():
    r = memo(n_params=7e9, gpu="h100-sxm")
    html = r._repr_html_()
    assert "<table" in html and "항목" in html and "메모리 판정" in html
    assert "| 항목 | 값 | 근거 |" in r._repr_markdown_()


# --- bad inputs: a Korean message naming the argument, never a traceback from memo() ---------------------
@pytest.mark.parametrize("kwargs, argument", [
    (dict(n_params=7e9, gpu="h100-sxm", n_gpus=0), "n_gpus"),
    (dict(n_params=7e9, gpu="h100-sxm", mfu=1.5), "mfu"),
    (dict(n_params=7e9, gpu="h100-sxm", mfu=40), "mfu"),
    (dict(n_params=7e9, gpu="h1000"), "gpu"),
    (dict(n_params=0, gpu="h100-sxm"), "n_params"),
    (dict(n_params=7e9, gpu="h100-sxm", goal="pretrain"), "goal"),
    (dict(n_params=7e9, gpu="h100-sxm", bytes_per_param=float("nan")), "bytes_per_param"),
    (dict(n_params=7e9, gpu="h100-sxm", goal="training"), "train_tokens"),
    (dict(n_params=7e9, gpu_memory=24e9), "bandwidth"),
    (dict(n_params=7e9, gpu="h100-sxm", layers=80), "layers"),
    (dict(n_params=7e9, gpu="h100-sxm", batch=2.5), "batch"),
    (dict(n_params=7e9, gpu="h100-sxm", gpus=8), "gpus"),
    (dict(gpu="h100-sxm"), "n_params"),
])
def test_bad_input_message_names_argument(kwargs, argument):
    r = memo(**kwargs)
    assert r.error is not None
    assert r.error.startswith(argument + ":")
    assert "입력 오류" in str(r) and "입력 오류" in r._repr_html_()
    if "n_params" in kwargs and set(kwargs) <= {f for f in WorkloadInputs.__dataclass_fields__}:
        with pytest.raises(MemoInputError, match=argument):
            estimate(WorkloadInputs(**kwargs))


def test_unknown_key_lists_keys():
    r = memo(n_params=7e9, gpu="h1000")
    for k in devices.keys():
        assert k in r.error


def test_catalog_device_without_peak_asks_for_a_value():
    r = memo(n_params=7e9, gpu="apple-m3-ultra")
    assert r.error is not None and r.error.startswith("peak_flops:")
    ok = memo(n_params=7e9, gpu="apple-m3-ultra", peak_flops=28e12)
    assert ok.error is None and ok.fits
