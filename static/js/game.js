// The live game page: one websocket (docs/protocol.md), the server's state drawn as it comes.
// Chess on chessground (vendored); draughts on our own SVG board. Clocks tick locally from the
// server's last figures; the server alone decides.
const root = document.getElementById("game");
const gameId = root.dataset.game;
const variant = root.dataset.variant;
const myColor = root.dataset.myColor || null;
const lang = root.dataset.lang;
const geometry = JSON.parse(document.getElementById("board-geometry").textContent);
const t = (key) => root.dataset[key] || "";
const SVGNS = "http://www.w3.org/2000/svg";

let state = JSON.parse(document.getElementById("game-state").textContent);
// Players see their own side at the bottom. Spectators see White at the bottom in every
// variant: English draughts diagrams too are printed with White (squares 21–32) at the bottom
// and Black (1–12) at the top, although Black moves first.
let orientation = myColor || "white";

// Clock latency compensation: a state's figures are the server's at `clock.at_ms`; by the time
// it arrives the running clock has already run for the message's age. The age is the client
// clock minus `at_ms`, less the smallest such difference seen (the clocks' offset plus the
// fastest transit), capped so a suspended tab or a skewed clock cannot run a clock away.
let offset = Infinity;
function ageOf(s) {
  const d = Date.now() - s.clock.at_ms;
  offset = Math.min(offset, d);
  return Math.max(0, Math.min(2000, d - offset));
}
let receivedAt = performance.now() - ageOf(state);
let socket = null; // LiveSocket (live/socket.js): reconnects by itself
let board = null; // chess: chessground api; draughts: {render}

let heardAt = Date.now(); // when the socket last said anything (see the silence check below)
// Sent while (re)connecting: delivered on open; a stale ply is refused there.
function send(message) { socket.send(message); }

// --- clocks ------------------------------------------------------------------------------
function timeLeft(color) {
  const c = state.clock;
  let ms = c[color + "_ms"];
  if (c.running === color && state.status === "live") ms -= performance.now() - receivedAt;
  return Math.max(0, ms);
}
function formatMs(ms) {
  const total = Math.ceil(ms / 100) / 10;
  const m = Math.floor(total / 60), s = total - 60 * m;
  if (total < 10) return `${m}:${s.toFixed(1).padStart(4, "0")}`;
  return `${m}:${String(Math.floor(s)).padStart(2, "0")}`;
}
function sideColor(side) {
  const top = orientation === "white" ? "black" : "white";
  return side === "top" ? top : orientation;
}
function drawClocks() {
  for (const el of root.querySelectorAll(".clock")) {
    const color = sideColor(el.dataset.side);
    el.textContent = formatMs(timeLeft(color));
    el.classList.toggle("running", state.clock.running === color && state.status === "live");
  }
  for (const el of root.querySelectorAll(".presence")) {
    const p = state[sideColor(el.dataset.side)];
    if (p.connected) { el.textContent = "● " + t("tOnline"); el.className = "presence on"; continue; }
    el.className = "presence off";
    if (p.away_since_ms && state.status === "live") {
      const serverNow = state.clock.at_ms + (performance.now() - receivedAt);
      const left = Math.max(0, Math.ceil(30 - (serverNow - p.away_since_ms) / 1000));
      el.textContent = "○ " + t("tAway").replace("%s", left);
    } else el.textContent = "○ " + t("tOffline");
  }
}
setInterval(drawClocks, 100);

