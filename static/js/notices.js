// Challenges addressed to me, shown wherever I am on the site: the site socket (/ws/me/,
// docs/protocol.md) says what changed and the fragment re-fetches itself (STYLE 7). The
// fragment's slow poll covers a lost socket; a reconnect re-fetches at once.
(() => {
  let retry = 0;
  function changed(what) { document.body.dispatchEvent(new Event(`${what}-changed`)); }
  function connect() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    const socket = new WebSocket(`${scheme}://${location.host}/ws/me/`);
    socket.onopen = () => { if (retry) changed("challenges"); retry = 0; };
    socket.onmessage = (event) => {
      const message = JSON.parse(event.data);
      if (message.type === "changed" && /^[a-z]+$/.test(message.what)) changed(message.what);
    };
    socket.onclose = (event) => {
      if (event.code === 4401) return; // signed out
      retry = Math.min(retry + 1, 6);
      setTimeout(connect, 250 * 2 ** retry);
    };
  }
  connect();
})();
