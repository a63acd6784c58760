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
