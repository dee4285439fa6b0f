// Site behaviour the themes do not give (loaded on every page by _ext/site_setup.py).
document.addEventListener("DOMContentLoaded", () => {
  // 1. Sidebar buttons. pydata-sphinx-theme 0.17 binds its open-dialog handler (and
  //    sphinx-book-theme its wide-screen collapse) to the *first* .primary-toggle /
  //    .secondary-toggle only, which is the hidden header copy (pydata-sphinx-theme#2451).
  //    Every other copy forwards its click to that bound button.
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
});
