// The rating charts of the player page: the keyboard enters a chart once and moves
// between its points with the arrow keys (a roving tabindex); without this script every point
// is in the tab order, which still works. The point pointed at or focused is moved to the end
// of the drawing so that its label is painted over the points after it.
(function () {
  "use strict";
  function raise(point) {
    if (point.parentNode.lastElementChild !== point) point.parentNode.appendChild(point);
  }
  for (const svg of document.querySelectorAll("svg[data-rating-chart]")) {
    if (svg.dataset.ready) continue;
    svg.dataset.ready = "1";
    // Document order is history order; keep it, since raising a point reorders the nodes.
    const points = Array.from(svg.querySelectorAll(".chart-point"));
    points.forEach((p, i) => { p.tabIndex = i === points.length - 1 ? 0 : -1; });
    svg.addEventListener("pointerover", (e) => {
      const point = e.target.closest(".chart-point");
      if (point) raise(point);
    });
    svg.addEventListener("focusin", (e) => {
      const point = e.target.closest(".chart-point");
      if (!point) return;
      for (const p of points) p.tabIndex = p === point ? 0 : -1;
      if (point.parentNode.lastElementChild !== point) {
        raise(point); // moving a node takes its focus away: give it back
        point.focus();
      }
    });
    svg.addEventListener("keydown", (e) => {
      const at = points.indexOf(e.target.closest(".chart-point"));
      if (at < 0) return;
      const to = { ArrowLeft: at - 1, ArrowRight: at + 1, Home: 0, End: points.length - 1 }[e.key];
      if (to === undefined) return;
      e.preventDefault();
      const next = points[Math.max(0, Math.min(points.length - 1, to))];
      raise(next);
      next.focus();
    });
  }
})();
