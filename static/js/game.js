import { parseDraughtsFen } from "./draughts-fen.js";
import { draughtsSvg, drawDraughts } from "./board-draughts.js";

// The live game page: one websocket (docs/protocol.md), the server's state drawn as it comes.
// Chess on chessground (vendored); draughts on our own SVG board. Clocks tick locally from the
// server's last figures; the server alone decides (RULES 3). Around it: the move list with the
// imposed opening and navigation, premoves, the reasons a move is refused, sounds, ratings.
const root = document.getElementById("game");
const gameId = root.dataset.game;
const myColor = root.dataset.myColor || null;
const lang = root.dataset.lang;
const geometry = JSON.parse(document.getElementById("board-geometry").textContent);
// The board the variant is drawn on (games.rules.variants): chessground, or our draughts board.
const chessground = geometry.kind === "chessground";
// This game's figures, and the words every game page of the language shares (kept apart by the
// server, games/templates/games/game.html): the move box's commands and the texts it says.
const page = {
  ...JSON.parse(document.getElementById("game-words").textContent),
  ...JSON.parse(document.getElementById("game-page").textContent),
};
const t = (key) => root.dataset[key] || "";

let state = JSON.parse(document.getElementById("game-state").textContent);
// Every position of the game, the start first (navigation); kept in step with the states.
let positions = page.positions;
// The ply shown when the player looks back (null: the game as it stands, following it).
let viewPly = null;
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
// The announcements, the board's named squares and the text mode (static/js/textmode.js).
let access = null;

let heardAt = Date.now(); // when the socket last said anything (see the silence check below)
// Sent while (re)connecting: delivered on open; a stale ply is refused there.
// The socket opens once the board is built (the chess board loads a module first): a button
// pressed before that (resign, draw) waits here and goes out when the socket opens.
const early = [];
function send(message) { if (socket) socket.send(message); else early.push(message); }
const live = () => state.status === "live";
const following = () => viewPly === null;
const shownPly = () => (viewPly === null ? state.ply : viewPly);
const myTurn = () => myColor && live() && state.turn === myColor;

// --- a short notice: why a move was refused, a premove set or dropped ------------------------
let noticeTimer = null;
// Whether the notice shown speaks of the position on the board (a capture is compulsory, this
// piece cannot move, ...): it goes once a move has changed that position ("La presa è
// obbligatoria" must not stay on screen after the capture was played). The server's refusals and
// the premove notices keep their few seconds.
let noticeOfPosition = false;
function notice(text, ofPosition = false) {
  const el = document.getElementById("notice");
  noticeOfPosition = !!text && ofPosition;
  if (!text) { el.hidden = true; return; }
  if (access) access.announce(text); // said through the page's one live region
  el.textContent = text;
  el.hidden = false;
  clearTimeout(noticeTimer);
  noticeTimer = setTimeout(() => { el.hidden = true; }, 5000);
}

