// Site behaviour the themes do not give (loaded on every page by _ext/site_setup.py): sidebar buttons, tap-to-zoom
// figures, phone dialogs that close on a choice, tooltips that do not stick, search words marked on the page.
document.addEventListener("DOMContentLoaded", () => {
  // 1. Sidebar buttons. pydata-sphinx-theme 0.17 binds its open-dialog handler (and
  //    sphinx-book-theme its wide-screen collapse) to the *first* .primary-toggle /
  //    .secondary-toggle only (pydata-sphinx-theme#2451): the hidden header copy where the theme draws its
  //    header (site_setup turns that header off). Every other copy forwards its click to that bound button.
  for (const kind of ["primary", "secondary"]) {
    const buttons = document.querySelectorAll(`.${kind}-toggle`);
    buttons.forEach((b, i) => {
      if (i === 0) return;
      b.addEventListener("click", (e) => {
        e.preventDefault();
        e.stopPropagation();
        buttons[0].click();
      });
    });
  }
  // 2. A figure opens at full size when tapped (phones shrink it to the screen width).
  document.querySelectorAll("article figure img, article .cell_output img").forEach((img) => {
    if (img.closest("a")) return;
    const a = document.createElement("a");
    a.href = img.currentSrc || img.src;
    a.className = "xpu-zoom";
    a.title = "원본 크기로 보기";
    a.target = "_blank";
    img.replaceWith(a);
    a.append(img);
  });
  // 3. Choosing an entry in a sidebar opened as a dialog (phones) closes it, so the chosen section is not left
  //    under the in-page contents panel.
  for (const id of ["pst-primary-sidebar-modal", "pst-secondary-sidebar-modal"]) {
    const dialog = document.getElementById(id);
    if (!dialog) continue;
    dialog.addEventListener("click", (e) => {
      if (dialog.open && e.target.closest("a[href]")) dialog.close();
    });
  }
  // 4. Tooltips come with the mouse pointer only. The theme shows them on hover *and focus*: a tapped button
  //    (touch screens keep its focus and "hover") or a button that gets the focus back when a sidebar dialog
  //    closes kept its tooltip over the page. The buttons keep their names (aria-label) for everyone.
  const B = window.bootstrap;
  const touch = window.matchMedia("(hover: none)").matches;
  document.querySelectorAll('[data-bs-toggle="tooltip"]').forEach((el) => {
    const t = B && B.Tooltip.getInstance(el);
    if (!t) return;
    t.dispose();
    if (!touch) new B.Tooltip(el, { trigger: "hover", delay: { show: 500, hide: 100 } });
  });
  // 5. A search result's words (?hl=, set by the search page) are marked in the article; a result without a
  //    section anchor scrolls to the first mark.
  const params = new URLSearchParams(location.search);
  const hl = (params.get("hl") || "").split("|").map((w) => w.trim()).filter((w) => w.length > 1);
  const article = document.querySelector("article.bd-article");
  if (hl.length && article) {
    const first = markWords(article, hl);
    params.delete("hl");
    history.replaceState(null, "", `${location.pathname}${params.size ? `?${params}` : ""}${location.hash}`);
    if (first && !location.hash) first.scrollIntoView({ block: "center" });
  }
});

/** Wrap every occurrence of ``words`` (words or phrases, any case) in the text of ``root`` in <mark class="xpu-hit">; returns the first. */
function markWords(root, words) {
  const escaped = words.map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).sort((a, b) => b.length - a.length);
  const re = new RegExp(`(${escaped.join("|")})`, "i"); // split() with a group keeps the matches at odd indices
  const skip = "script, style, .math, mjx-container, .headerlink, mark, button, textarea";
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT, {
    acceptNode: (n) => (n.parentElement.closest(skip) || !re.test(n.nodeValue) ? NodeFilter.FILTER_REJECT
      : NodeFilter.FILTER_ACCEPT),
  });
  const nodes = [];
  while (walker.nextNode()) nodes.push(walker.currentNode);
  let first = null;
  for (const node of nodes) {
    const frag = document.createDocumentFragment();
    node.nodeValue.split(re).forEach((part, i) => {
      if (!part) return;
      if (i % 2) {
        const m = document.createElement("mark");
        m.className = "xpu-hit";
        m.textContent = part;
        frag.append(m);
        first = first || m;
      } else {
        frag.append(part);
      }
    });
    node.replaceWith(frag);
  }
  return first;
}
