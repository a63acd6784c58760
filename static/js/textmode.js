// The game page for players who do not see the board (guide: /guida/senza-scacchiera/):
// - the page's one live region (WCAG 4.1.3): the opponent's move as players read it ("Cavallo in
//   f3", "22 per 18"), low time, a draw offer, the end, a refusal;
// - the board as a grid of named squares over the drawing, played by keyboard (arrows, Enter or
//   Space on the piece and then on its destination, Esc);
// - the text mode: the position as text and a move box. Moves typed there are read by the
//   server (docs/protocol.md, "Typed moves"), never judged here; the commands are the table of
//   games/textmode.py, handed over in the page's data.
// Everything said comes from what the state already carries (the notation of the moves, the
// FEN); names are built here, rules are not.

import { parseDraughtsFen } from "./draughts-fen.js";

export function setup(ctx) {
  const { root, page, geometry, lang, myColor } = ctx;
  const T = page.texts;
  const fill = (text, values) => text.replace(/\{(\w+)\}/g, (_, k) => (k in values ? values[k] : ""));
  const chess = geometry.kind === "chessground";
  const size = chess ? 8 : geometry.size;
  const FILES = "abcdefgh";
  const state = () => ctx.state();

  // --- the live region -------------------------------------------------------------------
  // A log (role="log"): each announcement a new line, so the same words said twice are said
  // twice; the last few stay for those who read them again, or see them in text mode.
  const region = document.getElementById("announce");
  let lastSaid = { text: "", at: 0 };
  function announce(text) {
    if (!text) return;
    // One event may reach here twice (a notice shown, and the same refusal from the server):
    // said once.
    const now = Date.now();
    if (text === lastSaid.text && now - lastSaid.at < 1000) return;
    lastSaid = { text, at: now };
    const line = document.createElement("p");
    line.textContent = text;
    region.appendChild(line);
    // The last few lines only: in text mode they are shown whole, never in a scrolled box.
    while (region.children.length > 6) region.firstElementChild.remove();
  }

  // --- positions read from the FEN -------------------------------------------------------
  function chessPieces(fen) {
    const pieces = {};
    fen.split(" ")[0].split("/").forEach((row, r) => {
      let file = 0;
      for (const ch of row) {
        if (/\d/.test(ch)) { file += Number(ch); continue; }
        pieces[FILES[file] + (8 - r)] = ch;
        file += 1;
      }
    });
    return pieces;
  }
  const chessName = (ch) => T[ch === ch.toUpperCase() ? ch : ch + "_"];
  const draughtsName = (p) => T[(p.king ? "king_" : "man_") + p.color];
  // What stands on a square of the position `fen`, named; "" when empty.
  function contents(fen, key) {
    if (chess) { const ch = chessPieces(fen)[key]; return ch ? chessName(ch) : ""; }
    const p = parseDraughtsFen(fen)[key];
    return p ? draughtsName(p) : "";
  }
  const squareWord = (key) => (chess ? key : fill(T.square, { n: key }));
  const squareLabel = (fen, key) => `${squareWord(key)}, ${contents(fen, key) || T.empty}`;

  // --- moves as players read them (RULES 2 notation, from the English SAN) -----------------
  // `before`: the position the move was played in, when known: a capture then names the piece
  // it takes ("Alfiere prende il cavallo in c6"; en passant, a pawn).
  function speakMove(pair, before) {
    const written = pair[1];
    if (!chess) {
      const squares = written.split(/[-x]/);
      if (!written.includes("x")) return fill(T.d_to, { from: squares[0], to: squares[1] });
      let text = fill(T.d_takes, { from: squares[0], to: squares[1] });
      for (const sq of squares.slice(2)) text += ", " + fill(T.d_then, { to: sq });
      return text;
    }
    let san = written.replace(" e.p.", "");
    let tail = "";
    if (san.endsWith("#")) { tail = T.mate; san = san.slice(0, -1); }
    else if (san.endsWith("+")) { tail = T.check; san = san.slice(0, -1); }
    if (written.includes("e.p.")) tail = T.en_passant + tail;
    if (/^[0O]-[0O]-[0O]/.test(san)) return T.long_castle + tail;
    if (/^[0O]-[0O]/.test(san)) return T.short_castle + tail;
    const m = san.match(/^([KQRBN])?([a-h])?([1-8])?(x)?([a-h][1-8])=?([QRBN])?$/);
    if (!m) return written;
    const [, letter, file, rank, capture, to, promo] = m;
    let piece = T[(letter || "P").toLowerCase()];
    if (file || rank) piece += " " + (file || "") + (rank || "");
    let text = fill(capture ? T.takes : T.to, { piece, to });
    if (capture && before) {
      const taken = written.includes("e.p.") ? "p" : (chessPieces(before)[to] || "").toLowerCase();
      if (T["taken_" + taken]) text = fill(T.takes_piece, { piece, taken: T["taken_" + taken], to });
    }
    if (promo) text += fill(T.promotes, { piece: T[promo.toLowerCase()].toLowerCase() });
    return text + tail;
  }
  const moverOf = (ply) => {
    // The side that made the ply-th move: the side to move in the position before it.
    const fen = ctx.positions()[ply - 1];
    if (!fen) return null;
    if (chess) return fen.split(" ")[1] === "w" ? "white" : "black";
    return fen[0] === "W" ? "white" : "black";
  };

  // --- what a new state says -------------------------------------------------------------
  function changed(prev, next) {
    if (next.ply > prev.ply) awaiting = null; // answered: it was played
    if (next.ply > prev.ply) {
      for (let ply = prev.ply + 1; ply <= next.ply; ply++) {
        const pair = next.notation[ply - 1];
        if (!pair) continue;
        const said = speakMove(pair, ctx.positions()[ply - 1]), mover = moverOf(ply);
        if (myColor && mover === myColor) announce(fill(T.you_played, { move: said }));
        else if (myColor) announce(said);
        else announce(fill(T.side_played, { side: T[mover === "white" ? "White" : "Black"], move: said }));
      }
    }
    const offer = next.draw_offer;
    if (next.status === "live" && offer && offer !== prev.draw_offer) {
      if (myColor && offer !== myColor) announce(ctx.t("tDrawOffered"));
      else if (myColor) announce(ctx.t("tYouOffered"));
    }
    if (prev.status === "live" && next.status !== "live") announce(ctx.resultText());
    if (next.boost && prev.boost) {
      for (const color of ["white", "black"]) {
        if (next.boost[color] && !prev.boost[color]) announce(`${T[color === "white" ? "White" : "Black"]}: ${ctx.t("tBoosted")}`);
      }
    }
    renderGrid();
    renderText();
  }
  function opened() {
    const s = state();
    if (s.status !== "live") { announce(ctx.resultText()); return; }
    if (myColor) {
      const other = myColor === "white" ? "black" : "white";
      announce(`${fill(T.start_mine, { name: s[other].name, color: T[myColor] })} ${s.turn === myColor ? T.your_turn : T.their_turn}`);
    } else announce(fill(T.start_watch, { white: s.white.name, black: s.black.name }));
  }

  // --- the board as a grid of named squares -----------------------------------------------
  const grid = document.getElementById("board-grid");
  let focusKey = null;
  let cells = new Map(); // key -> cell
  let places = new Map(); // key -> [row, col] as shown
  // The square shown at row r, column c (0 at the top left), or null (a light draughts square).
  function keyAt(r, c) {
    const flip = ctx.orientation() !== "white";
    if (chess) return flip ? FILES[7 - c] + (r + 1) : FILES[c] + (8 - r);
    const [br, bc] = flip ? [size - 1 - r, size - 1 - c] : [r, c];
    const i = geometry.squares.findIndex(([sr, sc]) => sr === br && sc === bc);
    return i < 0 ? null : i + 1;
  }
  function buildGrid() {
    grid.replaceChildren();
    cells = new Map(); places = new Map();
    for (let r = 0; r < size; r++) {
      const row = document.createElement("div");
      row.setAttribute("role", "row");
      for (let c = 0; c < size; c++) {
        const key = keyAt(r, c);
        const cell = document.createElement("div");
        if (key === null) { cell.setAttribute("aria-hidden", "true"); cell.className = "grid-pad"; }
        else {
          cell.setAttribute("role", "gridcell");
          cell.tabIndex = -1;
          cell.dataset.key = key;
          cells.set(String(key), cell);
          places.set(String(key), [r, c]);
        }
        // Placed by the CSS grid (CSSOM, allowed under the page's CSP).
        cell.style.gridRow = String(r + 1);
        cell.style.gridColumn = String(c + 1);
        row.appendChild(cell);
      }
      grid.appendChild(row);
    }
    if (focusKey === null || !cells.has(String(focusKey))) {
      // Start on one of my pieces' side: the bottom left square.
      focusKey = keyAt(size - 1, 0) ?? keyAt(size - 1, 1);
    }
    renderGrid();
  }
  function renderGrid() {
    const fen = ctx.shownFen();
    for (const [key, cell] of cells) {
      cell.setAttribute("aria-label", squareLabel(fen, chess ? key : Number(key)));
      cell.tabIndex = key === String(focusKey) ? 0 : -1;
      cell.classList.toggle("picked", key === String(picked));
    }
  }
  let picked = null;
  function focus(key) {
    focusKey = key;
    renderGrid();
    cells.get(String(key))?.focus();
  }
  function step(dr, dc) {
    let [r, c] = places.get(String(focusKey)) || [size - 1, 0];
    if (chess) {
      r = Math.max(0, Math.min(7, r + dr)); c = Math.max(0, Math.min(7, c + dc));
      return focus(keyAt(r, c));
    }
    // Draughts: only the dark squares; sideways two columns, up or down to the nearer one.
    if (dc) {
      for (let cc = c + 2 * dc; cc >= 0 && cc < size; cc += 2 * dc) if (keyAt(r, cc) !== null) return focus(keyAt(r, cc));
      return;
    }
    const rr = r + dr;
    if (rr < 0 || rr >= size) return;
    for (const cc of [c - 1, c + 1, c]) if (cc >= 0 && cc < size && keyAt(rr, cc) !== null) return focus(keyAt(rr, cc));
  }
  grid.addEventListener("keydown", (e) => {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    const moves = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
    if (moves[e.key]) { e.preventDefault(); step(...moves[e.key]); return; }
    if (e.key === "Home" || e.key === "End") {
      e.preventDefault();
      const [r] = places.get(String(focusKey));
      const row = [...places].filter(([, p]) => p[0] === r).map(([k]) => k);
      focus(e.key === "Home" ? row[0] : row[row.length - 1]);
      return;
    }
    if (e.key === "Enter" || e.key === " ") {
      e.preventDefault();
      const key = chess ? focusKey : Number(focusKey);
      const before = picked;
      picked = ctx.pick(key);
      if (picked !== null && picked !== undefined && String(picked) !== String(before)) {
        announce(fill(T.selected, { what: squareLabel(state().fen, key) }));
      }
      renderGrid();
      return;
    }
    if (e.key === "Escape" && picked !== null) {
      e.preventDefault();
      picked = ctx.pick(null);
      announce(T.unselected);
      renderGrid();
    }
  });
  grid.addEventListener("focusin", (e) => {
    const cell = e.target.closest("[data-key]");
    if (cell && cell.dataset.key !== String(focusKey)) { focusKey = cell.dataset.key; renderGrid(); }
  });

  // --- the position as text --------------------------------------------------------------
  const KINDS = ["k", "q", "r", "b", "n", "p"];
  const capital = (text) => text.charAt(0).toUpperCase() + text.slice(1);
  function piecesText(fen, only) {
    const groups = [];
    for (const color of ["white", "black"]) {
      if (only && only !== color) continue;
      if (chess) {
        const all = chessPieces(fen);
        for (const kind of KINDS) {
          const ch = color === "white" ? kind.toUpperCase() : kind;
          const squares = Object.keys(all).filter((k) => all[k] === ch).sort();
          const name = squares.length > 1 ? T["pl_" + (ch === kind ? kind + "_" : ch)] || chessName(ch) : chessName(ch);
          if (squares.length) groups.push(`${name}: ${squares.join(", ")}`);
        }
      } else {
        const all = parseDraughtsFen(fen);
        for (const king of [false, true]) {
          const squares = Object.keys(all).map(Number).filter((n) => all[n].color === color && all[n].king === king).sort((a, b) => a - b);
          const name = squares.length > 1 ? T[`pl_${king ? "king" : "man"}_${color}`] : draughtsName({ color, king });
          if (squares.length) groups.push(`${name}: ${squares.join(", ")}`);
        }
      }
    }
    return capital(groups.length ? groups.join("; ") + "." : T.nothing + ".");
  }
  function turnText() {
    const s = state();
    if (s.status !== "live") return ctx.resultText();
    if (myColor) return s.turn === myColor ? T.your_turn : T.their_turn;
    return fill(T.turn_of, { color: T[s.turn] });
  }
  const textBox = document.getElementById("text-mode");
  const positionLine = document.getElementById("text-position");
  function renderText() {
    if (textBox.hidden) return;
    // One line for the turn and one for each side's pieces: shorter lines for a Braille
    // display, and a sighted reader finds a side at a glance.
    const fen = ctx.shownFen();
    positionLine.replaceChildren(...[turnText(), piecesText(fen, "white"), piecesText(fen, "black")].map((text) => {
      const p = document.createElement("p");
      p.textContent = capital(text);
      return p;
    }));
  }

  // --- commands ------------------------------------------------------------------------
  function spokenTime(ms) {
    const s = Math.ceil(ms / 1000);
    return s >= 60 ? fill(T.minutes, { m: Math.floor(s / 60), s: s % 60 }) : fill(T.seconds, { s });
  }
  function clocksText() {
    const s = state();
    const values = { white: spokenTime(ctx.timeLeft("white")), black: spokenTime(ctx.timeLeft("black")) };
    if (s.status === "live" && s.clock.running) return fill(T.clocks, { ...values, running: T[s.clock.running] });
    return fill(T.clocks_stopped, values);
  }
  function line(keys) { // the named squares of a line, in order
    const fen = state().fen;
    return keys.map((k) => `${k} ${contents(fen, k) || T.empty}`).join(", ");
  }
  function scanText(arg) {
    arg = (arg || "").trim().toLowerCase();
    if (chess) {
      if (/^[a-h]$/.test(arg)) return `${fill(T.file, { f: arg })}: ${line([1, 2, 3, 4, 5, 6, 7, 8].map((r) => arg + r))}.`;
      if (/^[1-8]$/.test(arg)) return `${fill(T.rank, { r: arg })}: ${line([...FILES].map((f) => f + arg))}.`;
      if (/^[a-h][1-8]$/.test(arg)) {
        const f = FILES.indexOf(arg[0]), r = Number(arg[1]);
        const diagonal = (d) => {
          const keys = [];
          for (let i = -7; i <= 7; i++) {
            const ff = f + i, rr = r + i * d;
            if (ff >= 0 && ff < 8 && rr >= 1 && rr <= 8) keys.push(FILES[ff] + rr);
          }
          return keys;
        };
        return `${T.diagonal}: ${line(diagonal(1))}. ${T.diagonal}: ${line(diagonal(-1))}.`;
      }
      return T.scan_how;
    }
    const n = Number(arg);
    if (!/^\d+$/.test(arg) || n < 1 || n > geometry.squares.length) return T.scan_how;
    const [r, c] = geometry.squares[n - 1];
    const at = (rr, cc) => geometry.squares.findIndex(([a, b]) => a === rr && b === cc) + 1;
    const row = geometry.squares.map((p, i) => [p, i + 1]).filter(([p]) => p[0] === r).sort((a, b) => a[0][1] - b[0][1]).map(([, k]) => k);
    const diagonal = (d) => {
      const keys = [];
      for (let i = -size; i <= size; i++) { const k = at(r + i, c + i * d); if (k > 0) keys.push(k); }
      return keys;
    };
    return `${T.row}: ${line(row)}. ${T.diagonal}: ${line(diagonal(1))}. ${T.diagonal}: ${line(diagonal(-1))}.`;
  }
  function movesText() {
    const s = state();
    if (!s.notation.length) return T.no_moves;
    const written = (pair) => (lang === "en" ? pair[1] : pair[0]);
    // A move number counts the variant's first mover's move and the reply (English draughts:
    // Black, then White), whoever is to move in the start position.
    const toMove = chess ? (s.start_fen.split(" ")[1] === "w" ? "white" : "black") : (s.start_fen[0] === "W" ? "white" : "black");
    const first = toMove === (page.first_to_move || "white") ? 0 : 1;
    const parts = [];
    s.notation.forEach((pair, i) => {
      const index = i + first;
      parts.push((index % 2 === 0 || i === 0 ? `${Math.floor(index / 2) + 1}${index % 2 ? "…" : "."} ` : "") + written(pair));
    });
    return parts.join(" ") + ".";
  }
  function opponentText() {
    const s = state();
    if (!myColor) return fill(T.no_opponent, { white: s.white.name, black: s.black.name });
    const other = myColor === "white" ? "black" : "white";
    const r = page.ratings[other];
    return fill(T.opponent, {
      name: s[other].name,
      rating: r ? fill(T.rating, { r: r.rating }) : T.no_rating,
      presence: s[other].connected ? T.connected : T.not_connected,
    });
  }
  function helpText() {
    const list = page.commands.filter((c) => !c.boost_only || page.boost).map((c) => `${c.shown}: ${c.does}`).join("; ");
    return `${fill(T.help, { list })} ${chess ? T.help_moves_chess : T.help_moves_draughts}`;
  }
  const ACTIONS = {
    clocks: () => announce(clocksText()),
    last: () => {
      const s = state();
      announce(s.notation.length ? fill(T.last, { move: speakMove(s.notation[s.notation.length - 1], ctx.positions()[s.notation.length - 1]) }) : T.no_moves);
    },
    opponent: () => announce(opponentText()),
    position: () => announce(`${turnText()} ${piecesText(state().fen)}`),
    pieces: (arg) => {
      const a = (arg || "").trim().toLowerCase();
      const only = ["bianco", "bianchi", "white", "w"].includes(a) ? "white" : ["nero", "neri", "black"].includes(a) ? "black" : null;
      announce(piecesText(state().fen, only));
    },
    scan: (arg) => announce(scanText(arg)),
    moves: () => announce(movesText()),
    draw: () => {
      const s = state();
      if (!myColor) return announce(T.not_player);
      if (s.status !== "live") return announce(T.over);
      if (s.draw_offer && s.draw_offer !== myColor) ctx.send({ type: "draw_accept" });
      else { ctx.send({ type: "draw_offer" }); announce(T.draw_sent); }
    },
    resign: () => {
      const s = state();
      if (!myColor) return announce(T.not_player);
      if (s.status !== "live") return announce(T.over);
      ctx.send({ type: "resign", ply: s.ply });
    },
    boost: () => {
      const s = state();
      if (!myColor) return announce(T.not_player);
      if (!(s.boost && s.boost.offered)) return announce(T.no_boost);
      ctx.send({ type: "boost", ply: s.ply });
    },
    help: () => announce(helpText()),
  };
  const WORDS = new Map();
  for (const c of page.commands) for (const w of c.words) WORDS.set(w, c.key);
  let lastTyped = "";
  let awaiting = null; // a typed move sent, not yet answered: its refusal repeats it
  function typed(raw) {
    const text = raw.trim();
    if (!text) return;
    const [first, ...rest] = text.replace(/^\//, "").split(/\s+/);
    const key = WORDS.get(first.toLowerCase());
    if (key) { ACTIONS[key](rest.join(" ")); return; }
    const s = state();
    if (!myColor) return announce(T.not_player);
    if (s.status !== "live") return announce(T.over);
    lastTyped = awaiting = text;
    // The server reads the move (games/rules/typed.py) and plays it, or says why not.
    ctx.send({ type: "move", ply: s.ply, text, lang });
  }
  document.getElementById("text-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const box = document.getElementById("move-box");
    typed(box.value);
    box.value = "";
  });
  // The server's refusals of a typed move, said in the player's words.
  function refused(message) {
    const typedMove = awaiting;
    awaiting = null;
    if (message.code === "unreadable_move") { announce(fill(T.unreadable, { text: lastTyped })); return true; }
    if (message.code === "illegal_move" && typedMove) { announce(fill(T.illegal, { text: typedMove })); return true; }
    if (message.code === "ambiguous_move") {
      announce(fill(T.ambiguous, { choices: (message.choices || []).join(T.or) }));
      return true;
    }
    if (message.code === "not_a_player") { announce(T.not_player); return true; }
    return false;
  }

  // --- the switch: remembered per player (the account), per browser for guests ------------
  const KEY = "circolo.textmode";
  const toggle = document.getElementById("text-toggle");
  function show(on) {
    textBox.hidden = !on;
    region.classList.toggle("visually-hidden", !on);
    toggle.setAttribute("aria-pressed", String(on));
    root.classList.toggle("text-on", on);
    renderText();
  }
  const asked = new URLSearchParams(location.search).get("testo");
  let on = page.signed_in ? page.text_mode : localStorage.getItem(KEY) === "on";
  if (asked === "1" || asked === "0") on = asked === "1"; // a quick try, not remembered
  show(on);
  // A player who reads by text starts in the move box, not 64 squares before it.
  if (on && myColor && state().status === "live") document.getElementById("move-box").focus();
  toggle.addEventListener("click", () => {
    on = !on;
    show(on);
    announce(on ? T.text_on : T.text_off);
    if (on) document.getElementById("move-box").focus();
    if (!page.signed_in) { localStorage.setItem(KEY, on ? "on" : "off"); return; }
    const csrf = JSON.parse(document.body.getAttribute("hx-headers") || "{}")["X-CSRFToken"];
    const body = new URLSearchParams(on ? { text_mode: "on" } : {});
    fetch(root.dataset.textModeUrl, {
      method: "POST", body, headers: { "X-CSRFToken": csrf, "X-Requested-With": "fetch" },
    }).catch(() => {});
  });

  buildGrid();
  return {
    announce,
    changed,
    opened,
    refused,
    speakMove,
    rebuild: buildGrid,
    render() { renderGrid(); renderText(); },
    unpick() { picked = null; renderGrid(); },
  };
}