// --- sounds: synthesised (no files, the site works offline); the mute switch is remembered ---
const sound = (() => {
  const KEY = "circolo.sound";
  let ctx = null;
  let muted = localStorage.getItem(KEY) === "off";
  const tones = {
    move: [[520, 0.07, "triangle", 0.25]],
    capture: [[300, 0.09, "square", 0.18], [200, 0.11, "triangle", 0.25]],
    lowtime: [[880, 0.12, "sine", 0.2], [880, 0.12, "sine", 0.2]],
    end: [[660, 0.15, "sine", 0.2], [440, 0.25, "sine", 0.2]],
  };
  document.addEventListener("pointerdown", () => { if (ctx && ctx.state === "suspended") ctx.resume(); });
  function play(name) {
    if (muted) return;
    // What played, for the page's tests and anyone curious; the sound itself follows.
    root.dataset.lastSound = name;
    root.dataset.sounds = String(Number(root.dataset.sounds || 0) + 1);
    try {
      ctx = ctx || new AudioContext();
      let at = ctx.currentTime;
      for (const [freq, length, type, gain] of tones[name]) {
        const osc = ctx.createOscillator(), amp = ctx.createGain();
        osc.type = type; osc.frequency.value = freq;
        amp.gain.setValueAtTime(gain, at);
        amp.gain.exponentialRampToValueAtTime(0.001, at + length);
        osc.connect(amp).connect(ctx.destination);
        osc.start(at); osc.stop(at + length);
        at += length + 0.03;
      }
    } catch (e) { /* no audio here: the page works the same */ }
  }
  return {
    play,
    get muted() { return muted; },
    toggle() { muted = !muted; localStorage.setItem(KEY, muted ? "off" : "on"); },
  };
})();
const SPEAKER = '<svg viewBox="0 0 24 24" width="18" height="18" aria-hidden="true"><path d="M3 9v6h4l5 4V5L7 9H3z" fill="currentColor"/>';
const WAVES = '<path d="M15.5 8.5a5 5 0 0 1 0 7M18 6a8.5 8.5 0 0 1 0 12" stroke="currentColor" stroke-width="2" fill="none"/></svg>';
const CROSS = '<path d="M16 9l6 6M22 9l-6 6" stroke="currentColor" stroke-width="2"/></svg>';
function drawSoundButton() {
  const b = document.getElementById("sound");
  b.innerHTML = SPEAKER + (sound.muted ? CROSS : WAVES);
  b.title = sound.muted ? t("tSoundOff") : t("tSoundOn");
  b.setAttribute("aria-label", b.title);
  b.setAttribute("aria-pressed", String(!sound.muted));
}

