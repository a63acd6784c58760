// The one websocket client of the site (docs/protocol.md): every page that listens to the
// server opens its socket through this, so all reconnect the same way. A socket that closes
// comes back after a back-off that doubles from 0.5 s up to 15 s, with some jitter so that a
// restarted server is not met by every page at the same instant; it is reset once a socket
// has stayed open. Close codes the server uses to say "do not come back" (4401 signed out,
// 4403 account deleted or deactivated, 4404 no such thing) stop it; those that say "too much" (4429 too many messages, 4409 too
// many sockets open) make it wait 30 s, the server's cool-down. Messages sent while the socket
// is down wait for the next open.
//
// A page may carry several of its sockets on one (a game's or an event's page: its own, its
// chat and the site's news; docs/protocol.md, "Page sockets"), each handshake a cost of the
// server's at a round start. It says so in <meta name="page-socket" content='{"path": "/ws/page/game/12/",
// "parts": {"/ws/game/12/": "", "/ws/chat/game/12/": "chat", "/ws/me/": "me"}}'>: `open` of
// one of those paths then listens on the page's one socket, and hears the messages whose `on`
// names its part ("" for those without). A part that starts listening while the socket is
// already open (the chat again after a game's end) asks for its opening anew (`again`).
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

  function openOwn(path, handlers) {
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

  let shared = null; // the page's one socket and its parts, once a part is opened

  function pageSocket() {
    const meta = document.querySelector('meta[name="page-socket"]');
    if (!meta) return null;
    try { return JSON.parse(meta.getAttribute("content")); } catch (e) { return null; }
  }

  function openPart(page, path, handlers) {
    const name = page.parts[path];
    if (shared === null) {
      const parts = new Map(); // name -> {path, handlers}
      const early = new Map(); // name -> messages heard before its part listened
      shared = { parts, early, known: new Set() }; // known: the parts that listened before
      shared.client = openOwn(page.path, {
        open(again) {
          for (const part of parts.values()) {
            mark(part.path, true);
            if (part.handlers.open) part.handlers.open(again);
          }
        },
        message(message) {
          const on = typeof message.on === "string" ? message.on : "";
          const part = parts.get(on);
          if (part) { if (part.handlers.message) part.handlers.message(message); return; }
          // Its script not listening yet (the scripts run one after another as the page
          // loads): kept for it, the newest if there are too many.
          const kept = early.get(on) || [];
          kept.push(message);
          if (kept.length > 200) kept.shift();
          early.set(on, kept);
        },
        close(event) {
          for (const part of parts.values()) {
            mark(part.path, false);
            if (part.handlers.close) part.handlers.close(event);
          }
        },
      });
    }
    const one = shared;
    const client = one.client;
    const again = one.known.has(name);
    one.parts.set(name, { path, handlers });
    one.known.add(name);
    if (client.isOpen) {
      mark(path, true);
      if (handlers.open) handlers.open(false);
      if (again && name) client.send({ type: "again", on: name });
    }
    for (const message of one.early.get(name) || []) {
      if (handlers.message) handlers.message(message);
    }
    one.early.delete(name);
    return {
      send(message) { client.send(message); },
      get isOpen() { return client.isOpen; },
      stop() {
        const part = one.parts.get(name);
        if (part && part.handlers === handlers) {
          one.parts.delete(name);
          mark(path, false);
        }
        if (one.parts.size === 0) {
          client.stop();
          if (shared === one) shared = null;
        }
      },
    };
  }

  function open(path, handlers) {
    const page = pageSocket();
    if (page && page.parts && Object.prototype.hasOwnProperty.call(page.parts, path)) {
      return openPart(page, path, handlers);
    }
    return openOwn(path, handlers);
  }

  window.LiveSocket = { open };
})();
