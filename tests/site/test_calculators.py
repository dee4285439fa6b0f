"""The in-page calculators (``_ext/xpu_calc.py``): xpucalc run by Pyodide in headless Chromium, offline.

Each calculator is opened once on its page, then filled with input sets (random from the catalogs with a fixed
seed, plus edge cases and bad input); for every set each shown figure, label, verdict, assumption and error
message is compared with what ``xpucalc.render.calculators.run`` returns in CPython for the same form values,
and every ``data-value`` (the SI number behind a figure) with CPython's float, exactly. The same session checks
that the runtime loads only when a calculator is opened, that nothing is requested outside the site, the time to
the first result and per recompute, the Korean error next to a bad field, and the page at 390 px.

The site's ``_static/xpucalc.zip`` must be the working tree's package (the page runs the tested code): a stale
site fails ``test_the_site_runs_the_working_trees_xpucalc``; rebuild it.
Timing limits: ``XPU_CALC_LOAD_S`` (default 6 s) and ``XPU_CALC_RECOMPUTE_S`` (default 0.3 s), asserted only when the
machine is not busy with other work (see ``test_first_result_and_recompute_are_fast``); the measured times are
printed (``pytest -s``).
"""
from __future__ import annotations

import json
import os
import pathlib
import random
import statistics
import time
import zipfile

import pytest
from _site import ARTIFACTS, HANGUL, SITE, require_site, unavailable

from xpucalc.catalog import devices
from xpucalc.llm import models
from xpucalc.render import calc_forms, calculators

PAGES = {"roofline": "book/week05/worked-example-1.html", "serving": "book/llm-hardware/roofline-serving.html",
         "memo": "book/llm-hardware/roofline-serving.html"}
LOAD_S = float(os.environ.get("XPU_CALC_LOAD_S", "6"))
RECOMPUTE_S = float(os.environ.get("XPU_CALC_RECOMPUTE_S", "0.3"))
N_RANDOM = 20
PACKAGE = pathlib.Path(calculators.__file__).resolve().parents[1]
TIMES: dict[str, tuple[float, float, float]] = {}   # page -> (first result s, slowest recompute s, contention)


def require_calculators() -> None:
    """Skip (fail under XPU_REQUIRE_SITE=1) when the site was built before the calculators existed."""
    require_site()
    if not (SITE / "_static" / "xpucalc.zip").is_file():
        unavailable("the site has no calculators (_static/xpucalc.zip): rebuild it with `npm ci` done")


def contention(seconds: float = 0.3) -> float:
    """Wall time over CPU time of a busy loop in this process: about 1 on an idle machine, 2 when another process
    takes half the CPU it runs on (the browser is idle while this runs)."""
    w0, c0 = time.perf_counter(), time.process_time()
    while time.process_time() - c0 < seconds:
        sum(range(10_000))
    return (time.perf_counter() - w0) / (time.process_time() - c0)


def options(calc: str, name: str) -> list[str]:
    return [v for v, _ in next(f for f in calculators.fields(calc) if f.name == name).options]


# ---------------------------------------------------------------- input sets: fixed seed, catalogs, edge cases
def roofline_sets(rng: random.Random) -> list[dict]:
    out = [{}, {"device": "virtual-b"}, {"flops": "100"}, {"flops": "20", "bytes": "100", "device": "custom",
                                                             "peak": "200", "bandwidth": "1"},   # at the ridge
           {"mode": "mkn", "m": "1"}, {"mode": "mkn", "m": "65536", "k": "8192", "n": "8192", "dtype_bytes": "4"},
           {"device": "custom", "peak": "1e-3", "bandwidth": "1e3"}, {"flops": "1,000", "bytes": "1e-6"},
           {"device": "h100-pcie", "precision": "fp64"}, {"flops": "abc"}, {"mode": "mkn", "m": "2.5"},
           {"device": "virtual-a", "precision": "int4"}]
    keys = [k for k in options("roofline", "device") if k != calculators.CUSTOM]
    for _ in range(N_RANDOM):
        key = rng.choice(keys)
        s = {"device": key, "precision": rng.choice(calculators.dense_precisions(key))}
        if rng.random() < 0.5:
            s |= {"mode": "mkn", "m": str(rng.choice([1, 8, 64, 128, 1000, 4096])),
                  "k": str(rng.choice([256, 1024, 4096, 12288])), "n": str(rng.choice([256, 1024, 4096, 28672])),
                  "dtype_bytes": rng.choice(["0.5", "1", "2", "4"])}
        else:
            s |= {"mode": "fq", "flops": f"{10 ** rng.uniform(-4, 4):.4g}", "bytes": f"{10 ** rng.uniform(-3, 3):.4g}"}
        out.append(s)
    return out