// --- clocks ------------------------------------------------------------------------------
function timeLeft(color) {
  const c = state.clock;
  let ms = c[color + "_ms"];
  if (c.running === color && live()) ms -= performance.now() - receivedAt;
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
let lowWarned = false; // the low-time warning sounds once each time one's clock runs low
// drawClocks runs ten times a second on every open game page: it writes to the page only what
// changed (a clock above 10 s changes once a second, a finished game's never), so an idle page
// costs the browser no style or layout work, on a phone's battery or beside other tabs.
function setText(el, text) { if (el.textContent !== text) el.textContent = text; }
function setClass(el, name) { if (el.className !== name) el.className = name; }
function drawClocks() {
  for (const el of root.querySelectorAll(".clock")) {
    const color = sideColor(el.dataset.side);
    const left = timeLeft(color);
    setText(el, formatMs(left));
    el.classList.toggle("running", state.clock.running === color && live());
    el.classList.toggle("low", live() && left < page.low_ms && (state.clock.running === color || color === myColor));
  }
  if (myColor && live() && state.clock.running === myColor) {
    const low = timeLeft(myColor) < page.low_ms;
    if (low && !lowWarned) {
      sound.play("lowtime");
      if (access) access.announce(page.texts.low_time.replace("{s}", Math.round(page.low_ms / 1000)));
    }
    lowWarned = low;
  }
  for (const el of root.querySelectorAll(".presence")) {
    const p = state[sideColor(el.dataset.side)];
    let mark = "○ ", words;
    if (p.connected) { mark = "● "; words = t("tOnline"); setClass(el, "presence on"); }
    else {
      setClass(el, "presence off");
      if (p.away_since_ms && live()) {
        const serverNow = state.clock.at_ms + (performance.now() - receivedAt);
        const left = Math.max(0, Math.ceil(30 - (serverNow - p.away_since_ms) / 1000));
        words = t("tAway").replace("%s", left);
      } else words = t("tOffline");
    }
    // The words in their own element (game.html): a phone shows only a connected player's dot.
    setText(el.firstElementChild, mark);
    setText(el.lastElementChild, words);
  }
}
setInterval(drawClocks, 100);

// --- draughts board ----------------------------------------------------------------------
function draughtsBoard(el) {
  let selected = null;
  let premove = null; // {from, to}: one queued move, played at my turn if still legal
  let premoveFrom = null; // a piece picked for a premove, its square not chosen yet
  const svg = draughtsSvg(el, geometry);
  const movesFrom = (sq) => state.legal_moves.filter((m) => parseInt(m, 10) === sq);
  const dest = (m) => parseInt(m.split(/[-x]/).pop(), 10);
  const shownFen = () => (following() ? state.fen : positions[viewPly]);
  const shownLast = () => { const p = shownPly(); return p > 0 ? state.moves[p - 1] : null; };
  function render() {
    drawDraughts(svg, geometry, {
      fen: shownFen(),
      last: shownLast(),
      orientation,
      selected,
      targets: selected && following() ? movesFrom(selected).map(dest) : [],
      queued: premove ? [premove.from, premove.to] : premoveFrom ? [premoveFrom] : [],
    });
  }
  const squareAt = (e) => {
    const g = document.elementFromPoint(e.clientX, e.clientY)?.closest("[data-square]");
    return g && svg.contains(g) ? parseInt(g.dataset.square, 10) : null;
  };
  const captureCompulsory = () => state.legal_moves.some((m) => m.includes("x"));
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
  function cancelPremove() {
    if (!premove && !premoveFrom) return false;
    premove = premoveFrom = null;
    render();
    return true;
  }
  // The opponent's turn: a piece of mine, then a square, queue one move (a premove).
  function premoveClick(sq, pieces) {
    const mine = pieces[sq] && pieces[sq].color === myColor;
    if (premoveFrom !== null && sq !== premoveFrom && !mine) {
      premove = { from: premoveFrom, to: sq };
      premoveFrom = null;
      notice(t("tPremoveSet"));
    } else if (mine && sq !== premoveFrom) {
      premove = null; premoveFrom = sq;
    } else if (!cancelPremove()) {
      notice(t("tNotYourTurn"), true);
    } else premoveFrom = null;
    render();
  }
  // Click a piece then a square, or drag the piece there (pointer events: mouse, pen, touch).
  let drag = null;
  // A square clicked, or chosen with the keyboard (the grid of static/js/textmode.js): whether
  // a piece of mine is now picked on it.
  function clickSquare(sq) {
    const pieces = parseDraughtsFen(state.fen);
    if (!myTurn()) { premoveClick(sq, pieces); return false; }
    if (selected && selected !== sq && play(selected, sq)) return false;
    const mine = pieces[sq] && pieces[sq].color === myColor;
    if (selected && !mine) {
      // A square that is no destination of the piece picked: say why.
      notice(captureCompulsory() ? t("tCaptureCompulsory") : t("tNotADestination"), true);
    } else if (mine && !movesFrom(sq).length) {
      notice(captureCompulsory() ? t("tCaptureCompulsory") : t("tCannotMove"), true);
    }
    selected = movesFrom(sq).length ? sq : null;
    render();
    return selected !== null;
  }
  svg.addEventListener("pointerdown", (e) => {
    if (!myColor || !live() || !following()) return;
    const sq = squareAt(e);
    if (sq === null) return;
    if (clickSquare(sq)) {
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
    if (moved && to !== null && to !== from) notice(captureCompulsory() ? t("tCaptureCompulsory") : t("tNotADestination"), true);
    if (moved) render(); // dropped off target: the piece goes back, still selected
  });
  svg.addEventListener("pointercancel", () => { drag = null; render(); });
  svg.addEventListener("contextmenu", (e) => { if (cancelPremove()) e.preventDefault(); });
  return {
    render,
    pick(sq) {
      if (!myColor || !live() || !following()) return null;
      if (sq === null) { selected = null; render(); return null; }
      clickSquare(sq);
      return selected;
    },
    reset() { selected = null; drag = null; closeChooser(); },
    cancelPremove,
    // My turn has come: the queued move is played if it is still legal, else dropped.
    playPremove() {
      if (!premove) { premoveFrom = null; return; }
      const { from, to } = premove;
      premove = premoveFrom = null;
      const chosen = movesFrom(from).filter((m) => dest(m) === to);
      if (chosen.length === 1) send({ type: "move", ply: state.ply, move: chosen[0] });
      else if (chosen.length > 1) choosePath(chosen);
      else notice(t("tPremoveCancelled"));
      render();
    },
  };
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
  document.getElementById("board").closest(".board-wrap").after(box);
  box.querySelector("button").focus(); // a keyboard player goes on from here
}
// The side to move is in check when the move that led to the position says so (+ or #,
// RULES 2; an en-passant capture writes "e.p." after it).
function checkAt(ply) {
  const written = ply > 0 ? state.notation[ply - 1][1] : "";
  if (!/[+#]( e\.p\.)?$/.test(written)) return false;
  const moverIsWhite = (positions[ply] || state.fen).split(" ")[1] !== "w";
  return moverIsWhite ? "black" : "white";
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
function kingSquare(fen, color) {
  const rows = fen.split(" ")[0].split("/");
  const king = color === "white" ? "K" : "k";
  for (let r = 0; r < 8; r++) {
    let file = 0;
    for (const ch of rows[r]) {
      if (/\d/.test(ch)) { file += Number(ch); continue; }
      if (ch === king) return "abcdefgh"[file] + (8 - r);
      file += 1;
    }
  }
  return null;
}
// The mated or stalemated king, marked on the final position.
function endMarks() {
  const marks = new Map();
  if (live() || !following()) return marks;
  const cls = { checkmate: "mate", stalemate: "stalemate" }[state.reason];
  const square = cls && kingSquare(state.fen, state.turn);
  if (square) marks.set(square, cls);
  return marks;
}
function chessConfig() {
  const ply = shownPly();
  const fen = following() ? state.fen : positions[ply];
  const moveNow = following() && myTurn();
  const last = ply > 0 ? [state.moves[ply - 1].slice(0, 2), state.moves[ply - 1].slice(2, 4)] : undefined;
  const mated = following() && state.reason === "checkmate" ? state.turn : false;
  return {
    fen: fen.split(" ")[0],
    orientation,
    turnColor: following() ? state.turn : (fen.split(" ")[1] === "w" ? "white" : "black"),
    lastMove: last,
    check: mated || (following() && !live() ? false : checkAt(ply)),
    highlight: { lastMove: true, check: true, custom: endMarks() },
    movable: {
      free: false,
      // Mine to move, or to premove while the opponent thinks (only on the game as it stands).
      color: myColor && live() && following() ? myColor : undefined,
      dests: moveNow ? chessDests() : new Map(),
      showDests: true,
    },
    premovable: { enabled: !!myColor && live() && following() },
  };
}
async function chessBoard(el) {
  const { Chessground } = await import(root.dataset.chessground);
  let premoved = false; // a premove is queued (chessground keeps it)
  const api = Chessground(el, {
    ...chessConfig(),
    movable: {
      ...chessConfig().movable,
      events: {
        after(orig, dest) {
          premoved = false;
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
    premovable: {
      ...chessConfig().premovable,
      events: {
        set() { premoved = true; notice(t("tPremoveSet")); },
        unset() { premoved = false; },
      },
    },
    events: {
      // A piece picked that cannot move, or the opponent's turn without a piece of mine: why.
      select(key) {
        if (!myColor || !live() || !following()) return;
        // The click that dropped my piece on `key` is reported as a selection too, a moment
        // later, while the page still holds the position before the move (the server has not
        // answered yet): not a piece that cannot move. On my turn the page's own last move is
        // the opponent's, on one of their pieces, which says nothing anyway.
        const last = api.state.lastMove;
        if (myTurn() && last && last[last.length - 1] === key) return;
        const piece = api.state.pieces.get(key);
        if (!myTurn()) {
          if (!piece || piece.color !== myColor) notice(t("tNotYourTurn"), true);
          return;
        }
        if (piece && piece.color === myColor && !chessDests().has(key)) {
          notice(checkAt(state.ply) === myColor ? t("tInCheck") : t("tCannotMove"), true);
        }
      },
    },
  });
  return {
    render() { api.set(chessConfig()); },
    // The keyboard's pick (static/js/textmode.js), through chessground's public selection:
    // a piece, then a destination, plays as a click does (the `after` event above).
    pick(key) {
      if (!myColor || !live() || !following()) return null;
      api.selectSquare(key);
      return api.state.selected || null;
    },
    reset() { closeChooser(); },
    cancelPremove() { if (!premoved) return false; api.cancelPremove(); premoved = false; return true; },
    playPremove() {
      if (!premoved) return;
      premoved = false;
      if (!api.playPremove()) notice(t("tPremoveCancelled"));
    },
    api,
  };
}

// --- the move list, with the imposed opening and navigation --------------------------------
function renderMoves() {
  const list = document.getElementById("moves");
  list.replaceChildren();
  const opening = page.opening;
  const written = (pair) => (lang === "en" ? pair[1] : pair[0]);
  const items = opening.notation.map((pair) => ({ text: written(pair), imposed: true }))
    .concat(state.notation.map((pair, i) => ({ text: written(pair), ply: i + 1 })));
  let row = null;
  items.forEach((item, k) => {
    const index = k + opening.offset;
    if (index % 2 === 0 || row === null) {
      row = document.createElement("li");
      row.dataset.n = opening.first_number + Math.floor(index / 2);
      list.appendChild(row);
      if (index % 2 === 1) {
        const gap = document.createElement("span");
        gap.className = "mv gap"; gap.textContent = "…";
        row.append(gap, " ");
      }
    }
    let el;
    if (item.imposed) {
      el = document.createElement("span");
      el.className = "mv imposed"; el.title = t("tImposed");
    } else {
      el = document.createElement("button");
      el.type = "button"; el.className = "mv"; el.dataset.ply = item.ply;
      if (item.ply === shownPly()) el.classList.add("current");
    }
    el.textContent = item.text;
    row.append(el, " "); // a space between moves, as the text reads (and copies)
  });
  if (following()) list.scrollTop = list.scrollHeight;
  else list.querySelector(".current")?.scrollIntoView({ block: "nearest" });
  const viewing = document.getElementById("viewing");
  viewing.hidden = following();
  if (!following()) {
    viewing.replaceChildren(document.createTextNode(viewingText(viewPly) + " "));
    const back = document.createElement("button");
    back.type = "button"; back.className = "linklike"; back.dataset.nav = "last";
    back.textContent = t("tBackLive");
    viewing.appendChild(back);
  }
  for (const b of root.querySelectorAll(".move-nav [data-nav]")) {
    const ply = shownPly();
    b.disabled = (b.dataset.nav === "first" || b.dataset.nav === "prev") ? ply === 0 : ply === state.ply;
  }
}
// The position shown is named as a player reads it, by the move that led to it
// ("2… 9-13", numbered as the list numbers it), not by the count of half-moves ("mossa 1").
function viewingText(ply) {
  const opening = page.opening;
  if (ply === 0) return opening.notation.length ? t("tViewingOpening") : t("tViewingStart");
  const index = opening.notation.length + ply - 1 + opening.offset;
  const number = opening.first_number + Math.floor(index / 2);
  const pair = state.notation[ply - 1];
  const move = `${number}${index % 2 === 0 ? "." : "…"} ${lang === "en" ? pair[1] : pair[0]}`;
  return t("tViewing").replace("%s", move);
}
function go(ply) {
  const target = Math.max(0, Math.min(ply, state.ply));
  viewPly = target === state.ply ? null : target;
  board.reset();
  board.render();
  renderMoves();
}
function nav(action) {
  const ply = shownPly();
  go({ first: 0, prev: ply - 1, next: ply + 1, last: state.ply }[action]);
  if (access) access.render();
}
root.addEventListener("click", (e) => {
  const target = e.target.closest("[data-nav], .mv[data-ply]");
  if (!target) return;
  if (target.dataset.nav) nav(target.dataset.nav);
  else go(Number(target.dataset.ply));
});
document.addEventListener("keydown", (e) => {
  if (e.target.closest("input, textarea, select") || e.altKey || e.ctrlKey || e.metaKey) return;
  // The board's grid has its own arrows, Home and End (static/js/textmode.js); Esc there
  // also drops a premove.
  if (e.target.closest(".board-grid") && e.key !== "Escape") return;
  const action = { ArrowLeft: "prev", ArrowRight: "next", Home: "first", End: "last", ArrowUp: "first", ArrowDown: "last" }[e.key];
  if (action) { e.preventDefault(); nav(action); }
  else if (e.key === "Escape" && board.cancelPremove()) notice("");
});

// --- the rest of the page ----------------------------------------------------------------
// RULES 8 boost: offered in arena games, before one's own first move.
function hasMoved(color) {
  const first = state.ply % 2 === 0 ? state.turn : (state.turn === "white" ? "black" : "white");
  return state.ply >= (color === first ? 1 : 2);
}
function ratingText(color) {
  const r = page.ratings[color];
  if (!r) return "";
  let text = String(r.rating);
  if (r.delta !== null && r.delta !== undefined) text += r.delta >= 0 ? ` +${r.delta}` : ` −${-r.delta}`;
  return text;
}
let eventReturn = null; // the way back to the event, after an arena game ends
let drawDeclined = null; // the last `draw_declined` heard: {offer, version, ply}
let takebackDeclined = null; // the last `takeback_declined` heard, the same way
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
  for (const el of root.querySelectorAll(".prating")) {
    const color = sideColor(el.dataset.side), r = page.ratings[color];
    el.textContent = ratingText(color);
    el.classList.toggle("up", !!r && r.delta > 0);
    el.classList.toggle("down", !!r && r.delta < 0);
    el.title = !live() && page.ratings.with_event && page.ratings.rated ? t("tRatedWithEvent") : "";
  }
  const boost = document.getElementById("boost");
  if (boost) {
    boost.hidden = !(live() && myColor && state.boost && state.boost.offered
      && !state.boost[myColor] && !hasMoved(myColor));
  }
  const back = document.getElementById("event-return");
  if (back && !live() && myColor && root.dataset.eventReturns === "1" && !eventReturn) {
    // Back to the arena page after a few seconds (a new pairing takes the player to the
    // board before that, live/static/live/mygame.js); "Resta qui" keeps the finished game on screen.
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
  renderMoves();
  const banner = document.getElementById("result");
  if (!live()) {
    banner.textContent = resultText();
    banner.hidden = false;
  } else banner.hidden = true;
  const offer = state.draw_offer;
  const accept = document.getElementById("draw-accept"), decline = document.getElementById("draw-decline");
  const offerBtn = document.getElementById("draw-offer"), resign = document.getElementById("resign");
  const incoming = live() && myColor && offer && offer !== myColor;
  if (accept) { accept.hidden = !incoming; decline.hidden = !incoming; }
  if (offerBtn) offerBtn.hidden = !live() || incoming;
  if (resign) resign.hidden = !live();
  const analyse = document.getElementById("analyse");
  // The analysis board, for a finished game with moves to go through (not one aborted at once).
  if (analyse) analyse.hidden = live() || state.ply === 0;
  // FIDE 9.2-9.3: the claim only when the rules allow one now, to the side to move.
  const claim = document.getElementById("draw-claim");
  if (claim) claim.hidden = !(myTurn() && state.draw_claimable);
  // RULES 3: abort before one's own first move (no event); takebacks and +15 s (casual).
  const mine = live() && myColor;
  const abort = document.getElementById("abort");
  if (abort) abort.hidden = !(mine && state.abortable && !hasMoved(myColor));
  const asked = state.takeback, askedOfMe = mine && asked && asked !== myColor;
  const takeback = document.getElementById("takeback");
  if (takeback) takeback.hidden = !(mine && state.takebacks && hasMoved(myColor) && !asked);
  for (const id of ["takeback-accept", "takeback-decline"]) {
    const button = document.getElementById(id);
    if (button) button.hidden = !askedOfMe;
  }
  const moreTime = document.getElementById("more-time");
  if (moreTime) moreTime.hidden = !(mine && state.takebacks);
  const line = document.getElementById("status-line");
  // My offer declined (`draw_declined`, docs/protocol.md) is said until the next
  // move or offer: the state it follows is the one without my offer, at the same ply.
  const declinedMine = live() && myColor && drawDeclined && drawDeclined.offer === myColor
    && !offer && state.ply === drawDeclined.ply && state.version >= drawDeclined.version;
  const takebackRefused = mine && takebackDeclined && takebackDeclined.offer === myColor
    && !asked && state.ply === takebackDeclined.ply && state.version >= takebackDeclined.version;
  line.textContent = incoming ? t("tDrawOffered") : live() && myColor && offer === myColor ? t("tYouOffered")
    : declinedMine ? t("tDrawDeclined") : askedOfMe ? t("tTakebackAsked")
    : mine && asked === myColor ? t("tYouAskedTakeback") : takebackRefused ? t("tTakebackDeclined") : "";
}
function resultText() {
  // RULES 3: an aborted game has no result to write.
  if (state.reason === "aborted") return root.getAttribute("data-r-aborted") || state.reason;
  const text = { "1-0": t("tWhiteWins"), "0-1": t("tBlackWins"), "1/2-1/2": t("tDraw"), "0-0": t("tNobody") }[state.result] || state.result;
  // The result as people write it (½-½), not PGN's 1/2-1/2.
  const written = state.result === "1/2-1/2" ? "½-½" : state.result;
  return `${written} · ${text} · ${root.getAttribute("data-r-" + state.reason) || state.reason}`;
}
function keepPositions(next) {
  // One more ply: its position is the state's; a gap (a state missed): ask for them all.
  if (next.ply === positions.length) positions.push(next.fen);
  else if (next.ply === positions.length - 1) positions[next.ply] = next.fen;
  else {
    positions.length = Math.min(positions.length, next.ply + 1);
    fetch(`/games/${gameId}/positions/`).then((r) => r.json()).then((data) => {
      positions = data.positions;
      if (!following()) board.render();
    }).catch(() => {});
  }
}
function apply(next) {
  // STYLE 4: every change the server pushes has a newer version; states arrive from several
  // threads and processes, so an older or repeated one is dropped.
  if (next.version <= state.version) return;
  const moved = next.ply !== state.ply || next.status !== state.status;
  const ended = state.status === "live" && next.status !== "live";
  const newMove = next.ply > state.ply;
  const prev = state;
  state = next;
  keepPositions(next);
  receivedAt = performance.now() - ageOf(next);
  if (newMove) {
    if (noticeOfPosition) notice(""); // it spoke of the position before this move
    const last = state.notation[state.notation.length - 1];
    sound.play(last && last[0].includes("x") ? "capture" : "move");
  }
  if (ended) {
    sound.play("end");
    document.body.dispatchEvent(new Event("game-ended"));
  }
  // A presence or draw-offer change leaves the board (and a half-made move) as it is.
  if (board && moved) { board.reset(); board.render(); }
  if (board && newMove && myTurn() && following()) board.playPremove();
  if (board && !live()) board.cancelPremove();
  renderSide();
  drawClocks();
  renderChessOpening();
  if (access) {
    if (moved) access.unpick();
    access.changed(prev, next);
  }
}
// The chess opening's ECO code and name. The server sends it in the full state and,
// in a move, only when the move reaches a named position (docs/protocol.md): the last one
// received stands.
function renderChessOpening() {
  const line = document.getElementById("chess-opening");
  const opening = state.chess_opening;
  if (!line || !opening) return;
  line.querySelector("[data-eco]").textContent = opening.eco;
  // In Italian where Italian players have a name for it (docs/protocol.md, `name_it`).
  const name = line.querySelector("[data-opening-name]");
  const italian = lang === "it" && opening.name_it;
  name.textContent = italian ? opening.name_it : opening.name;
  name.lang = italian && opening.name_it !== opening.name ? "it" : "en";
  line.hidden = false;
}
function refreshRatings() {
  fetch(`/games/${gameId}/ratings/`).then((r) => r.json()).then((data) => {
    page.ratings = data;
    renderSide();
  }).catch(() => {});
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
      else if (message.type === "settled") refreshRatings(); // rated: the change is known
      else if (message.type === "takeback_declined") {
        takebackDeclined = message;
        renderSide();
        if (access && myColor && message.offer === myColor) access.announce(t("tTakebackDeclined"));
      }
      else if (message.type === "draw_declined") {
        drawDeclined = message;
        renderSide();
        if (access && myColor && message.offer === myColor) access.announce(t("tDrawDeclined"));
      }
      else if (message.type === "error") {
        if (access && access.refused(message)) {
          if (!(message.version <= state.version)) send({ type: "sync" });
        } else if (message.code === "no_draw_to_claim") notice(t("tNoClaim"));
        else if (message.code === "rate_limited" || message.code === "unavailable") {
          // Something of ours was dropped unread (docs/protocol.md, "Budgets"), or the server
          // could not reach its data in time ("Answered in time"): the state, a little later,
          // says what became of it.
          board.render();
          setTimeout(() => send({ type: "sync" }), 2000);
        } else {
          const key = "tE" + message.code.replace(/(^|_)([a-z])/g, (_, __, c) => c.toUpperCase());
          if (t(key)) notice(t(key));
          if (!(message.version <= state.version)) send({ type: "sync" }); // we missed a change
          board.render(); // a refused move goes back
        }
      }
    },
    close() {
      document.getElementById("status-line").textContent = t("tReconnecting");
      if (access) access.announce(t("tReconnecting"));
    },
  });
  for (const message of early.splice(0)) socket.send(message);
}

// Pushes travel over Redis pub/sub (docs/protocol.md): one sent while the server was cut off
// from Redis is not sent again. A live game silent for 15 s (GAME_RESYNC_SECONDS) asks for the
// state, which costs the server one read and puts the board right if anything was missed.
const resyncMs = page.resync_ms || 15000;
setInterval(() => {
  if (live() && socket && socket.isOpen && Date.now() - heardAt > resyncMs) {
    heardAt = Date.now();
    send({ type: "sync" });
  }
}, Math.min(5000, resyncMs / 3));

// A new game of mine (a rematch accepted, a tournament's return leg, …) is the site socket's
// one handler's (live/static/live/mygame.js): it asks this page whether its game is
// still being played, and then never takes the page away.
window.circoloGamePage = { id: gameId, live };

function confirmThen(message, action) { if (window.confirm(message)) action(); }
root.querySelector("#flip").addEventListener("click", () => {
  orientation = orientation === "white" ? "black" : "white";
  if (chessground) board.api.set({ orientation }); else board.render();
  if (access) access.rebuild();
  renderSide(); drawClocks();
});
root.querySelector("#sound").addEventListener("click", () => { sound.toggle(); drawSoundButton(); });
root.querySelector("#resign")?.addEventListener("click", () => confirmThen(t("tConfirmResign"), () => send({ type: "resign", ply: state.ply })));
root.querySelector("#draw-offer")?.addEventListener("click", () => confirmThen(t("tConfirmDraw"), () => send({ type: "draw_offer" })));
root.querySelector("#draw-claim")?.addEventListener("click", () => send({ type: "draw_claim", ply: state.ply }));
root.querySelector("#draw-accept")?.addEventListener("click", () => send({ type: "draw_accept" }));
root.querySelector("#draw-decline")?.addEventListener("click", () => send({ type: "draw_decline" }));
root.querySelector("#boost")?.addEventListener("click", () => confirmThen(t("tConfirmBoost"), () => send({ type: "boost", ply: state.ply })));
root.querySelector("#abort")?.addEventListener("click", () => confirmThen(t("tConfirmAbort"), () => send({ type: "abort", ply: state.ply })));
root.querySelector("#takeback")?.addEventListener("click", () => send({ type: "takeback_offer", ply: state.ply }));
root.querySelector("#takeback-accept")?.addEventListener("click", () => send({ type: "takeback_accept", ply: state.ply }));
root.querySelector("#takeback-decline")?.addEventListener("click", () => send({ type: "takeback_decline" }));
root.querySelector("#more-time")?.addEventListener("click", () => {
  send({ type: "more_time" });
  notice(t("tMoreTimeGiven"));
});

(async () => {
  const el = document.getElementById("board");
  // The module loads beside the chess board's, not before it: the socket waits for neither
  // longer than it must.
  const textmode = import(root.dataset.textmode);
  board = chessground ? await chessBoard(el) : draughtsBoard(el);
  try {
    access = (await textmode).setup({
      root, page, geometry, lang, myColor, t, send, resultText,
      state: () => state,
      positions: () => positions,
      shownFen: () => (following() ? state.fen : positions[viewPly]),
      orientation: () => orientation,
      timeLeft,
      pick: (key) => board.pick(key),
    });
    // How a move is said, for the page's tests (and anyone curious): `[Italian, English]`
    // notation in, the words of the live region out.
    window.circoloGamePage.speak = access.speakMove;
  } catch (error) {
    // The game is played all the same, by mouse and touch.
    console.error(error);
    access = null;
  }
  board.render();
  drawSoundButton();
  renderSide();
  drawClocks();
  connect();
  if (access) access.opened();
})();
