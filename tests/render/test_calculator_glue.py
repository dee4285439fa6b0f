"""xpucalc.render.calc_forms and xpucalc.render.calculators: what the in-page calculators read and show.

The page runs ``calculators.run`` in Pyodide; these tests run the same function in CPython. Golden values of
the roofline come from hand arithmetic; the serving and memo calculators must show exactly what
``xpucalc.llm.serve`` and ``xpucalc.llm.memo`` return for the same inputs (the glue computes nothing).
Bad input gives a Korean message on the field to fix, never an exception.
"""
from __future__ import annotations

import json
import random
import re

import pytest

from xpucalc.llm import models, serve
from xpucalc.llm.memo import memo
from xpucalc.render import calc_forms, calculators
from xpucalc.render.calc_forms import Field, FormError, parse, read
from xpucalc.render.memo_view import memo_markdown
from xpucalc.units import fmt_bytes, fmt_num, fmt_time

HANGUL = re.compile(r"[\uac00-\ud7a3]")
CALCS = list(calculators.TITLES)


def run(calc: str, **values) -> dict:
    raw = calc_forms.defaults(list(calculators.fields(calc)))
    raw.update({k: str(v) for k, v in values.items()})
    return calculators.run(calc, raw)


def shown(result: dict) -> dict[str, str]:
    return {r["key"]: r["text"] for r in result["rows"]}


def values(result: dict) -> dict[str, float]:
    return {r["key"]: r["value"] for r in result["rows"]}


# ---------------------------------------------------------------- reading the form
def test_read_turns_text_into_si_values_and_refuses_bad_text_in_korean():
    f = Field("peak", "P", unit="TFLOP/s", scale=1e12)
    assert read(f, " 1,000 ") == 1e15 and read(f, "2.5e-1") == 0.25e12
    for bad, words in (("", "값을 적으세요"), ("abc", "숫자로"), ("nan", "숫자로"), ("inf", "숫자로"), ("0", "0보다 큰"),
                       ("-3", "0보다 큰")):
        with pytest.raises(FormError) as exc:
            read(f, bad)
        assert exc.value.field == "peak" and words in exc.value.message, bad
    n = Field("tp", "TP", "int")
    assert read(n, "8") == 8 and read(n, "8.0") == 8
    for bad in ("0", "2.5", "-1"):
        with pytest.raises(FormError, match="1 이상의 정수"):
            read(n, bad)
    s = Field("mode", "작업", "select", "a", options=(("a", "A"), ("b", "B")))
    with pytest.raises(FormError, match="목록에 있는 값"):
        read(s, "c")
    assert read(Field("tp", "TP", "int", optional=True), "  ") is None


def test_parse_skips_hidden_fields_and_reads_missing_keys_as_defaults():
    fields = [Field("mode", "작업", "select", "a", options=(("a", "A"), ("b", "B"))),
              Field("x", "X", default="1", when=("mode", ("a",))), Field("y", "Y", default="2", when=("mode", ("b",)))]
    assert parse(fields, {}) == ({"mode": "a", "x": 1.0}, {})
    assert parse(fields, {"mode": "b", "x": "junk"}) == ({"mode": "b", "y": 2.0}, {})
    assert parse(fields, {"mode": "a", "x": "junk"})[1] == {"x": "숫자로 적으세요(예: 1024, 2.5, 1e12). 받은 값: 'junk'"}


def test_a_field_refuses_a_default_outside_its_options_and_an_unknown_kind():
    with pytest.raises(ValueError, match="default"):
        Field("m", "M", "select", "z", options=(("a", "A"),))
    with pytest.raises(ValueError, match="kind"):
        Field("m", "M", "date")


@pytest.mark.parametrize("calc", CALCS)
def test_the_form_html_has_a_label_and_an_error_slot_for_every_field(calc):
    html = calculators.calculator_html(calc)
    fields = calculators.fields(calc)
    ids = re.findall(r'\bid="([^"]+)"', html)
    assert len(ids) == len(set(ids)), "duplicate ids"
    for f in fields:
        assert f'<label for="xc-{calc}-{f.name}">' in html and f'id="xc-{calc}-{f.name}-err"' in html
        if f.when:
            assert f'data-field="{f.name}" data-when="{f.when[0]}=' in html
    assert html.startswith(f'<div class="xpu-calc" data-calc="{calc}"><details') and "<script" not in html


@pytest.mark.parametrize("calc", CALCS)
def test_the_default_form_computes_without_errors(calc):
    r = run(calc)
    assert r["errors"] == {} and r["rows"] and HANGUL.search(r["verdict"])
    json.dumps(r)  # the page receives it as JSON


