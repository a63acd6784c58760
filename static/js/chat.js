// A page's chat (chat/_panel.html; docs/protocol.md, "Chat socket"; docs/rules.md §9). The socket
// says which rooms the viewer reads and sends their latest lines as it opens; then each new
// line, a room closed or opened, a line removed. Every text is written as text, never as HTML.
const panel = document.getElementById("chat");

// A place may have its own words for a key (`data-t-closed-club`: a club's chat is closed by
// its officers, not by an organizer); the panel's common ones otherwise.
function t(key, value) {
  const word = (k) => panel.dataset["t" + k.replace(/(^|-)([a-z])/g, (_m, _d, c) => c.toUpperCase())];
  const text = word(key + "-" + panel.dataset.place) || word(key) || "";
  return value === undefined ? text : text.replace("%s", value);
}

function el(tag, attrs = {}, text = undefined) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, value);
  if (text !== undefined) node.textContent = text;
  return node;
}

const roomsBox = panel.querySelector(".chat-rooms");
const status = panel.querySelector(".chat-status");
const mutedBox = panel.querySelector(".chat-muted");
let me = { signedIn: false, silencedUntil: null };
let rooms = new Map(); // part -> {section, list, form, room}
let sequence = 0; // request ids: an error names the message it answers

function say(text) { status.textContent = text; }

function time(at) {
  const d = new Date(at);
  return d.toLocaleTimeString(document.documentElement.lang || undefined, { hour: "2-digit", minute: "2-digit" });
}

function lineItem(line) {
  const item = el("li", { "data-line": line.line, "data-author": line.author.id, "data-testid": "chat-line" });
  item.append(el("time", { datetime: line.at, class: "chat-time" }, time(line.at)), " ");
  item.append(el("strong", { class: "chat-author" }, line.author.name), " ");
  item.append(el("span", { class: "chat-text" }, line.text));
  if (me.signedIn && line.author.id !== me.userId) {
    const menu = el("details", { class: "chat-actions" });
    const summary = el("summary", { "aria-label": t("actions", line.author.name), title: t("actions", line.author.name) }, "⋯");
    const mute = el("button", { type: "button", class: "linklike", "data-testid": "chat-mute" }, t("mute", line.author.name));
    mute.addEventListener("click", () => { socket.send({ type: "mute", player: line.author.id }); menu.open = false; });
    const report = el("button", { type: "button", class: "linklike", "data-testid": "chat-report" }, t("report"));
    report.addEventListener("click", () => { socket.send({ type: "report", line: line.line }); menu.open = false; });
    menu.append(summary, mute, report);
    item.append(" ", menu);
  }
  return item;
}

function showLines(part, lines) {
  const room = rooms.get(part);
  if (!room) return;
  room.list.replaceChildren(...lines.map(lineItem));
  room.empty.hidden = lines.length > 0 || room.room.closed;
  room.list.scrollTop = room.list.scrollHeight;
}

function addLine(line) {
  const room = rooms.get(line.part);
  if (!room || room.room.closed || room.list.querySelector(`[data-line="${line.line}"]`)) return;
  const atEnd = room.list.scrollHeight - room.list.scrollTop - room.list.clientHeight < 40;
  room.list.append(lineItem(line));
  room.empty.hidden = true;
  while (room.list.children.length > 100) room.list.firstElementChild.remove();
  if (atEnd) room.list.scrollTop = room.list.scrollHeight;
}

function setClosed(part, closed, lines) {
  const room = rooms.get(part);
  if (!room) return;
  room.room.closed = closed;
  room.closedNote.hidden = !closed;
  room.list.hidden = closed;
  if (room.form) room.form.hidden = closed || !room.room.writable || !!me.silencedUntil;
  if (room.toggle) room.toggle.textContent = closed ? t("open") : t("close");
  if (closed) room.list.replaceChildren();
  if (lines) showLines(part, lines);
  room.empty.hidden = closed || room.list.children.length > 0;
}

