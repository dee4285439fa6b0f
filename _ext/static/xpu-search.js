// Korean search page: runs the Pagefind index that the build writes to pagefind/ (see _ext/xpu_search.py).
// The template loads this module only when the page is served over http(s); from file:// it shows how to serve it.
const root = new URL(document.documentElement.dataset.content_root || "./", location.href);
const input = document.getElementById("xpu-search-input");
const status = document.getElementById("xpu-search-status");
const list = document.getElementById("xpu-search-results");
const query = (new URLSearchParams(location.search).get("q") || "").trim();

// Korean particles after a noun ("대역폭은", "모델에서"): the index matches query words as prefixes,
// so searching the noun without its particle finds every form of it ("강도" -> 강도는, 강도에, 강도로).
const PARTICLES = ["에서는", "에서도", "으로는", "으로도", "이라는", "에서", "에게", "에는", "에도", "으로", "부터", "까지",
  "처럼", "보다", "마다", "만큼", "이나", "이란", "이라", "라는", "와의", "과의", "로는", "로도",
  "은", "는", "이", "가", "을", "를", "에", "의", "로", "와", "과", "도", "만", "란", "나"];
const HANGUL = /^[\uac00-\ud7a3]+$/;

/** A Korean word without its particle ("대역폭은" -> "대역폭"); at least two syllables stay. */
export function stem(word) {
  if (!HANGUL.test(word)) return word;
  for (const p of PARTICLES) {
    if (word.length >= p.length + 2 && word.endsWith(p)) return word.slice(0, -p.length);
  }
  return word;
}

/** The words to search for: particles stripped, also after a Latin term or a number
 *  ("NVLink는" -> NVLink, "GiB를" -> GiB, "4090은" -> 4090), and "KV캐시는" -> KV, 캐시. */
export function words(text) {
  const out = [];
  for (const w of text.split(/\s+/).filter(Boolean)) {
    const m = w.match(/^(.*[A-Za-z0-9)])([\uac00-\ud7a3]+)$/);
    if (m && !/[\uac00-\ud7a3]/.test(m[1])) {
      out.push(m[1]);
      const tail = m[2].replace(/^들/, "");
      if (tail && !PARTICLES.includes(tail)) out.push(stem(m[2]));
    } else {
      out.push(stem(w));
    }
  }
  return out;
}

/** How a spelling is compared with the glossary's: lower case, no spaces, hyphens or middle dots. */
const norm = (s) => s.toLowerCase().replace(/[\s\-_·]+/g, "");

/** The glossary entry a text names (whole), as written or without its particles; null if none. */
function entryFor(text, terms) {
  for (const key of [norm(text), norm(words(text).join(""))]) {
    const e = terms.find((t) => [t.term, t.en, ...t.aliases].some((s) => s && norm(s) === key));
    if (e) return e;
  }
  return null;
}

/** The searches a query runs: its words, and for a glossary term every spelling of it (the chapters write
 *  "roofline" where a reader types 루프라인). Returns {searches, entry, marks}: entry is the term the whole query
 *  names; marks are what to mark on the page a result opens: the query's words and the term's names as written
 *  (not every alias). A glossary spelling is searched as written: "시스톨릭 어레이" is no noun plus "이". */
export function expand(text, terms) {
  const ws = words(text);
  const searches = new Map([[ws.join(" ").toLowerCase(), ws.join(" ")]]);
  const add = (s) => { if (s && !searches.has(s.toLowerCase())) searches.set(s.toLowerCase(), s); };
  const marks = new Set(ws);
  const entry = entryFor(text, terms);
  if (entry) {
    [entry.term, entry.en, ...entry.aliases].forEach((s) => add(s && s.trim()));
    [entry.term, entry.en].forEach((s) => s && marks.add(s.trim()));
  } else {
    ws.forEach((w, i) => {  // one word of a longer query names a term: search its names in its place
      const e = entryFor(w, terms);
      if (!e) return;
      for (const s of [e.term, e.en]) {
        if (!s) continue;
        add([...ws.slice(0, i), s.trim(), ...ws.slice(i + 1)].join(" "));
        marks.add(s.trim());
      }
    });
  }
  return { searches: [...searches.values()], entry, marks: [...marks].filter((w) => w.length > 1) };
}

async function loadTerms() {
  try {
    const r = await fetch(new URL("pagefind/xpu-terms.json", root));
    return r.ok ? await r.json() : [];
  } catch (e) {
    return [];
  }
}