def serving_sets(rng: random.Random) -> list[dict]:
    out = [{}, {"model": "llama-3.1-405b", "device": "l40s", "tp": "1"},            # does not fit
           {"model": "llama-3-8b", "device": "apple-m3-ultra", "tp": "1"},           # no published peak
           {"model": "llama-3-70b", "pp": "80", "tp": "1", "batch": "1"}, {"context": "131072", "batch": "1"},
           {"model": "mixtral-8x7b", "tp": "2", "ep": "4", "batch": "64"}, {"model": "config", "tp": "1"},
           {"weight_bytes": "0.5", "kv_bytes": "1", "tp": "4", "dp": "4", "batch": "512"},
           {"tp": "3"}, {"ep": "2"}, {"batch": "-1"}, {"model": "config", "config": "{"}]
    for _ in range(N_RANDOM):
        key = rng.choice(models.keys())
        m = models.get(key)
        s = {"model": key, "device": rng.choice(options("serving", "device")), "tp": str(rng.choice(m.valid_tp())),
             "pp": str(rng.choice([1, 1, 2, 4])), "dp": str(rng.choice([1, 2, 4])),
             "batch": str(rng.choice([1, 4, 16, 64, 256])),
             "context": str(rng.choice([512, 2048, 4096, 8192, 32768])), "ep": "1",
             "weight_bytes": rng.choice(options("serving", "weight_bytes")),
             "kv_bytes": rng.choice(options("serving", "kv_bytes"))}
        if m.is_moe:
            s["ep"] = str(rng.choice([1, 2, 4, 8]))
        out.append(s)
    return out


def memo_sets(rng: random.Random) -> list[dict]:
    out = [{}, {"goal": "training", "train_tokens": "15000", "n_gpus": "64", "nvlink": "true"},
           {"goal": "lora", "model": "llama-3-70b"}, {"goal": "full_ft", "model": "llama-3-8b", "n_gpus": "8"},
           {"model": "llama-3-70b", "n_gpus": "8", "tp": "8", "nvlink": "true", "interconnect": "NVLink"},
           {"model": "llama-3.1-405b", "gpu": "l40s", "system_ram": "512", "bottleneck": "메모리"},
           {"priority": "throughput", "n_gpus": "4", "nvlink": "true", "batch": "32"},
           {"goal": "training"}, {"mfu": "40"}, {"tp": "3", "n_gpus": "4"},
           {"interconnect": "PCIe 5", "nvlink": "true"}]
    for _ in range(N_RANDOM):
        n = rng.choice([1, 2, 4, 8])
        s = {"model": rng.choice(models.keys()), "gpu": rng.choice(options("memo", "gpu")), "n_gpus": str(n),
             "nvlink": rng.choice(["true", "false"]) if n > 1 else "false", "goal": rng.choice(list(calculators.GOALS)),
             "seq_len": str(rng.choice([1024, 4096, 8192])), "batch": str(rng.choice([1, 8, 32])),
             "bytes_per_param": rng.choice(options("memo", "bytes_per_param")),
             "priority": rng.choice(["latency", "throughput"]),
             "train_tokens": rng.choice(["", "100", "2000"])}
        if s["gpu"] in ("l40s", "rtx-6000-ada", "rtx-4090", "rtx-5090", "apple-m3-ultra", "tpu-v5e") or n == 1:
            s["nvlink"] = "false"
        out.append(s)
    return out


SETS = {"roofline": roofline_sets, "serving": serving_sets, "memo": memo_sets}


def form_values(calc: str, overrides: dict) -> dict[str, str]:
    """The whole form: its defaults with ``overrides``, so the browser's form and CPython see the same values."""
    return {**calc_forms.defaults(list(calculators.fields(calc))), **overrides}