def test_an_unknown_calculator_is_refused():
    with pytest.raises(ValueError, match="calc must be one of"):
        calculators.fields("nope")


# ---------------------------------------------------------------- roofline: golden values by hand
def test_roofline_of_workload_1_on_virtual_device_a_matches_the_hand_computation():
    # A: 200 TFLOP/s, 1 TB/s (catalog); F = 1e12 FLOP, Q = 100 GB -> F/P = 5 ms, Q/BW = 100 ms, memory-bound,
    # ridge 200 FLOP/B, attainable 1 TB/s x 10 FLOP/B = 10 TFLOP/s = 5 % of the peak.
    r = run("roofline")
    v = values(r)
    assert v["compute_time"] == pytest.approx(5e-3) and v["memory_time"] == pytest.approx(0.1)
    assert v["ridge"] == pytest.approx(200) and v["attainable"] == pytest.approx(10e12)
    assert v["intensity"] == pytest.approx(10) and v["share"] == pytest.approx(0.05)
    assert shown(r)["bound"] == "대역폭 한계" and shown(r)["time"] == "100 ms"
    assert r["plot"]["peak"] == pytest.approx(200e12) and r["plot"]["bandwidth"] == pytest.approx(1e12)


def test_roofline_of_a_linear_layer_on_a_custom_device_matches_the_hand_computation():
    # M=128, K=N=1024, 2 B: F = 2*128*1024*1024 = 268,435,456 FLOP; Q = 2*(128*1024 + 1024*1024 + 1024 + 128*1024)
    # = 2,623,488 B; P = 100 TFLOP/s, BW = 2 TB/s: F/P = 2.684 us > Q/BW = 1.312 us -> compute-bound, ridge 50.
    r = run("roofline", device="custom", peak="100", bandwidth="2", mode="mkn", m="128", k="1024", n="1024",
            dtype_bytes="2")
    v = values(r)
    assert v["flops"] == 268_435_456 and v["bytes"] == 2_623_488
    assert v["compute_time"] == pytest.approx(2.68435456e-6) and v["memory_time"] == pytest.approx(1.311744e-6)
    assert v["ridge"] == pytest.approx(50) and v["attainable"] == pytest.approx(1e14)
    assert shown(r)["bound"] == "연산 한계" and shown(r)["compute_time"] == fmt_time(2.68435456e-6)


def test_roofline_refuses_a_precision_the_device_does_not_publish_on_the_precision_field():
    r = run("roofline", device="virtual-a", precision="fp8")
    assert list(r["errors"]) == ["precision"] and "BF16" in r["errors"]["precision"] and r["rows"] == []
    # the custom device's P and BW are read, the catalog's precision is not
    assert run("roofline", device="custom", precision="fp8", peak="1", bandwidth="1")["errors"] == {}


# ---------------------------------------------------------------- serving: exactly what serve() returns
SERVE_CASES = [
    dict(model="llama-3-70b", device="h100-sxm", tp=8, pp=1, dp=1, ep=1, batch=16, context=4096, w=2, kv=2),
    dict(model="llama-3-70b", device="h100-sxm", tp=2, pp=1, dp=3, ep=1, batch=400, context=8192, w=2, kv=2),
    dict(model="llama-3.1-405b", device="h200", tp=8, pp=2, dp=1, ep=1, batch=8, context=4096, w=1, kv=1),
    dict(model="mixtral-8x7b", device="mi300x", tp=2, pp=1, dp=2, ep=4, batch=32, context=2048, w=2, kv=2),
    dict(model="llama-3-8b", device="apple-m3-ultra", tp=1, pp=1, dp=1, ep=1, batch=1, context=1024, w=0.5, kv=2),
]


@pytest.mark.parametrize("case", SERVE_CASES, ids=lambda c: f"{c['model']}-{c['device']}")
def test_serving_shows_what_serve_returns(case):
    c = dict(case)
    w, kv = c.pop("w"), c.pop("kv")
    r = run("serving", **c, weight_bytes=f"{w:g}", kv_bytes=f"{kv:g}")
    model, device = c.pop("model"), c.pop("device")
    ref = serve(models.get(model), device, **c, weight_bytes=w, kv_bytes=kv)
    v, s = values(r), shown(r)
    assert r["errors"] == {}
    assert v["weights"] == ref.memory.weights and v["kv_cache"] == ref.memory.kv_cache
    assert v["usable"] == ref.memory.usable and v["free"] == ref.memory.free
    assert v["max_batch"] == ref.max_batch and s["max_batch"] == f"{ref.max_batch:,}"
    assert v["per_request"] == ref.decode_tokens_per_s_per_request
    assert v["total"] == ref.decode_tokens_per_s_total and v["prefill"] == ref.prefill_s
    assert s["fits"].startswith("들어갑니다" if ref.fits else "들어가지 않습니다")
    assert fmt_bytes(ref.memory.weights) in s["fits"] and s["per_request"] == \
        f"{fmt_num(ref.decode_tokens_per_s_per_request, 2)} 토큰/s"
    assert all(HANGUL.search(n) for n in r["notes"])
    if ref.prefill_s is None:
        assert "미공개" in s["prefill"]