/** The section of a result that matches best (Pagefind's sub-results: one per heading with an id). */
function bestSection(d, anchor) {
  const subs = d.sub_results || [];
  if (anchor) {
    const s = subs.find((x) => x.anchor && x.anchor.id === anchor);
    const a = (d.anchors || []).find((x) => x.id === anchor);
    return s || { url: `${d.url.split("#")[0]}#${anchor}`, title: (a && a.text) || d.meta.title, excerpt: d.excerpt, anchor: a };
  }
  const score = (s) => (s.weighted_locations || []).reduce((a, w) => a + w.balanced_score, 0);
  return subs.reduce((best, s) => (!best || score(s) > score(best) ? s : best), null);
}

/** ``url`` with ``?hl=`` (what xpu-site.js marks on the page: words and phrases, "|" between them) before its anchor. */
function withHighlight(url, hl) {
  const [path, hash] = url.split("#");
  return `${path}?hl=${encodeURIComponent(hl)}${hash ? `#${hash}` : ""}`;
}

function item(d, target, hl, others) {
  const li = document.createElement("li");
  li.className = "xpu-search-result";
  const a = document.createElement("a");
  a.href = withHighlight(target ? target.url : d.url, hl);
  a.className = "xpu-search-title";
  const pageTitle = d.meta.title || d.url;
  a.textContent = target && target.anchor && target.title && target.title !== pageTitle
    ? `${pageTitle} › ${target.title}` : pageTitle;
  li.append(a);
  const p = document.createElement("p");
  p.className = "xpu-search-snippet";
  p.innerHTML = (target && target.excerpt) || d.excerpt; // Pagefind's excerpt: page text with <mark> around matches
  li.append(p);
  if (others.length) {
    const ul = document.createElement("ul");
    ul.className = "xpu-search-sections";
    for (const s of others) {
      const sli = document.createElement("li");
      const sa = document.createElement("a");
      sa.href = withHighlight(s.url, hl);
      sa.textContent = s.title;
      sli.append(sa);
      ul.append(sli);
    }
    li.append(ul);
  }
  return li;
}

async function run() {
  input.value = query;
  if (!query) {
    status.textContent = "찾을 낱말을 입력하세요. 조사를 붙이지 않아도 됩니다(예: ‘강도’는 ‘강도는’, ‘강도에’도 찾습니다).";
    return;
  }
  status.textContent = "찾는 중…";
  const pagefind = await import(new URL("pagefind/pagefind.js", root).href);
  await pagefind.options({ baseUrl: root.pathname });
  const { searches, entry, marks } = expand(query, await loadTerms());
  const found = await Promise.all(searches.map((s) => pagefind.search(s)));
  // One list: each page once, at the best score any spelling gave it.
  const byId = new Map();
  for (const r of found.flatMap((f) => f.results)) {
    if (!byId.has(r.id) || byId.get(r.id).score < r.score) byId.set(r.id, r);
  }
  let ranked = [...byId.values()].sort((a, b) => b.score - a.score);
  let taught = null;
  if (entry) { // the term's teaching page comes first (found by its spellings, or at least listed)
    const page = { page: entry.page };
    for (const s of [...searches, null]) {
      const r = (await pagefind.search(s, { filters: page })).results[0];
      if (r) { taught = byId.get(r.id) || r; break; }
    }
    if (taught) ranked = [taught, ...ranked.filter((r) => r.id !== taught.id)];
  }
  const shown = ranked.slice(0, 20);
  const data = await Promise.all(shown.map((r) => r.data()));
  const hl = marks.join("|");
  list.replaceChildren(...data.map((d, i) => {
    const target = bestSection(d, taught && i === 0 ? entry.anchor : "");
    const others = (d.sub_results || []).filter((s) => s.url.includes("#") && (!target || s.url !== target.url))
      .slice(0, 3);
    return item(d, target, hl, others);
  }));
  const also = searches.length > 1 ? ` (함께 찾은 표기: ${searches.slice(1).map((s) => `‘${s}’`).join(", ")})` : "";
  status.textContent = ranked.length
    ? `‘${query}’: ${ranked.length}개 페이지에서 찾았습니다${also}.`
    : `‘${query}’을(를) 찾지 못했습니다. 다른 낱말이나 영어 용어로 찾아보세요.`;
  document.documentElement.dataset.xpuSearch = "done";
}

run().catch((e) => {
  status.textContent = "검색 색인을 불러오지 못했습니다. 사이트를 웹 서버로 열었는지 확인하세요.";
  document.documentElement.dataset.xpuSearch = "failed";
  console.warn(e);
});
