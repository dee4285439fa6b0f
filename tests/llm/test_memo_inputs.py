"""xpucalc.llm.memo_inputs: the memo's inputs, each check and the error that names its argument.

Every bad input raises :class:`MemoInputError`, a ValueError carrying ``argument`` (the name to fix) and a Korean
``message`` (how to fix it); the memo itself turns it into a report (tests/llm/test_memo.py).
"""
import pytest

from xpucalc.llm import Model, models
from xpucalc.llm.memo_inputs import GOALS, PRECISION_NAMES, PRIORITIES, MemoInputError, WorkloadInputs, resolve_model


def bad(argument):
    """pytest.raises for a MemoInputError about ``argument`` (its text starts with the name)."""
    return pytest.raises(MemoInputError, match=f"^{argument}: ")


def test_the_error_carries_the_argument_and_the_fix():
    e = MemoInputError("tp", "tp를 고치세요.")
    assert (e.argument, e.message, str(e)) == ("tp", "tp를 고치세요.", "tp: tp를 고치세요.")
    assert isinstance(e, ValueError)


def test_the_vocabularies():
    assert list(GOALS) == ["serving", "lora", "full_ft", "training"]
    assert list(PRIORITIES) == ["latency", "throughput"]
    assert PRECISION_NAMES == {4.0: "FP32", 2.0: "FP16/BF16", 1.0: "FP8/INT8", 0.5: "INT4/NF4"}


def test_defaults_are_a_serving_job_on_one_gpu():
    w = WorkloadInputs(model="llama-3-8b", gpu="h100-sxm")
    assert (w.goal, w.n_gpus, w.bytes_per_param, w.kv_bytes, w.seq_len, w.batch, w.mfu, w.priority) == (
        "serving", 1, 2.0, 2.0, 4096, 1, 0.4, "latency")


def test_counts_and_amounts_name_the_argument_and_what_was_given():
    with bad("n_gpus") as e:
        WorkloadInputs(n_params=7e9, gpu="h100-sxm", n_gpus=0)
    assert e.value.message == "GPU 수 — 1 이상의 정수여야 합니다. 받은 값: 0"
    with bad("batch") as e:
        WorkloadInputs(n_params=7e9, gpu="h100-sxm", batch=2.5)
    assert e.value.message == "배치 크기 — 1 이상의 정수여야 합니다. 받은 값: 2.5"
    with bad("n_params") as e:
        WorkloadInputs(n_params=-1.0, gpu="h100-sxm")
    assert e.value.message == "모델 파라미터 수 — 0보다 커야 합니다. 받은 값: -1.0"
    with bad("kv_bytes") as e:
        WorkloadInputs(n_params=7e9, gpu="h100-sxm", kv_bytes="2")
    assert e.value.message == "KV 원소당 바이트 — 유한한 숫자여야 합니다. 받은 값: '2'"
    with bad("storage_bandwidth"):
        WorkloadInputs(n_params=7e9, gpu="h100-sxm", storage_bandwidth=0)
    with bad("gpu_memory"):
        WorkloadInputs(n_params=7e9, gpu_memory=-1.0, bandwidth=1e12, peak_flops=1e14)


def test_mfu_is_a_fraction():
    with bad("mfu") as e:
        WorkloadInputs(n_params=7e9, gpu="h100-sxm", mfu=40)
    assert "40 %는 0.4로 적습니다" in e.value.message
    with bad("mfu") as e:
        WorkloadInputs(n_params=7e9, gpu="h100-sxm", mfu="0.4")
    assert e.value.message == "MFU는 숫자여야 합니다. 받은 값: '0.4'"
    assert WorkloadInputs(n_params=7e9, gpu="h100-sxm", mfu=1).mfu == 1      # exactly the peak is allowed


