"""xpucalc.llm.memo: the 'my workload' memo's figures, rows, suggestions and errors (expected values by hand).

``said(r)`` is every row, suggestion and message the llm layer writes; the parallelism suggestion of the scalar
path is a decision (``r.plan``), worded by xpucalc.render (tests/render/test_memo_view.py checks the whole text).
"""
import pytest

from xpucalc.catalog import devices
from xpucalc.llm import models, serve
from xpucalc.llm.hardware import resolve
from xpucalc.llm.memo import MemoInputError, WorkloadInputs, estimate, memo, resolve_hardware

LLAMA2_7B = dict(layers=32, kv_heads=32, head_dim=128)
H100_MEM = devices.figure("h100-sxm", "memory").value
H100_BW = devices.figure("h100-sxm", "bandwidth").value


def said(r) -> str:
    """Every row, suggestion and message of a report as one text (the llm layer's words)."""
    cells = [c for row in r.rows + r.context_rows for c in row]
    return "\n".join(cells + r.suggestions + r.messages + [r.verdict])


# --- scalar rules (n_params only) --------------------------------------------------------------------------------
def test_7b_serving_on_one_rtx4090_fits_scalar_path():
    r = memo(n_params=7e9, gpu="rtx-4090", seq_len=4096, batch=1, **LLAMA2_7B)
    # weights 14e9 x 1.2 = 16.8e9; KV 2 x 32 x 4096 x 32 x 128 x 2 = 2,147,483,648 -> 18,947,483,648 B
    assert r.error is None and r.fits
    assert r.needed_bytes == pytest.approx(18_947_483_648)
    assert r.total_memory == devices.figure("rtx-4090", "memory").value
    bw = devices.figure("rtx-4090", "bandwidth").value
    assert r.decode_tokens_per_s == pytest.approx(bw / 16_147_483_648)
    assert r.decode_tokens_per_s_per_request == pytest.approx(bw / 16_147_483_648)


def test_ddp_copies_do_not_add_bandwidth_for_one_request():
    # 7B on 16 H100s: each GPU holds a copy; one request sees ONE GPU's bandwidth (issue: 3,829 was 16 x 239)
    r = memo(n_params=7e9, gpu="h100-sxm", n_gpus=16, nvlink=True, **LLAMA2_7B)
    one = H100_BW / (14e9 + 2_147_483_648)
    assert r.decode_tokens_per_s_per_request == pytest.approx(one)
    assert r.decode_tokens_per_s == pytest.approx(16 * one)  # 16 copies, one request each
    # serving: independent copies, not DDP (no gradients); the words are checked in tests/render/test_memo_view.py
    assert (r.plan.layout, r.plan.goal, r.plan.dp) == ("replicas", "serving", 16)


def test_serving_too_big_suggests_lower_precision():
    r = memo(n_params=13e9, gpu="rtx-4090")
    assert not r.fits
    assert "FP8/INT8" in said(r)


def test_hand_entered_gpu():
    r = memo(n_params=7e9, gpu_name="내 GPU", gpu_memory=16e9, bandwidth=500e9, peak_flops=100e12)
    assert r.fits is False  # 16.8e9 > 16e9
    assert "INT8" in said(r)
    hw = resolve_hardware(WorkloadInputs(n_params=7e9, gpu="h100-sxm", bandwidth=2e12))
    assert hw.bandwidth == 2e12  # an override wins over the catalog


def test_7b_full_finetune_on_one_a100_does_not_fit_and_says_what_would():
    r = memo(n_params=7e9, gpu="a100-80gb", goal="full_ft", train_tokens=10e9, mfu=0.5)
    assert r.fits is False
    assert r.needed_bytes == pytest.approx(140e9)  # 20 B x 7e9
    text = said(r)
    assert "최소 2개" in text           # ceil(140 / 85.9) = 2
    assert "LoRA" in text
    # 6 x 7e9 x 10e9 / (312e12 x 0.5) = 2,692,308 s
    assert r.train_time_s == pytest.approx(2_692_307.7, rel=1e-6)


