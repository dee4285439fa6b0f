// In-page calculators (_ext/xpu_calc.py): load Pyodide and xpucalc from this site when a reader opens a
// calculator, then run xpucalc.render.calculators.run_json on the form's values at every change.
// Nothing is computed here: the script reads the form and shows what Python returned (the roofline
// picture is drawn from the numbers Python returned).
(() => {
  const STATIC = new URL(".", document.currentScript.src).href;   // .../_static/
  const SVG = "http://www.w3.org/2000/svg";
  let runtime = null;

  // One runtime per page, shared by its calculators; loaded on first use only.
  function loadRuntime() {
    if (!runtime) {
      runtime = (async () => {
        const zip = fetch(STATIC + "xpucalc.zip").then((r) => {
          if (!r.ok) throw new Error(`xpucalc.zip: HTTP ${r.status}`);
          return r.arrayBuffer();
        });
        const { loadPyodide } = await import(STATIC + "pyodide/pyodide.mjs");
        const py = await loadPyodide({ indexURL: STATIC + "pyodide/" });
        py.unpackArchive(await zip, "zip", { extractDir: "/home/pyodide/xpu" });
        py.runPython("import sys; sys.path.insert(0, '/home/pyodide/xpu')");
        return py.pyimport("xpucalc.render.calculators").run_json;
      })();
    }
    return runtime;
  }

  function el(tag, attrs = {}, text = "") {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
    if (text) e.textContent = text;
    return e;
  }

  // A field is shown while the field it depends on has one of its values (data-when="other=a|b").
  function applyWhen(form) {
    form.querySelectorAll(".xpu-calc-field[data-when]").forEach((f) => {
      const [other, values] = f.dataset.when.split("=");
      const ctl = form.elements[other];
      f.hidden = !(ctl && values.split("|").includes(ctl.value));
    });
  }

  function svgEl(tag, attrs, text) {
    const e = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
    if (text) e.textContent = text;
    return e;
  }

  // A small log-log roofline: the two roofs, the ridge point and the workload's point.
  function roofline(p) {
    const W = 360, H = 230, L = 46, R = 12, T = 14, B = 36;
    const lo = Math.floor(Math.log10(Math.min(p.intensity, p.ridge))) - 1;
    const hi = Math.ceil(Math.log10(Math.max(p.intensity, p.ridge))) + 1;
    const yTop = Math.ceil(Math.log10(p.peak)) + 0.3;
    const yLo = Math.floor(Math.log10(Math.min(p.bandwidth * 10 ** lo, p.attainable))) - 0.3;
    const x = (i) => L + (Math.log10(i) - lo) / (hi - lo) * (W - L - R);
    const y = (f) => T + (yTop - Math.log10(f)) / (yTop - yLo) * (H - T - B);
    const s = svgEl("svg", { viewBox: `0 0 ${W} ${H}`, class: "xpu-calc-plot", role: "img",
      "aria-label": `roofline 그림: ${p.device}, ${p.point_text}` });
    const axis = { stroke: "currentColor", "stroke-width": 1, fill: "none" };
    s.append(svgEl("path", { d: `M${L},${T} V${H - B} H${W - R}`, ...axis }));
    for (let k = lo; k <= hi; k++) {
      s.append(svgEl("text", { x: x(10 ** k), y: H - B + 14, "text-anchor": "middle", class: "tick" }, `1e${k}`));
    }
    for (let k = Math.ceil(yLo); k <= Math.floor(yTop); k += 2) {
      s.append(svgEl("text", { x: L - 4, y: y(10 ** k) + 4, "text-anchor": "end", class: "tick" }, `1e${k}`));
    }
    const a = 10 ** lo, b = 10 ** hi;
    s.append(svgEl("path", { d: `M${x(a)},${y(p.bandwidth * a)} L${x(p.ridge)},${y(p.peak)} L${x(b)},${y(p.peak)}`,
      stroke: "#1f77b4", "stroke-width": 2.5, fill: "none", class: "roof" }));
    s.append(svgEl("path", { d: `M${x(p.ridge)},${y(p.peak)} V${H - B}`, stroke: "#888", "stroke-dasharray": "3 3" }));
    s.append(svgEl("text", { x: x(p.ridge) + 4, y: H - B - 6, class: "tick" }, p.ridge_text));
    s.append(svgEl("text", { x: W - R, y: y(p.peak) - 5, "text-anchor": "end", class: "tick" }, p.peak_text));
    s.append(svgEl("circle", { cx: x(p.intensity), cy: y(p.attainable), r: 5, fill: "#d62728", class: "point" }));
    s.append(svgEl("text", { x: W / 2, y: H - 4, "text-anchor": "middle" }, "산술 강도 (FLOP/B, 로그)"));
    s.append(svgEl("text", { x: 12, y: H / 2 - 10, transform: `rotate(-90 12 ${H / 2 - 10})`, "text-anchor": "middle" },
      "처리율 (FLOP/s, 로그)"));
    return s;
  }

  function render(root, res) {
    const form = root.querySelector("form");
    const status = root.querySelector(".xpu-calc-status");
    const out = root.querySelector(".xpu-calc-out");
    form.querySelectorAll(".xpu-calc-error").forEach((e) => { e.hidden = true; e.textContent = ""; });
    form.querySelectorAll("[aria-invalid]").forEach((e) => e.removeAttribute("aria-invalid"));
    status.textContent = "";
    status.classList.remove("xpu-calc-bad");
    const errors = Object.entries(res.errors || {});
    if (errors.length) {
      for (const [name, msg] of errors) {
        const slot = form.querySelector(`.xpu-calc-field[data-field="${name}"] .xpu-calc-error`);
        if (slot && !slot.closest(".xpu-calc-field").hidden) {
          slot.textContent = msg;
          slot.hidden = false;
          form.elements[name].setAttribute("aria-invalid", "true");
        } else {
          status.textContent = msg;
          status.classList.add("xpu-calc-bad");
        }
      }
      out.replaceChildren(el("p", { class: "xpu-calc-stale" }, "입력을 고치면 결과가 다시 계산됩니다."));
      return;
    }
    const parts = [];
    if (res.verdict) parts.push(el("p", { class: "xpu-calc-verdict" }, res.verdict));
    if (res.rows.length) {
      const table = el("table", { class: "xpu-calc-result" });
      const body = el("tbody");
      for (const r of res.rows) {
        const tr = el("tr", { "data-key": r.key });
        if (r.value !== null && r.value !== undefined) tr.dataset.value = String(r.value);
        tr.append(el("th", { scope: "row" }, r.label), el("td", {}, r.text));
        body.append(tr);
      }
      table.append(body);
      parts.push(table);
    }
    if (res.copy) {
      const btn = el("button", { type: "button", class: "xpu-calc-copy" }, "메모 복사 (Markdown)");
      btn.addEventListener("click", async () => {
        try {
          await navigator.clipboard.writeText(res.copy);
          btn.textContent = "복사했습니다";
        } catch (e) {
          btn.textContent = "복사하지 못했습니다: 아래 글을 직접 선택해 복사하세요";
        }
      });
      const box = el("details", { class: "xpu-calc-copybox" });
      box.append(el("summary", {}, "복사할 메모 글 보기"), el("pre", { class: "xpu-calc-memo" }, res.copy));
      parts.push(btn, box);
    }
    if (res.plot) parts.push(roofline(res.plot));
    if (res.notes && res.notes.length) {
      parts.push(el("p", { class: "xpu-calc-notes-title" }, res.notes_title || "가정"));
      const ul = el("ul", { class: "xpu-calc-notes" });
      for (const n of res.notes) ul.append(el("li", {}, n));
      parts.push(ul);
    }
    out.replaceChildren(...parts);
  }

  function setup(root) {
    const name = root.dataset.calc;
    const details = root.querySelector("details");
    const form = root.querySelector("form");
    const status = root.querySelector(".xpu-calc-status");
    let run = null, pending = false;
    root.dataset.runs = "0";
    applyWhen(form);

    function compute() {
      pending = false;
      const values = {};
      for (const e of form.elements) if (e.name) values[e.name] = e.value;
      const t0 = performance.now();
      try {
        render(root, JSON.parse(run(name, JSON.stringify(values))));
      } catch (e) {
        console.warn("xpu-calc:", e);
        status.textContent = "계산 중에 예상하지 못한 오류가 났습니다. 입력을 바꿔 다시 해 보세요.";
        status.classList.add("xpu-calc-bad");
      }
      root.dataset.computeMs = (performance.now() - t0).toFixed(1);
      root.dataset.runs = String(Number(root.dataset.runs) + 1);
    }
    function schedule() {
      applyWhen(form);
      if (!run || pending) return;
      pending = true;
      setTimeout(compute, 0);
    }
    async function start() {
      if (root.dataset.state) return;
      root.dataset.state = "loading";
      status.textContent = "불러오는 중… (Python 런타임을 처음 한 번만 내려받습니다)";
      const t0 = performance.now();
      try {
        run = await loadRuntime();
      } catch (e) {
        console.warn("xpu-calc:", e);
        root.dataset.state = "failed";
        status.textContent = "계산기 런타임을 불러오지 못했습니다. 이 사이트를 웹 서버로 열었는지 확인하세요.";
        status.classList.add("xpu-calc-bad");
        return;
      }
      compute();
      root.dataset.loadMs = (performance.now() - t0).toFixed(0);
      root.dataset.state = "ready";
    }
    form.addEventListener("input", schedule);
    form.addEventListener("change", schedule);
    form.addEventListener("submit", (e) => { e.preventDefault(); schedule(); });
    details.addEventListener("toggle", () => { if (details.open) start(); });
    if (details.open) start();
  }

  const init = () => document.querySelectorAll(".xpu-calc").forEach(setup);
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