def test_serving_reads_a_pasted_config_as_the_catalog_model():
    cfg = json.dumps(models.config("llama-3-8b"))
    a = values(run("serving", model="config", config=cfg, tp=1, batch=4))
    b = values(run("serving", model="llama-3-8b", tp=1, batch=4))
    assert a == b


@pytest.mark.parametrize("inputs, field, words", [
    (dict(tp=3), "tp", "가능한 값: 1, 2, 4, 8"),
    (dict(pp=81), "pp", "층 수 80"),
    (dict(ep=2), "ep", "MoE"),
    (dict(model="mixtral-8x7b", tp=1, ep=3), "ep", "가능한 값: 1, 2, 4, 8"),
    (dict(batch="0"), "batch", "1 이상의 정수"),
    (dict(context="4k"), "context", "숫자로"),
    (dict(model="config", config="{oops"), "config", "JSON"),
    (dict(model="config", config='{"hidden_size": 4096}'), "config", "Llama"),
])
def test_serving_puts_a_korean_message_on_the_field_to_fix(inputs, field, words):
    r = run("serving", **inputs)
    assert list(r["errors"]) == [field] and words in r["errors"][field] and r["rows"] == []
    assert HANGUL.search(r["errors"][field]) and "Traceback" not in r["errors"][field]


# ---------------------------------------------------------------- memo: lab 03's memo, as Markdown to copy
def test_memo_is_lab_03s_memo_for_the_same_inputs():
    r = run("memo", model="llama-3-70b", gpu="h100-sxm", n_gpus=4, nvlink="true", seq_len=8192, batch=8,
            interconnect="NVLink", bottleneck="KV 캐시")
    ref = memo(model="llama-3-70b", gpu="h100-sxm", n_gpus=4, nvlink=True, seq_len=8192, batch=8, bytes_per_param=2.0,
               kv_bytes=2.0, mfu=0.4, goal="serving", priority="latency", interconnect="NVLink", bottleneck="KV 캐시")
    assert r["copy"] == memo_markdown(ref) and r["verdict"] == ref.verdict
    assert r["rows"][0]["label"] == "모델" and "[분석 계산]" in r["rows"][0]["text"]


def test_memo_puts_its_own_korean_errors_on_the_field():
    r = run("memo", goal="training")
    assert list(r["errors"]) == ["train_tokens"] and "학습 토큰" in r["errors"]["train_tokens"]
    r = run("memo", interconnect="NVLink 4")          # nvlink is "아니요"
    assert list(r["errors"]) == ["interconnect"]
    r = run("memo", goal="training", train_tokens="15000", n_gpus="64")
    assert r["errors"] == {} and "학습 시간" in " ".join(x["label"] for x in r["rows"])


# ---------------------------------------------------------------- never raises
@pytest.mark.parametrize("calc", CALCS)
def test_run_never_raises_and_every_message_is_korean(calc):
    rng = random.Random(24)
    junk = ["", " ", "abc", "-1", "0", "1e400", "nan", "3.5", "1,024", "9" * 30, "{", "한글", "<b>x</b>"]
    fields = calculators.fields(calc)
    for _ in range(150):
        raw = calc_forms.defaults(list(fields))
        for f in rng.sample(fields, k=rng.randint(1, 3)):
            raw[f.name] = rng.choice(junk + [v for v, _ in f.options])
        out = calculators.run(calc, raw)
        assert bool(out["errors"]) != bool(out["rows"]), raw
        for msg in out["errors"].values():
            assert HANGUL.search(msg) and "Traceback" not in msg, (raw, msg)


def test_run_json_is_run_through_json():
    raw = {"device": "custom", "peak": "50", "bandwidth": "0.5"}
    assert json.loads(calculators.run_json("roofline", json.dumps(raw))) == calculators.run("roofline", raw)
