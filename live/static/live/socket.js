// The one websocket client of the site (docs/protocol.md): every page that listens to the
// server opens its socket through this, so all reconnect the same way. A socket that closes
// comes back after a back-off that doubles from 0.5 s up to 15 s, with some jitter so that a
// restarted server is not met by every page at the same instant; it is reset once a socket
// has stayed open. Close codes the server uses to say "do not come back" (4401 signed out,
// 4403 account deleted or deactivated, 4404 no such thing) stop it; those that say "too much" (4429 too many messages, 4409 too
// many sockets open) make it wait 30 s, the server's cool-down. Messages sent while the socket
// is down wait for the next open.
(function () {
  "use strict";
  const FINAL_CODES = new Set([4401, 4403, 4404]);
  const TOO_MUCH_CODES = new Set([4409, 4429]);
  const TOO_MUCH_WAIT_MS = 30000;

  // The paths of this page's sockets open now, on <html data-open-sockets="/ws/me/ ...">: what
  // a look at the page (or a browser test, before it makes the server push) can tell of
  // whether the server hears it.
  function mark(path, isOpen) {
    const html = document.documentElement;
    const paths = new Set((html.dataset.openSockets || "").split(" ").filter(Boolean));
    if (isOpen) paths.add(path); else paths.delete(path);
    html.dataset.openSockets = [...paths].join(" ");
  }

  function open(path, handlers) {
    const scheme = location.protocol === "https:" ? "wss://" : "ws://";
    let socket = null;
    let delay = 500;
    let opened = false; // has any socket of this client been open yet
    let pending = [];
    let stopped = false;

    function connect() {
      socket = new WebSocket(scheme + location.host + path);
      socket.onopen = function () {
        const again = opened;
        opened = true;
        delay = 500;
        for (const text of pending.splice(0)) socket.send(text);
        mark(path, true);
        if (handlers.open) handlers.open(again);
      };
      socket.onmessage = function (event) {
        let message;
        try { message = JSON.parse(event.data); } catch (e) { return; }
        if (handlers.message) handlers.message(message);
      };
      socket.onclose = function (event) {
        mark(path, false);
        if (handlers.close) handlers.close(event);
        if (stopped || FINAL_CODES.has(event.code)) return;
        const wait = TOO_MUCH_CODES.has(event.code)
          ? TOO_MUCH_WAIT_MS * (1 + 0.2 * Math.random())
          : delay * (0.8 + 0.4 * Math.random());
        delay = Math.min(delay * 2, 15000);
        setTimeout(connect, wait);
      };
    }
    connect();
    return {
      send(message) {
        const text = JSON.stringify(message);
        if (socket && socket.readyState === WebSocket.OPEN) socket.send(text);
        else pending.push(text);
      },
      get isOpen() { return socket !== null && socket.readyState === WebSocket.OPEN; },
      stop() { stopped = true; if (socket) socket.close(); },
    };
  }

  window.LiveSocket = { open };
})();