# --- a model of the catalog: serve() layouts --------------------------------------------------------------------
def test_model_key_405b_on_16_h100_runs_stages_in_turn():
    r = memo(model="llama-3.1-405b", gpu="h100-sxm", n_gpus=16, nvlink=True, gpus_per_node=8)
    s = r.serving
    assert r.fits and (s.tp, s.pp, s.dp) == (8, 2, 1)
    # per GPU 811.7e9 / 16 B + KV; two stages in turn: 2 x (50.7e9 + KV/16)/3.35e12 + all-reduces ~ 33 ms, not 16 ms
    m = models.get("llama-3.1-405b")
    # weights read: 811,706,777,600 B less the input embedding 128,256 x 16,384 x 2 = 4,202,692,608 B plus one row
    # of 32,768 B = 807,504,117,760 B; KV 4,096 x 516,096 B; all over 16 GPUs
    mem_s = (807_504_117_760 + 4096 * 516_096) / 16 / H100_BW
    # the stage-to-stage hop: the catalog's fixed cost for NVLink at TP 8 (11.8 us, vLLM's custom all-reduce on
    # H100) + 16384 x 2 B over 450e9 B/s one way
    assert s.decode.step_s == pytest.approx(2 * mem_s + s.decode.comm_s + 11.8e-6 + 16384 * 2 / 450e9, rel=1e-6)
    # 2 x 15.10 ms of reads + 2 stages x 63 layers x 2 all-reduces x 11.86 us = 2.99 ms + one hop: 33.2 ms, 30.1 tok/s
    assert m.n_params == 405_853_388_800
    assert 29.5 < r.decode_tokens_per_s_per_request < 30.5


def test_405b_bf16_on_8_h100_does_not_fit_and_suggests_fp8_and_16_gpus():
    r = memo(model="llama-3.1-405b", gpu="h100-sxm", n_gpus=8, nvlink=True, system_ram=2e12)
    assert r.fits is False
    text = said(r)
    assert "FP8" in text and "16장" in text and "오프로드" in text


def test_mixtral_reads_only_the_routed_experts():
    r = memo(model="mixtral-8x7b", gpu="h100-sxm", n_gpus=2, nvlink=True)
    m = models.get("mixtral-8x7b")
    # batch 1: 12,879,925,248 active x 2 B less the input embedding (262,144,000 B) plus one row (8,192 B), + KV
    # 536,870,912 B, split over 2 GPUs: 3.886 ms; 32 layers x 2 all-reduces x (8.7 us at TP 2 + 0.02 us) = 0.558 ms
    # on top: 4.444 ms, about 225 tok/s (not 71)
    assert m.n_active_params == 12_879_925_248
    mem_s = (25_497_714_688 + 536_870_912) / 2 / H100_BW
    assert r.serving.decode.step_s == pytest.approx(mem_s + r.serving.decode.comm_s, rel=1e-9)
    assert 222 < r.decode_tokens_per_s_per_request < 228


def test_kv_short_suggests_fp8_kv():
    # 8B at 32K, batch 20 on one H100: KV 20 x 32768 x 131072 B = 85.9 GB > 77.3 - 16.1; FP8 KV halves it
    r = memo(model="llama-3-8b", gpu="h100-sxm", seq_len=32768, batch=20)
    assert not r.fits
    assert any("KV 캐시를 FP8" in s for s in r.suggestions)


def test_m3_ultra_without_peak_still_decodes():
    r = memo(model="llama-3-8b", gpu="apple-m3-ultra")
    assert r.error is None and r.fits
    bw = devices.figure("apple-m3-ultra", "bandwidth").value
    m = models.get("llama-3-8b")
    # 15,009,857,536 B of weights read (one embedding row, not the table) + 536,870,912 B of KV
    assert r.decode_tokens_per_s_per_request == pytest.approx(bw / (15_009_857_536 + 4096 * 131072))
    assert m.n_params == 8_030_261_248
    assert "프리필" in said(r) and "계산하지 않음" in said(r)
    bad = memo(n_params=7e9, gpu="apple-m3-ultra", goal="full_ft", train_tokens=1e9)
    assert bad.error.argument == "peak_flops" and str(bad.error).startswith("peak_flops: ")