# ---------------------------------------------------------------- the page side
FILL_AND_READ = """async ([calc, values]) => {
  const root = document.querySelector(`.xpu-calc[data-calc="${calc}"]`);
  const form = root.querySelector("form");
  const before = Number(root.dataset.runs);
  for (const [k, v] of Object.entries(values)) form.elements[k].value = v;
  const t0 = performance.now();
  form.dispatchEvent(new Event("change", { bubbles: true }));
  while (Number(root.dataset.runs) === before) await new Promise((r) => setTimeout(r, 1));
  const ms = performance.now() - t0;
  const errors = {};
  form.querySelectorAll(".xpu-calc-field").forEach((f) => {
    const e = f.querySelector(".xpu-calc-error");
    if (!e.hidden) errors[f.dataset.field] = e.textContent;
  });
  const status = root.querySelector(".xpu-calc-status");
  if (status.classList.contains("xpu-calc-bad")) errors[""] = status.textContent;
  const q = (s) => root.querySelector(s);
  return {
    ms, errors,
    sent: Object.fromEntries([...form.elements].filter((e) => e.name).map((e) => [e.name, e.value])),
    rows: [...root.querySelectorAll(".xpu-calc-out tr")].map((tr) => ({ key: tr.dataset.key,
      label: tr.querySelector("th").textContent, text: tr.querySelector("td").textContent,
      value: tr.dataset.value === undefined ? null : tr.dataset.value })),
    verdict: q(".xpu-calc-verdict") ? q(".xpu-calc-verdict").textContent : "",
    notes: [...root.querySelectorAll(".xpu-calc-notes li")].map((li) => li.textContent),
    copy: q(".xpu-calc-memo") ? q(".xpu-calc-memo").textContent : null,
    plot: !!q("svg.xpu-calc-plot"),
  };
}"""


def open_calculator(page, calc: str) -> float:
    """Click the calculator's box open; seconds until its first result is shown."""
    root = page.locator(f'.xpu-calc[data-calc="{calc}"]')
    require_calculators()
    root.locator("summary").click()
    page.wait_for_function("c => ['ready', 'failed'].includes(document.querySelector(`.xpu-calc[data-calc=\"${c}\"]`)"
                           ".dataset.state)", arg=calc, timeout=60000)
    assert root.get_attribute("data-state") == "ready", root.locator(".xpu-calc-status").inner_text()
    return float(root.get_attribute("data-load-ms")) / 1000


def compare(shown: dict, ref: dict) -> list[str]:
    """Differences between what the page shows and CPython's result for the same values."""
    problems = []
    if shown["errors"] != ref["errors"]:
        problems.append(f"errors {shown['errors']} != {ref['errors']}")
    want_rows = [{"key": r["key"], "label": r["label"], "text": r["text"]} for r in ref["rows"]]
    got_rows = [{k: r[k] for k in ("key", "label", "text")} for r in shown["rows"]]
    if got_rows != want_rows:
        problems.append(f"rows {got_rows} != {want_rows}")
    for got, want in zip(shown["rows"], ref["rows"]):
        if (got["value"] is None) != (want["value"] is None) or \
                (want["value"] is not None and float(got["value"]) != float(want["value"])):
            problems.append(f"{want['key']}: data-value {got['value']} != {want['value']!r}")
    if not ref["errors"]:
        for key in ("verdict", "notes"):
            if shown[key] != ref[key]:
                problems.append(f"{key} {shown[key]!r} != {ref[key]!r}")
        if shown["copy"] != ref.get("copy"):
            problems.append("memo text differs")
        if shown["plot"] != ("plot" in ref):
            problems.append("roofline picture missing or extra")
    return problems


# ---------------------------------------------------------------- tests
def test_the_site_runs_the_working_trees_xpucalc():
    """The zip the pages import is the package these tests import (rebuild the site when it is stale)."""
    require_calculators()
    with zipfile.ZipFile(SITE / "_static" / "xpucalc.zip") as z:
        shipped = {n: z.read(n) for n in z.namelist()}
    assert "xpucalc/render/calculators.py" in shipped and "xpucalc/catalog/data/devices.json" in shipped
    assert not [n for n in shipped if "__pycache__" in n]
    stale = sorted(n for n, data in shipped.items() if (PACKAGE.parent / n).read_bytes() != data)
    missing = sorted(p.relative_to(PACKAGE.parent).as_posix() for p in PACKAGE.rglob("*.py")
                     if "__pycache__" not in p.parts and p.relative_to(PACKAGE.parent).as_posix() not in shipped)
    assert not stale and not missing, \
        f"the site's xpucalc.zip is stale (rebuild the site): changed {stale}, missing {missing}"
    for f in ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json"):
        assert (SITE / "_static" / "pyodide" / f).is_file(), f"runtime file {f} missing: run `npm ci`, then rebuild"


