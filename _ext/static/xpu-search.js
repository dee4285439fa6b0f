// Korean search page: runs the Pagefind index that the build writes to pagefind/ (see _ext/xpu_search.py).
const root = new URL(document.documentElement.dataset.content_root || "./", location.href);
const input = document.getElementById("xpu-search-input");
const status = document.getElementById("xpu-search-status");
const list = document.getElementById("xpu-search-results");
const query = (new URLSearchParams(location.search).get("q") || "").trim();

// Korean particles after a noun ("대역폭은", "모델에서"): the index matches query words as prefixes,
// so searching the noun without its particle finds every form of it ("강도" -> 강도는, 강도에, 강도로).
const PARTICLES = ["에서는", "에서도", "으로는", "에서", "에게", "으로", "부터", "까지", "처럼", "보다", "마다",
  "은", "는", "이", "가", "을", "를", "에", "의", "로", "와", "과", "도", "만"];
export function stem(word) {
  if (!/^[\uac00-\ud7a3]+$/.test(word)) return word;
  for (const p of PARTICLES) {
    if (word.length >= p.length + 2 && word.endsWith(p)) return word.slice(0, -p.length);
  }
  return word;
}
const terms = query.split(/\s+/).filter(Boolean).map(stem).join(" ");

function item(url, title, excerpt, subs) {
  const li = document.createElement("li");
  li.className = "xpu-search-result";
  const a = document.createElement("a");
  a.href = url;
  a.className = "xpu-search-title";
  a.textContent = title;
  li.append(a);
  const p = document.createElement("p");
  p.className = "xpu-search-snippet";
  p.innerHTML = excerpt; // Pagefind's excerpt: page text with <mark> around the matched words
  li.append(p);
  if (subs.length) {
    const ul = document.createElement("ul");
    ul.className = "xpu-search-sections";
    for (const s of subs) {
      const sli = document.createElement("li");
      const sa = document.createElement("a");
      sa.href = s.url;
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
  const search = await pagefind.search(terms);
  const shown = search.results.slice(0, 20);
  const data = await Promise.all(shown.map((r) => r.data()));
  list.replaceChildren(...data.map((d) => item(d.url, d.meta.title || d.url, d.excerpt,
    (d.sub_results || []).filter((s) => s.url !== d.url && s.url.includes("#")).slice(0, 3))));
  status.textContent = search.results.length
    ? `‘${query}’: ${search.results.length}개 페이지에서 찾았습니다.`
    : `‘${query}’을(를) 찾지 못했습니다. 다른 낱말이나 영어 용어로 찾아보세요.`;
  document.documentElement.dataset.xpuSearch = "done";
}

run().catch((e) => {
  status.textContent = "검색 색인을 불러오지 못했습니다. 사이트를 웹 서버로 열었는지 확인하세요.";
  document.documentElement.dataset.xpuSearch = "failed";
  console.warn(e);
});