def test_tp_must_divide_heads_and_gpu_count():
    r = memo(model="llama-3-70b", gpu="h100-sxm", n_gpus=3, nvlink=True, tp=3)
    assert r.error.argument == "tp" and "[1, 2, 4, 8]" in r.error.message
    r = memo(model="llama-3-70b", gpu="h100-sxm", n_gpus=12, nvlink=True, bytes_per_param=1)
    assert r.serving.tp in (1, 2, 4) and r.serving.n_devices == 12  # 12 GPUs: TP 4 x 3, never 2 x 8


def test_model_config_dict_and_section13_fields():
    cfg = models.config("llama-3.2-1b")
    r = memo(model=cfg, gpu="rtx-4090", system_ram=64e9, storage="NVMe SSD", storage_bandwidth=7e9,
             interconnect="PCIe", priority="throughput", bottleneck="prefill 대기")
    text = said(r)
    for word in ("시스템 RAM", "스토리지", "연결 방식", "우선순위", "지금의 병목", "prefill 대기"):
        assert word in text


def test_training_with_model_adds_attention():
    r = memo(model="llama-3-8b", gpu="h100-sxm", n_gpus=8, nvlink=True, goal="training", train_tokens=1e12,
             seq_len=8192)
    m = models.get("llama-3-8b")
    # T (6N + 6 L (H hd) s) / (8 x 989.4e12 x 0.4)
    flops = 1e12 * (6 * m.n_params + 6 * 32 * 4096 * 8192)
    assert r.train_time_s == pytest.approx(flops / (8 * 989.4e12 * 0.4))


def test_serve_and_the_memo_see_the_same_device():
    # before the two lookups were one, the memo showed the 4090's FP16 peak while serve found no BF16 peak
    # and skipped prefill; now both use the FP16 dense 165.2 TFLOP/s
    hw = resolve_hardware(WorkloadInputs(model="llama-3-8b", gpu="rtx-4090"))
    r = memo(model="llama-3-8b", gpu="rtx-4090", seq_len=8192)
    assert hw.peak_flops == r.serving.hardware.peak_flops == 165.2e12
    assert r.serving.prefill_s is not None and "FP16 dense, FP32 누산" in said(r)
    # a hand-typed device goes to serve as it is (its overrides are kept)
    r = memo(model="llama-3-8b", gpu="h100-sxm", bandwidth=2e12)
    assert r.serving.hardware.bandwidth == 2e12
    s = serve(models.get("llama-3-8b"), resolve("h100-sxm", bandwidth=2e12))
    assert s.decode.step_s == pytest.approx(r.serving.decode.step_s)


# --- bad input: a report that names the argument -----------------------------------------------------------------
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
    (dict(gpu="h100-sxm"), "model"),
    (dict(model="llama-9", gpu="h100-sxm"), "model"),
    (dict(model={"model_type": "gpt2"}, gpu="h100-sxm"), "model"),
    (dict(model="llama-3-8b", n_params=8e9, gpu="h100-sxm"), "n_params"),
    (dict(model="llama-3-8b", gpu="h100-sxm", priority="fast"), "priority"),
    (dict(model="llama-3-8b", gpu="h100-sxm", n_gpus=8, tp=3), "tp"),
])
def test_bad_input_message_names_argument(kwargs, argument):
    r = memo(**kwargs)
    assert isinstance(r.error, MemoInputError) and r.error.argument == argument
    assert str(r.error) == f"{argument}: {r.error.message}" and r.error.message
    assert r.rows == [] and r.plan is None and r.serving is None
    if set(kwargs) <= set(WorkloadInputs.__dataclass_fields__):
        with pytest.raises(MemoInputError, match="^" + argument) as e:
            estimate(WorkloadInputs(**kwargs))
        assert e.value.argument == argument