function roomSection(room) {
  const id = `chat-room-${room.part}`;
  // An event's one room is the panel's own "Chat": its heading is for screen readers only, and
  // it is no region of its own (a second landmark named "Chat" beside the panel's).
  const own = room.part !== "event";
  const section = el(own ? "section" : "div", { class: "chat-room", "data-part": room.part, "data-testid": `chat-room-${room.part}`, ...(own ? { "aria-labelledby": id + "-title" } : {}) });
  section.append(el("h3", { id: id + "-title", class: room.part === "event" ? "visually-hidden" : "chat-room-title" }, t(room.part)));
  // A list that announces its new lines (a `log` role would take its list semantics away).
  const list = el("ol", { class: "chat-lines", "aria-live": "polite", "aria-relevant": "additions", "aria-labelledby": id + "-title", tabindex: "0" });
  const empty = el("p", { class: "muted chat-empty" }, t("empty-room"));
  const closedNote = el("p", { class: "message warning chat-closed", "data-testid": "chat-closed" }, t("closed"));
  section.append(closedNote, list, empty);
  const entry = { section, list, empty, closedNote, room, form: null, toggle: null };
  if (room.writable && me.signedIn) {
    const form = el("form", { class: "chat-form", autocomplete: "off" });
    const input = el("input", { id: id + "-input", type: "text", maxlength: "200", "data-testid": "chat-input", "aria-label": t("write-" + room.part), placeholder: t("write-" + room.part), "aria-describedby": id + "-error" });
    // A line refused is said under the room it was typed in, and read with its field.
    const error = el("p", { id: id + "-error", class: "chat-error", "data-testid": "chat-error", role: "alert" });
    form.append(input, el("button", { type: "submit", class: "button small" }, t("send")), error);
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const text = input.value.trim();
      if (!text) { refused(input, t("e-empty")); return; }
      refused(input, "");
      sequence += 1;
      pendingInputs.set(sequence, input);
      socket.send({ type: "say", part: room.part, text, id: sequence });
    });
    section.append(form);
    entry.form = form;
  }
  if (room.closable) {
    const toggle = el("button", { type: "button", class: "button small secondary chat-toggle", "data-testid": "chat-toggle" });
    toggle.addEventListener("click", () => socket.send({ type: entry.room.closed ? "open" : "close" }));
    section.append(toggle);
    entry.toggle = toggle;
  }
  return entry;
}

const pendingInputs = new Map(); // request id -> the input it came from, cleared once said

function showMuted(players) {
  mutedBox.hidden = players.length === 0;
  mutedBox.querySelector("summary").textContent = `${t("muted-list")} (${players.length})`;
  mutedBox.querySelector("ul").replaceChildren(...players.map((player) => {
    const item = el("li", {}, player.name + " ");
    const button = el("button", { type: "button", class: "linklike", "data-testid": "chat-unmute" }, t("unmute"));
    button.addEventListener("click", () => socket.send({ type: "unmute", player: player.id }));
    item.append(button);
    return item;
  }));
  const muted = new Set(players.map((p) => p.id));
  for (const node of panel.querySelectorAll("[data-author]")) {
    if (muted.has(Number(node.dataset.author))) node.remove();
  }
}

function opened(message) {
  me = { signedIn: message.signed_in, silencedUntil: message.silenced_until, userId: message.user };
  rooms = new Map();
  const sections = [];
  for (const room of message.rooms) {
    const entry = roomSection(room);
    rooms.set(room.part, entry);
    sections.push(entry.section);
  }
  roomsBox.replaceChildren(...sections);
  if (rooms.has("players") && !rooms.has("spectators")) roomsBox.append(el("p", { class: "muted chat-shielded", "data-testid": "chat-shielded" }, t("shielded")));
  for (const room of message.rooms) setClosed(room.part, room.closed, room.closed ? null : room.lines);
  showMuted(message.muted);
  say(me.silencedUntil ? t("silenced", new Date(me.silencedUntil).toLocaleString(document.documentElement.lang || undefined)) : "");
}

// A refusal of a line typed goes under its room's field; one of no line (a mute, a report) at
// the panel's foot.
function refused(input, text) {
  const error = input && input.form && input.form.querySelector(".chat-error");
  if (error) error.textContent = text; else say(text);
}

function failed(message) {
  const input = pendingInputs.get(message.id);
  pendingInputs.delete(message.id);
  if (message.code === "too_fast") refused(input, t("e-too-fast", message.wait));
  else if (message.code === "silenced") { me.silencedUntil = message.until; say(t("silenced", new Date(message.until).toLocaleString(document.documentElement.lang || undefined))); }
  else refused(input, t("e-" + String(message.code).replace(/_/g, "-")) || t("e-other"));
  if (input) input.focus();
}

const handlers = {
  message(message) {
    switch (message.type) {
      case "chat": opened(message); break;
      case "line": addLine(message); break;
      case "said": {
        const input = pendingInputs.get(message.id);
        pendingInputs.delete(message.id);
        if (input) { input.value = ""; refused(input, ""); }
        break;
      }
      case "closed": setClosed(message.part, message.closed, message.lines); break;
      case "removed": panel.querySelector(`[data-line="${message.line}"]`)?.remove(); break;
      case "muted": showMuted(message.players); break;
      case "reported": say(t("reported")); break;
      case "error": failed(message); break;
      case "ended": { // a club's room, its viewer a member no more: the socket closes (4404)
        rooms = new Map();
        roomsBox.replaceChildren(el("p", { class: "message warning", "data-testid": "chat-ended" }, t("ended")));
        say("");
        break;
      }
    }
  },
};
let socket = window.LiveSocket.open(panel.dataset.chatSocket, handlers);

// A rated or event game over, its players may read the spectators too (RULES 9.1): the socket
// opens again and is told its rooms anew.
document.body.addEventListener("game-ended", () => {
  if (panel.dataset.place === "game" && rooms.has("players")) {
    socket.stop();
    socket = window.LiveSocket.open(panel.dataset.chatSocket, handlers);
  }
});
