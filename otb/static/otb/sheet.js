// The round sheet (RULES 13.8): a result typed and Enter saves the board's row (htmx swaps it
// in place) and moves to the next board; a refused result keeps the focus where it was.
(function () {
  "use strict";
  let next = null, current = null;
  document.addEventListener("htmx:beforeRequest", function (event) {
    const input = event.detail.elt.querySelector && event.detail.elt.querySelector("[data-result-input]");
    if (!input) return;
    const inputs = Array.from(document.querySelectorAll("[data-result-input]"));
    const i = inputs.indexOf(input);
    current = input.id;
    next = i >= 0 && i + 1 < inputs.length ? inputs[i + 1].id : null;
  });
  document.addEventListener("htmx:afterSettle", function () {
    if (current === null) return;
    const mine = document.getElementById(current);
    const refused = mine && mine.closest("tr").querySelector(".error");
    const target = refused ? mine : (next && document.getElementById(next)) || mine;
    current = next = null;
    if (target) { target.focus(); target.select(); }
  });
})();