// --- draughts board ----------------------------------------------------------------------
function parseDraughtsFen(fen) {
  const pieces = {};
  for (const part of fen.split(":").slice(1)) {
    const color = part[0] === "W" ? "white" : "black";
    for (const item of part.slice(1).split(",")) {
      if (!item) continue;
      const king = item.startsWith("K");
      pieces[parseInt(king ? item.slice(1) : item, 10)] = { color, king };
    }
  }
  return pieces;
}
function draughtsBoard(el) {
  const size = geometry.size, cell = 100;
  let selected = null;
  const svg = document.createElementNS(SVGNS, "svg");
  svg.setAttribute("viewBox", `0 0 ${size * cell} ${size * cell}`);
  svg.setAttribute("class", "draughts-svg");
  el.appendChild(svg);
  const xy = (sq) => {
    let [r, c] = geometry.squares[sq - 1];
    if (orientation !== "white") { r = size - 1 - r; c = size - 1 - c; }
    return [c * cell, r * cell];
  };
  const movesFrom = (sq) => state.legal_moves.filter((m) => parseInt(m, 10) === sq);
  const dest = (m) => parseInt(m.split(/[-x]/).pop(), 10);
  function render() {
    svg.replaceChildren();
    for (let r = 0; r < size; r++) for (let c = 0; c < size; c++) {
      const rect = document.createElementNS(SVGNS, "rect");
      rect.setAttribute("x", c * cell); rect.setAttribute("y", r * cell);
      rect.setAttribute("width", cell); rect.setAttribute("height", cell);
      rect.setAttribute("class", "sq light");
      svg.appendChild(rect);
    }
    const pieces = parseDraughtsFen(state.fen);
    const last = state.last_move ? state.last_move.split(/[-x]/).map((n) => parseInt(n, 10)) : [];
    const mine = myColor && state.status === "live" && state.turn === myColor;
    const targets = selected ? movesFrom(selected).map(dest) : [];
    geometry.squares.forEach((_, i) => {
      const sq = i + 1, [x, y] = xy(sq);
      const g = document.createElementNS(SVGNS, "g");
      g.setAttribute("data-square", sq);
      const rect = document.createElementNS(SVGNS, "rect");
      rect.setAttribute("x", x); rect.setAttribute("y", y);
      rect.setAttribute("width", cell); rect.setAttribute("height", cell);
      let cls = "sq dark";
      if (last.includes(sq)) cls += " last";
      if (sq === selected) cls += " selected";
      rect.setAttribute("class", cls);
      g.appendChild(rect);
      const label = document.createElementNS(SVGNS, "text");
      label.setAttribute("x", x + 4); label.setAttribute("y", y + 18);
      label.setAttribute("class", "sqnum"); label.textContent = sq;
      g.appendChild(label);
      const p = pieces[sq];
      if (p) {
        const circle = document.createElementNS(SVGNS, "circle");
        circle.setAttribute("cx", x + cell / 2); circle.setAttribute("cy", y + cell / 2);
        circle.setAttribute("r", cell * 0.38);
        circle.setAttribute("class", `piece ${p.color}${p.king ? " king" : ""}`);
        g.appendChild(circle);
        if (p.king) {
          const k = document.createElementNS(SVGNS, "text");
          k.setAttribute("x", x + cell / 2); k.setAttribute("y", y + cell / 2 + 14);
          k.setAttribute("class", `crown ${p.color}`); k.textContent = "♛";
          g.appendChild(k);
        }
      }
      if (targets.includes(sq)) {
        const dot = document.createElementNS(SVGNS, "circle");
        dot.setAttribute("cx", x + cell / 2); dot.setAttribute("cy", y + cell / 2);
        dot.setAttribute("r", cell * 0.14); dot.setAttribute("class", "dest");
        g.appendChild(dot);
      }
      svg.appendChild(g);
    });
  }
  const mine = () => myColor && state.status === "live" && state.turn === myColor;
  const squareAt = (e) => {
    const g = document.elementFromPoint(e.clientX, e.clientY)?.closest("[data-square]");
    return g && svg.contains(g) ? parseInt(g.dataset.square, 10) : null;
  };
  function play(from, to) {
    const chosen = movesFrom(from).filter((m) => dest(m) === to);
    if (!chosen.length) return false;
    selected = null;
    if (chosen.length === 1) send({ type: "move", ply: state.ply, move: chosen[0] });
    // Two capture paths with the same start and end: the player says which.
    else choosePath(chosen);
    render();
    return true;
  }
  function choosePath(paths) {
    const ply = state.ply;
    chooser(t("tChoosePath"), paths.map((m) => [m, () => { if (state.ply === ply) send({ type: "move", ply, move: m }); }]));
  }
  // Click a piece then a square, or drag the piece there (pointer events: mouse, pen, touch).
  let drag = null;
  svg.addEventListener("pointerdown", (e) => {
    if (!mine()) return;
    const sq = squareAt(e);
    if (sq === null) return;
    if (selected && selected !== sq && play(selected, sq)) return;
    selected = movesFrom(sq).length ? sq : null;
    render();
    if (selected) {
      drag = { from: sq, moved: false };
      svg.setPointerCapture(e.pointerId);
      e.preventDefault();
    }
  });
  svg.addEventListener("pointermove", (e) => {
    if (!drag) return;
    const piece = svg.querySelector(`g[data-square="${drag.from}"] .piece`);
    if (!piece) return;
    const p = new DOMPoint(e.clientX, e.clientY).matrixTransform(svg.getScreenCTM().inverse());
    piece.setAttribute("cx", p.x); piece.setAttribute("cy", p.y);
    piece.classList.add("dragging");
    drag.moved = true;
  });
  svg.addEventListener("pointerup", (e) => {
    if (!drag) return;
    const { from, moved } = drag;
    drag = null;
    const to = squareAt(e);
    if (to !== null && to !== from && play(from, to)) return;
    if (moved) render(); // dropped off target: the piece goes back, still selected
  });
  svg.addEventListener("pointercancel", () => { drag = null; render(); });
  return { render, reset() { selected = null; drag = null; closeChooser(); } };
}

