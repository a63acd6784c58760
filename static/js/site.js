// Site-wide behaviour. Kept tiny: pages that need more load their own script.
document.addEventListener("click", (event) => {
  // Close the user menu when clicking elsewhere.
  for (const menu of document.querySelectorAll("details.user-menu[open]")) {
    if (!menu.contains(event.target)) menu.removeAttribute("open");
  }
});
// Behaviour asked for in the markup by data- attributes: the Content-Security-Policy
// (config/settings.py) refuses inline handlers (onsubmit=, onclick=), so pages say what they
// want and this one listener per event does it, for fragments swapped in later too.
// <form data-confirm="question">: asks before it is sent; "Cancel" sends nothing.
document.addEventListener("submit", (event) => {
  const question = event.target.dataset && event.target.dataset.confirm;
  if (question && !window.confirm(question)) event.preventDefault();
});
document.addEventListener("click", (event) => {
  // <input data-select-on-click>: a click selects the whole value (an invite link to copy).
  const field = event.target.closest("input[data-select-on-click]");
  if (field) field.select();
  // <button data-print>: the browser's print dialog.
  if (event.target.closest("[data-print]")) window.print();
});
// <button data-copy> beside an <input data-select-on-click> (a sign-up or a club's invite
// link): the link to the clipboard. Shown only where the browser offers the clipboard; the
// field itself selects on a click everywhere.
(() => {
  if (!navigator.clipboard) return;
  for (const button of document.querySelectorAll("[data-copy]")) {
    const field = button.parentElement.querySelector("input[data-select-on-click]");
    if (!field) continue;
    button.hidden = false;
    const label = button.textContent;
    button.addEventListener("click", () => {
      navigator.clipboard.writeText(field.value).then(() => {
        button.textContent = button.dataset.tDone;
        setTimeout(() => { button.textContent = label; }, 2000);
      }, () => field.select());
    });
  }
})();
// Keyboard (issue 38). Escape closes the user menu and gives the focus back to its summary;
// moving the focus out of the menu closes it, as a click elsewhere does.
document.addEventListener("keydown", (event) => {
  if (event.key !== "Escape") return;
  for (const menu of document.querySelectorAll("details.user-menu[open]")) {
    const inside = menu.contains(document.activeElement);
    menu.removeAttribute("open");
    if (inside) menu.querySelector("summary").focus();
  }
});
document.addEventListener("focusout", (event) => {
  const menu = event.target.closest && event.target.closest("details.user-menu[open]");
  if (menu && event.relatedTarget && !menu.contains(event.relatedTarget)) menu.removeAttribute("open");
});
// An htmx swap that removes the focused element keeps the focus on the same element of the
// new content: the one with its id, else the one it is by what it does (a link by its address, a
// button by its form's action, name and value, a field by its name), so a player Tabbing through
// a live list stays on the name they were on when somebody joins. When the element is gone, the
// swapped region itself takes the focus, never its first control: that could be "Ritirati",
// and the next Enter would act on something the player never chose. A second swap may begin
// before the first has settled (a push's re-fetch of the same region): the focus it finds
// already lost does not forget the element it was lost from.
const FOCUSABLE =
  'a[href], button:not([disabled]), input:not([type="hidden"]):not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';
function focusKey(el) {
  if (el.id) return "#" + el.id;
  const form = el.form ? el.form.getAttribute("action") || "" : "";
  return [el.tagName, el.getAttribute("href") || "", form, el.name || "", el.value || "",
          el.tagName === "A" ? "" : el.textContent.trim()].join("|");
}
let swappedFocus = null;
document.addEventListener("htmx:beforeSwap", (event) => {
  const target = event.detail.target, active = document.activeElement;
  if (target && active && active !== document.body && target.contains(active)) {
    swappedFocus = {target, id: target.id, key: focusKey(active)};
  }
});
document.addEventListener("htmx:afterSettle", () => {
  if (!swappedFocus) return;
  const {target, id, key} = swappedFocus;
  swappedFocus = null;
  const active = document.activeElement;
  if (active && active !== document.body && document.contains(active)) return;
  const region = document.contains(target) ? target : id && document.getElementById(id);
  if (!region) return;
  const same = Array.from(region.querySelectorAll(FOCUSABLE)).find((el) => focusKey(el) === key);
  if (same) {
    same.focus();
  } else {
    region.tabIndex = -1;
    region.focus();
  }
});
