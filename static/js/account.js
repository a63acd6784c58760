// The account page: browser notifications are allowed here, on a click, never on load (a
// permission asked unprompted is what browsers learn to block). The player's choice itself is
// the form's checkbox; this only asks the browser and says what it answered.
(() => {
  const box = document.querySelector("[data-testid=notify-permission]");
  if (!box) return;
  const ask = box.querySelector("[data-notify-ask]");
  const state = box.querySelector("[data-notify-state]");
  function show() {
    if (!("Notification" in window)) { state.textContent = box.dataset.tUnsupported; return; }
    const permission = Notification.permission;
    ask.hidden = permission !== "default";
    state.textContent = permission === "granted" ? box.dataset.tGranted
      : permission === "denied" ? box.dataset.tDenied : "";
    box.dataset.permission = permission;
  }
  ask.addEventListener("click", () => {
    Promise.resolve(Notification.requestPermission()).then(show, show);
  });
  show();
})();

// The sign-up links' "Copia": the link to the clipboard (the field itself selects on a click
// where the clipboard is not offered, so the button shows only where it works).
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

// The data archive's ask (the "I miei dati" section): a refusal (409 one is being prepared, 429
// asked too often) is the section with its reason, swapped in like any other answer.
document.addEventListener("htmx:beforeSwap", (event) => {
  const status = event.detail.xhr.status;
  const target = event.detail.target;
  if ((status === 409 || status === 429) && target && target.id === "data-archive") {
    event.detail.shouldSwap = true;
    event.detail.isError = false;
  }
});
