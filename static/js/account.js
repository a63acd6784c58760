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