@pytest.mark.parametrize("page_path", sorted(set(PAGES.values())))
def test_calculators_match_cpython_offline(browser, page_path):
    calcs = [c for c, p in PAGES.items() if p == page_path]
    with browser.open(page_path) as (page, log):
        requests: list[str] = []
        page.on("request", lambda r: requests.append(r.url))
        page.wait_for_timeout(300)
        assert not [u for u in requests if "/pyodide/" in u or "xpucalc.zip" in u], "runtime loaded before opening"
        problems, counted, loads, recomputes = [], {}, {}, []
        busy = contention()
        for calc in calcs:
            loads[calc] = open_calculator(page, calc)
            sets = SETS[calc](random.Random(24))
            counted[calc] = len(sets)
            for s in sets:
                values = form_values(calc, s)
                shown = page.evaluate(FILL_AND_READ, [calc, values])
                assert shown["sent"] == values, f"the form did not take {s}"
                ref = calculators.run(calc, values)
                recomputes.append(shown["ms"] / 1000)
                problems += [f"{calc} {s}: {p}" for p in compare(shown, ref)]
        print(f"\n{page_path}: input sets {counted}; first result {loads} s; recompute median "
              f"{statistics.median(recomputes) * 1000:.1f} ms, max {max(recomputes) * 1000:.1f} ms")
        assert not problems, "\n".join(problems[:10])
        assert all(n >= 20 for n in counted.values()), counted
        assert not log.external and not log.failed, f"outside or failed requests: {log.external} {log.failed}"
        assert not log.console_errors, log.console_errors
        assert any("/_static/pyodide/pyodide.asm.wasm" in u for u in requests)
        TIMES[page_path] = (min(loads.values()), max(recomputes), max(busy, contention()))


def test_first_result_and_recompute_are_fast():
    """First result <= 6 s after opening, every recompute <= 0.3 s (measured by the test above, in the page).

    Timing on a machine busy with other work says nothing about the page: when a busy loop of this process got
    less than two thirds of a CPU just before or after the measurement (:func:`contention` above 1.5), or the
    1-minute load average is above 2 (this machine's core count), the measured times are reported in the skip
    reason instead of asserted.
    """
    if not TIMES:
        pytest.skip("no calculator page was measured")
    first, recompute, busy = max(t[0] for t in TIMES.values()), max(t[1] for t in TIMES.values()), \
        max(t[2] for t in TIMES.values())
    load = os.getloadavg()[0]
    said = (f"first result {first:.2f} s, slowest recompute {recompute * 1000:.0f} ms, contention {busy:.1f}, "
            f"load average {load:.1f}")
    # The busy loop samples a moment; the load average sees other processes that competed with the page for the
    # cores while the runtime compiled (this machine has 2: above 2, the page got less than a core of its own).
    if busy > 1.5 or load > 2.0:
        pytest.skip(f"machine busy, timing not asserted: {said}")
    assert first <= LOAD_S and recompute <= RECOMPUTE_S, f"{said}; limits {LOAD_S} s and {RECOMPUTE_S} s"


def test_bad_input_shows_a_korean_message_next_to_the_field(browser):
    with browser.open(PAGES["serving"]) as (page, log):
        open_calculator(page, "serving")
        field = page.locator('.xpu-calc[data-calc="serving"] [data-field="tp"]')
        field.locator("input").fill("3")
        error = field.locator(".xpu-calc-error")
        error.wait_for(state="visible")
        text = error.inner_text()
        assert HANGUL.search(text) and "가능한 값: 1, 2, 4, 8" in text and "Traceback" not in text, text
        assert field.locator("input").get_attribute("aria-invalid") == "true"
        assert "Error" not in page.locator('.xpu-calc[data-calc="serving"]').inner_text()
        field.locator("input").fill("4")
        error.wait_for(state="hidden")
        assert page.locator('.xpu-calc[data-calc="serving"] tr[data-key="fits"]').count() == 1
        ctx = page.locator('.xpu-calc[data-calc="serving"] [data-field="context"]')
        ctx.locator("input").fill("8천")
        ctx.locator(".xpu-calc-error").wait_for(state="visible")
        assert "숫자로 적으세요" in ctx.locator(".xpu-calc-error").inner_text()
        assert not log.external and not log.console_errors


@pytest.mark.parametrize("width", [1280, 390])
def test_calculators_fit_the_screen(browser, width):
    """Open, the calculators stay inside a phone's width; screenshots go to .ci/artifacts/screenshots."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    for page_path in sorted(set(PAGES.values())):
        with browser.open(page_path, width) as (page, log):
            for calc in [c for c, p in PAGES.items() if p == page_path]:
                open_calculator(page, calc)
                root = page.locator(f'.xpu-calc[data-calc="{calc}"]')
                root.scroll_into_view_if_needed()
                root.screenshot(path=str(ARTIFACTS / f"calc-{calc}-{width}.png"))
                box = root.bounding_box()
                assert box["x"] >= 0 and box["x"] + box["width"] <= width + 1, (calc, box)
            wide = page.evaluate("document.documentElement.scrollWidth")
            assert wide <= width, f"{page_path} at {width} px scrolls sideways ({wide} px)"
            assert not log.external and not log.console_errors
