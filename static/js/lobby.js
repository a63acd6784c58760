// The lobby listens for "changed" pushes and re-fetches its list (STYLE 7); a slow poll in the
// markup covers a lost socket.
(() => {
  let retry = 0;
  function connect() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    const socket = new WebSocket(`${scheme}://${location.host}/ws/lobby/`);
    socket.onopen = () => { retry = 0; };
    socket.onmessage = () => document.body.dispatchEvent(new Event("lobby-changed"));
    socket.onclose = () => { retry = Math.min(retry + 1, 6); setTimeout(connect, 250 * 2 ** retry); };
  }
  connect();
})();