def test_unknown_key_lists_keys():
    r = memo(n_params=7e9, gpu="h1000")
    for k in devices.keys():
        assert k in r.error.message


def test_a_figure_missing_from_the_catalog_names_the_argument_to_give():
    # the Core Ultra 9 288V entry has no memory bandwidth: the memo asks for bandwidth=..., not a parse of the text
    r = memo(n_params=1e9, gpu="core-ultra-9-288v")
    assert r.error.argument == "bandwidth"
    assert r.error.message == ("카탈로그의 core-ultra-9-288v에는 이 값이 없습니다(미공개 또는 미확인). "
                               "bandwidth=...으로 출처가 있는 값을 직접 적으세요.")
    assert memo(n_params=1e9, gpu="core-ultra-9-288v", bandwidth=120e9, peak_flops=1e13).error is None


def test_mfu_above_one_is_an_error_everywhere():
    from xpucalc import llm

    with pytest.raises(ValueError, match="MFU"):
        llm.mfu(7e9, 1e6, 8, 312e12)  # 6 x 7e9 x 1e6 / (8 x 312e12) = 16.8
    with pytest.raises(ValueError):
        estimate(WorkloadInputs(n_params=7e9, gpu="h100-sxm", mfu=1.56))


def test_weights_alone_too_big_gets_no_batch_or_kv_advice():
    # 405B BF16 on 8 H100: weights per GPU 811.7e9 / 8 = 101.5 GB > 0.9 x 85.9 GB = 77.3 GB usable, so no batch
    # (not even 1) and no KV precision can fit; the advice must say so, not "reduce the batch to 0"
    r = memo(model="llama-3.1-405b", gpu="h100-sxm", n_gpus=8, nvlink=True)
    assert r.fits is False and r.serving.max_batch == 0
    text = "\n".join(r.suggestions)
    assert "0 이하" not in text and "0까지" not in text
    assert "배치를 줄이거나 KV 캐시를 줄여서는 들어가지 않" in text
    assert "FP8(1바이트)로 두면 들어가고" in text          # the weight-precision remedy is still offered


def test_one_sequence_kv_too_big_says_shorten_the_context():
    # 8B BF16 on one H100 at 1M tokens: KV 1,048,576 x 131,072 B = 137.4 GB > 77.3 - 16.1 GB left; FP8 KV
    # (68.7 GB) would still exceed 61.2 GB, so max batch stays 0 and the advice is the context, not the batch
    r = memo(model="llama-3-8b", gpu="h100-sxm", seq_len=1_048_576, batch=1)
    assert r.fits is False and r.serving.max_batch == 0
    text = "\n".join(r.suggestions)
    assert "0 이하" not in text and "0까지" not in text
    assert "문맥(seq_len)을 줄이세요" in text


def test_batch_too_big_names_the_largest_batch_that_fits():
    # 8B at 32K on one H100: (77,309,411,328 - 16,060,522,496) / (32,768 x 131,072) = 14.26 -> batch 14 fits
    r = memo(model="llama-3-8b", gpu="h100-sxm", seq_len=32768, batch=20)
    assert r.serving.max_batch == 14
    assert any("배치 14까지 들어갑니다" in s for s in r.suggestions)


def test_the_nvlink_choice_reaches_the_estimate():
    with_nv = memo(model="llama-3-70b", gpu="h100-sxm", n_gpus=4, nvlink=True, tp=4)
    without = memo(model="llama-3-70b", gpu="h100-sxm", n_gpus=4, nvlink=False, tp=4)
    assert with_nv.error is None and without.error is None
    assert without.serving.decode.allreduce_s > with_nv.serving.decode.allreduce_s   # PCIe is slower than NVLink
    r = memo(model="llama-3-8b", gpu="rtx-4090", n_gpus=2, nvlink=True)
    assert r.error is not None and r.error.argument == "nvlink" and "nvlink=False" in r.error.message