// --- a small chooser (promotion piece, capture path) --------------------------------------
function closeChooser() { document.getElementById("chooser")?.remove(); }
function chooser(title, options, onCancel) {
  closeChooser();
  const box = document.createElement("div");
  box.id = "chooser"; box.className = "chooser"; box.setAttribute("role", "dialog");
  box.setAttribute("data-testid", "chooser");
  const p = document.createElement("p"); p.textContent = title; box.appendChild(p);
  for (const [label, action] of options) {
    const b = document.createElement("button");
    b.type = "button"; b.className = "button small"; b.textContent = label;
    b.addEventListener("click", () => { closeChooser(); action(); });
    box.appendChild(b);
  }
  const cancel = document.createElement("button");
  cancel.type = "button"; cancel.className = "button small secondary"; cancel.textContent = "×";
  cancel.setAttribute("aria-label", t("tCancel"));
  cancel.addEventListener("click", () => { closeChooser(); if (onCancel) onCancel(); else board.render(); });
  box.appendChild(cancel);
  document.getElementById("board").after(box);
}
// The side to move is in check when the last move's notation says so (+ or #, RULES 2; an
// en-passant capture writes "e.p." after it).
function inCheck() {
  const last = state.notation.length ? state.notation[state.notation.length - 1][1] : "";
  return state.status === "live" && /[+#]( e\.p\.)?$/.test(last) ? state.turn : false;
}

// --- chess board -------------------------------------------------------------------------
function chessDests() {
  const dests = new Map();
  for (const m of state.legal_moves) {
    const from = m.slice(0, 2), to = m.slice(2, 4);
    if (!dests.has(from)) dests.set(from, []);
    if (!dests.get(from).includes(to)) dests.get(from).push(to);
  }
  return dests;
}
function chessConfig() {
  const mine = myColor && state.status === "live" && state.turn === myColor;
  const last = state.last_move ? [state.last_move.slice(0, 2), state.last_move.slice(2, 4)] : undefined;
  return {
    fen: state.fen.split(" ")[0],
    orientation,
    turnColor: state.turn,
    lastMove: last,
    check: inCheck(),
    movable: { free: false, color: mine ? myColor : undefined, dests: mine ? chessDests() : new Map(), showDests: true },
  };
}
async function chessBoard(el) {
  const { Chessground } = await import(root.dataset.chessground);
  const api = Chessground(el, {
    ...chessConfig(),
    movable: {
      ...chessConfig().movable,
      events: {
        after(orig, dest) {
          const base = orig + dest;
          if (state.legal_moves.includes(base)) return send({ type: "move", ply: state.ply, move: base });
          // Promotion: the player picks the piece; closing the chooser takes the move back.
          const ply = state.ply;
          const pieces = state.legal_moves.filter((m) => m.length === 5 && m.startsWith(base));
          const glyphs = { q: "♛", r: "♜", b: "♝", n: "♞" };
          chooser(t("tPromote"), pieces.map((m) => [glyphs[m[4]] || m[4], () => { if (state.ply === ply) send({ type: "move", ply, move: m }); }]),
            () => api.set(chessConfig()));
        },
      },
    },
  });
  return { render() { api.set(chessConfig()); }, reset() { closeChooser(); }, api };
}

// --- the rest of the page ----------------------------------------------------------------
// RULES 8 boost: offered in arena games, before one's own first move.
function hasMoved(color) {
  const first = state.ply % 2 === 0 ? state.turn : (state.turn === "white" ? "black" : "white");
  return state.ply >= (color === first ? 1 : 2);
}
let eventReturn = null; // the way back to the event, after an arena game ends
function renderSide() {
  for (const el of root.querySelectorAll(".pname")) {
    const color = sideColor(el.dataset.side);
    el.textContent = state[color].name;
    if (state.boost && state.boost[color]) {
      const mark = document.createElement("span");
      mark.className = "boosted-mark";
      mark.dataset.testid = `boosted-${el.dataset.side}`;
      mark.title = t("tBoosted");
      mark.textContent = " ⚡";
      el.appendChild(mark);
    }
  }
  const boost = document.getElementById("boost");
  if (boost) {
    boost.hidden = !(state.status === "live" && myColor && state.boost && state.boost.offered
      && !state.boost[myColor] && !hasMoved(myColor));
  }
  const back = document.getElementById("event-return");
  if (back && state.status !== "live" && myColor && root.dataset.eventKind === "arena" && !eventReturn) {
    // Back to the arena page after a few seconds (a new pairing takes the player to the
    // board before that, arena.js); "Resta qui" keeps the finished game on screen.
    back.hidden = false;
    let left = 5;
    const tick = () => {
      back.querySelector("[data-left]").textContent = left;
      if (left-- <= 0) location.href = root.dataset.eventUrl;
    };
    tick();
    eventReturn = setInterval(tick, 1000);
    back.querySelector("[data-stay]").addEventListener("click", () => { clearInterval(eventReturn); back.querySelector("[data-countdown-line]").hidden = true; });
  }
  const list = document.getElementById("moves");
  list.replaceChildren();
  const written = state.notation.map((pair) => (lang === "en" ? pair[1] : pair[0]));
  for (let i = 0; i < written.length; i += 2) {
    const li = document.createElement("li");
    li.textContent = written[i] + (written[i + 1] ? "  " + written[i + 1] : "");
    list.appendChild(li);
  }
  list.scrollTop = list.scrollHeight;
  const banner = document.getElementById("result");
  if (state.status !== "live") {
    const text = { "1-0": t("tWhiteWins"), "0-1": t("tBlackWins"), "1/2-1/2": t("tDraw"), "0-0": t("tNobody") }[state.result] || state.result;
    banner.textContent = `${state.result} · ${text} · ${root.getAttribute("data-r-" + state.reason) || state.reason}`;
    banner.hidden = false;
  } else banner.hidden = true;
  const offer = state.draw_offer, live = state.status === "live";
  const accept = document.getElementById("draw-accept"), decline = document.getElementById("draw-decline");
  const offerBtn = document.getElementById("draw-offer"), resign = document.getElementById("resign");
  const incoming = live && myColor && offer && offer !== myColor;
  if (accept) { accept.hidden = !incoming; decline.hidden = !incoming; }
  if (offerBtn) offerBtn.hidden = !live || incoming;
  if (resign) resign.hidden = !live;
  const claim = document.getElementById("draw-claim");
  if (claim) claim.hidden = !live || state.turn !== myColor;
  const line = document.getElementById("status-line");
  line.textContent = incoming ? t("tDrawOffered") : live && myColor && offer === myColor ? t("tYouOffered") : "";
}
function apply(next) {
  // STYLE 4: every change the server pushes has a newer version; states arrive from several
  // threads and processes, so an older or repeated one is dropped.
  if (next.version <= state.version) return;
  const moved = next.ply !== state.ply || next.status !== state.status;
  state = next;
  receivedAt = performance.now() - ageOf(next);
  // A presence or draw-offer change leaves the board (and a half-made move) as it is.
  if (board && moved) { board.reset(); board.render(); }
  renderSide();
  drawClocks();
}

// A move travels as what it changed (docs/protocol.md, "played"): applied on top of the state
// of the version just before it; anything else (a gap) asks for the full state.
function applyMove(m) {
  if (m.version <= state.version) return;
  if (m.version !== state.version + 1 || m.ply !== state.ply + 1) { send({ type: "sync" }); return; }
  const next = { ...state, ...m, type: "state", last_move: m.move,
    moves: [...state.moves, m.move], notation: [...state.notation, m.notation] };
  delete next.move;
  apply(next);
}

function connect() {
  socket = LiveSocket.open(`/ws/game/${gameId}/`, {
    open() { document.getElementById("status-line").textContent = ""; },
    message(message) {
      heardAt = Date.now();
      if (message.type === "state") apply(message);
      else if (message.type === "played") applyMove(message);
      else if (message.type === "error") {
        if (message.code === "no_draw_to_claim") document.getElementById("status-line").textContent = t("tNoClaim");
        else if (!(message.version <= state.version)) send({ type: "sync" }); // we missed a change
      }
    },
    close() { document.getElementById("status-line").textContent = t("tReconnecting"); },
  });
}

// Pushes travel over Redis pub/sub (docs/protocol.md): one sent while the server was cut off
// from Redis is not sent again. A live game silent for 15 s asks for the state, which costs
// the server one read and puts the board right if anything was missed.
setInterval(() => {
  if (state.status === "live" && socket && socket.isOpen && Date.now() - heardAt > 15000) {
    heardAt = Date.now();
    send({ type: "sync" });
  }
}, 5000);

function confirmThen(message, action) { if (window.confirm(message)) action(); }
root.querySelector("#flip").addEventListener("click", () => {
  orientation = orientation === "white" ? "black" : "white";
  if (variant === "chess") board.api.set({ orientation }); else board.render();
  renderSide(); drawClocks();
});
root.querySelector("#resign")?.addEventListener("click", () => confirmThen(t("tConfirmResign"), () => send({ type: "resign", ply: state.ply })));
root.querySelector("#draw-offer")?.addEventListener("click", () => confirmThen(t("tConfirmDraw"), () => send({ type: "draw_offer" })));
root.querySelector("#draw-claim")?.addEventListener("click", () => send({ type: "draw_claim", ply: state.ply }));
root.querySelector("#draw-accept")?.addEventListener("click", () => send({ type: "draw_accept" }));
root.querySelector("#draw-decline")?.addEventListener("click", () => send({ type: "draw_decline" }));
root.querySelector("#boost")?.addEventListener("click", () => confirmThen(t("tConfirmBoost"), () => send({ type: "boost", ply: state.ply })));

(async () => {
  const el = document.getElementById("board");
  board = variant === "chess" ? await chessBoard(el) : draughtsBoard(el);
  board.render();
  renderSide();
  drawClocks();
  connect();
})();