def test_layout_inputs():
    with bad("tp") as e:
        WorkloadInputs(model="llama-3-8b", gpu="h100-sxm", n_gpus=4, pp=2)
    assert e.value.message == "pp를 적었다면 tp도 적어야 합니다(TP를 쓰지 않으면 tp=1)."
    # tp x pp = 2 x 2 = 4 does not divide 6 GPUs
    with bad("tp") as e:
        WorkloadInputs(model="llama-3-8b", gpu="h100-sxm", n_gpus=6, tp=2, pp=2)
    assert e.value.message.startswith("tp × pp = 4가 GPU 수 6를 나누어야 합니다")
    # Llama 3 70B: 64 heads, 8 KV heads -> tp in 1, 2, 4, 8
    with bad("tp") as e:
        WorkloadInputs(model="llama-3-70b", gpu="h100-sxm", n_gpus=6, tp=6)
    assert e.value.message.endswith("가능한 값: [1, 2, 4, 8]")
    assert WorkloadInputs(model="llama-3-70b", gpu="h100-sxm", n_gpus=8, tp=4, pp=2).pp == 2


def test_model_hardware_and_goal_inputs():
    with bad("model"):
        WorkloadInputs(gpu="h100-sxm")
    with bad("n_params"):
        WorkloadInputs(model="llama-3-8b", n_params=8e9, gpu="h100-sxm")
    with bad("goal"):
        WorkloadInputs(n_params=7e9, gpu="h100-sxm", goal="pretrain")
    with bad("priority"):
        WorkloadInputs(n_params=7e9, gpu="h100-sxm", priority="fast")
    with bad("train_tokens"):
        WorkloadInputs(n_params=7e9, gpu="h100-sxm", goal="training")
    with bad("layers") as e:
        WorkloadInputs(n_params=7e9, gpu="h100-sxm", layers=32, kv_heads=8)
    assert "layers, kv_heads, head_dim 셋을 모두" in e.value.message
    with bad("gpu") as e:
        WorkloadInputs(n_params=7e9, gpu="h1000")
    assert "h100-sxm" in e.value.message
    # hand-entered hardware: the first figure missing is named
    with bad("bandwidth") as e:
        WorkloadInputs(n_params=7e9, gpu_memory=24e9)
    assert e.value.message.endswith("빠진 항목: bandwidth, peak_flops")
    w = WorkloadInputs(n_params=7e9, gpu_memory=24e9, bandwidth=1e12, peak_flops=1e14)
    assert w.gpu is None


def test_resolve_model():
    m = resolve_model("llama-3-8b")
    assert isinstance(m, Model) and m.n_params == models.get("llama-3-8b").n_params
    assert resolve_model(models.config("llama-3.2-1b")).n_params == models.get("llama-3.2-1b").n_params
    with bad("model") as e:
        resolve_model("llama-9")
    assert "llama-3-8b" in e.value.message and "config.json을 딕셔너리로" in e.value.message
    with bad("model") as e:
        resolve_model({"model_type": "gpt2"})
    assert e.value.message.startswith("config 딕셔너리를 읽지 못했습니다: ")
    with bad("model") as e:
        resolve_model(42)
    assert e.value.message == "카탈로그 키(문자열)나 config.json을 읽은 딕셔너리여야 합니다. 받은 값: 42"


def test_string_flags_unknown_precision_units_and_a_contradicting_interconnect_are_refused():
    import pytest
    from xpucalc.llm.memo_inputs import MemoInputError, WorkloadInputs
    base = dict(model="llama-3-8b", gpu="h100-sxm")
    cases = [(dict(nvlink="False"), "nvlink", "True 또는 False"), (dict(is_moe="True"), "is_moe", "True 또는 False"),
             (dict(precision="fp3"), "precision", "정밀도"), (dict(gpu_memory=80), "gpu_memory", "80e9"),
             (dict(bandwidth=3350), "bandwidth", "3350e9"), (dict(peak_flops=989), "peak_flops", "989e12"),
             (dict(system_ram=512), "system_ram", "512e9"), (dict(storage_bandwidth=7), "storage_bandwidth", "7e9"),
             (dict(interconnect="NVLink"), "interconnect", "nvlink=True"),
             (dict(interconnect="PCIe", nvlink=True), "interconnect", "nvlink=False")]
    for kw, arg, fix in cases:
        with pytest.raises(MemoInputError) as e:
            WorkloadInputs(**{**base, **kw})
        assert e.value.argument == arg and fix in e.value.message, (kw, e.value)
