// The analysis board of a finished game: step through it, try other moves, keep them as a tree
// of variations, copy the FEN, download the PGN / PDN with the variations. The page decides no
// rule: every move tried is sent to the server (games/analysis_views.py), which answers the
// new position, its notation and its legal moves, or refuses it.
import { draughtsBoard } from "./board-draughts.js";

const root = document.getElementById("analysis");
const lang = root.dataset.lang;
const t = (key) => root.dataset[key] || "";
const geometry = JSON.parse(document.getElementById("board-geometry").textContent);
const page = JSON.parse(document.getElementById("analysis-page").textContent);
const chess = geometry.kind === "chessground";
const csrf = document.querySelector("#export-form [name=csrfmiddlewaretoken]").value;
let orientation = page.orientation;

// --- the tree ------------------------------------------------------------------------------
// A node is a position: {fen, to_move, legal_moves, outcome, move, notation, parent, children,
// game}. children[0] is the line's own continuation, the others are its variations; `game`
// marks the game's own moves (the main line, which stays).
let nextId = 0;
function node(data, parent, game = false) {
  const made = { ...data, parent, children: [], game, id: nextId++ };
  // The number of the move to be played from here, and whether the side that moves first in
  // the variant is to move (chess's FEN says its move number; draughts count from 1).
  if (!parent) {
    made.number = chess ? parseInt(data.fen.split(" ")[5], 10) || 1 : 1;
    made.first = data.to_move === page.first_to_move;
  } else {
    made.number = parent.first ? parent.number : parent.number + 1;
    made.first = !parent.first;
  }
  if (parent) parent.children.push(made);
  return made;
}
const start = node(page.line[0], null, true);
let current = start;
for (const data of page.line.slice(1)) current = node(data, current, true);
const gameEnd = current;
current = start;

// The first node of the line `n` is on, when that line is a variation: the nearest one, itself
// or above, that is not its parent's own continuation (or continues the game past its end).
function variationHead(n) {
  for (let at = n; at && at.parent; at = at.parent) {
    if (at.game) return null;
    if (at.parent.children[0] !== at || at.parent.game) return at;
  }
  return null;
}
// The earlier positions of the line that led to `n`, oldest first (repetition rules).
function historyOf(n) {
  const fens = [];
  for (let at = n.parent; at; at = at.parent) fens.unshift(at.fen);
  return fens;
}

// --- talking to the server -----------------------------------------------------------------
let busy = false;
// A move among the position's legal moves, as the server listed them: the whole move, or a
// draughts capture by its first and last squares (the server reads that short form too).
function offered(move) {
  if (current.legal_moves.includes(move)) return true;
  const ends = (m) => { const squares = m.split(/[-x]/); return `${squares[0]}>${squares[squares.length - 1]}`; };
  return /[-x]/.test(move) && current.legal_moves.some((m) => ends(m) === ends(move));
}
async function tryMove(move) {
  const existing = current.children.find((c) => c.move === move);
  if (existing) return go(existing);
  if (busy) return;
  // Not a legal move here: said at once, without asking the server (which would refuse it
  // all the same, and the browser would log the refusal as an error).
  if (!offered(move)) {
    notice(t("tIllegal"));
    draw();
    return;
  }
  busy = true;
  try {
    const response = await fetch(root.dataset.moveUrl, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-CSRFToken": csrf },
      body: JSON.stringify({ variant: page.variant, fen: current.fen, move, positions: historyOf(current) }),
      credentials: "same-origin",
    });
    const answer = await response.json().catch(() => ({}));
    if (response.ok) {
      // The same move written another way (a capture's short form) is the same child.
      const same = current.children.find((c) => c.fen === answer.fen && c.move === answer.move);
      go(same || node(answer, current));
    } else {
      notice(response.status === 400 ? t("tIllegal") : answer.error || (response.status === 429 ? t("tTooMany") : t("tFailed")));
      draw();
    }
  } catch {
    notice(t("tFailed"));
    draw();
  } finally {
    busy = false;
  }
}

// --- what the page shows -------------------------------------------------------------------
const noticeEl = document.getElementById("notice");
function notice(text) { noticeEl.textContent = text; noticeEl.hidden = !text; }

function go(n) {
  if (!n) return;
  current = n;
  notice("");
  draw();
}

function statusText(n) {
  if (n.outcome) {
    return { "1-0": t("tWhiteWins"), "0-1": t("tBlackWins"), "1/2-1/2": t("tDraw") }[n.outcome.result] || "";
  }
  return n.to_move === "white" ? t("tWhiteToMove") : t("tBlackToMove");
}

function draw() {
  board.render();
  document.getElementById("fen").textContent = current.fen;
  document.getElementById("status-line").textContent = statusText(current);
  document.getElementById("delete-variation").disabled = !variationHead(current);
  document.getElementById("main-line").disabled = !variationHead(current);
  const at = (name) => document.querySelector(`[data-nav="${name}"]`);
  at("first").disabled = at("prev").disabled = !current.parent;
  at("next").disabled = at("last").disabled = !current.children.length;
  renderTree();
}

// The usual nested move list: a line's moves inline, each variation in its own indented block
// right after the move it replaces, numbered again where it starts and where the line resumes.
function moveButton(n, numbered) {
  const b = document.createElement("button");
  b.type = "button";
  b.className = "mv" + (n === current ? " current" : "") + (n.game ? " game" : "");
  b.dataset.node = n.id;
  const label = n.parent.first ? `${n.parent.number}.` : numbered ? `${n.parent.number}…` : "";
  b.textContent = (label ? label + " " : "") + n.notation[lang];
  if (n === current) b.setAttribute("aria-current", "true");
  b.addEventListener("click", () => go(n));
  return b;
}
function renderLine(first, container) {
  let numbered = true;
  for (let n = first; n; n = n.children[0]) {
    container.append(moveButton(n, numbered), " ");
    numbered = false;
    const siblings = n.parent.children;
    if (siblings[0] === n && siblings.length > 1) {
      for (const alternative of siblings.slice(1)) {
        const block = document.createElement("div");
        block.className = "variation";
        block.dataset.testid = "variation";
        block.setAttribute("aria-label", t("tVariation"));
        renderLine(alternative, block);
        container.appendChild(block);
      }
      numbered = true;
    }
  }
}
function renderTree() {
  const tree = document.getElementById("tree");
  tree.replaceChildren();
  const line = document.createElement("div");
  line.className = "line";
  const startButton = document.createElement("button");
  startButton.type = "button";
  startButton.className = "mv start" + (current === start ? " current" : "");
  startButton.textContent = t("tStart");
  startButton.addEventListener("click", () => go(start));
  line.append(startButton, " ");
  if (start.children[0]) renderLine(start.children[0], line);
  tree.appendChild(line);
  tree.querySelector(".mv.current")?.scrollIntoView({ block: "nearest" });
}

// The tree as the export reads it (games.rules.analysis.read_line): a line of moves, each with
// the variations that replace it.
function lineOf(first) {
  const line = [];
  for (let n = first; n; n = n.children[0]) {
    const variations = n.parent.children[0] === n ? n.parent.children.slice(1).map(lineOf) : [];
    line.push(variations.length ? { move: n.move, variations } : n.move);
  }
  return line;
}

// --- the boards ----------------------------------------------------------------------------
function closeChooser() { document.getElementById("chooser")?.remove(); }
function chooser(title, options) {
  closeChooser();
  const box = document.createElement("div");
  box.id = "chooser"; box.className = "chooser"; box.setAttribute("role", "dialog");
  box.dataset.testid = "chooser";
  const p = document.createElement("p"); p.textContent = title; box.appendChild(p);
  for (const [label, action] of [...options, ["×", () => draw()]]) {
    const b = document.createElement("button");
    b.type = "button"; b.className = "button small" + (label === "×" ? " secondary" : ""); b.textContent = label;
    if (label === "×") b.setAttribute("aria-label", t("tCancel"));
    b.addEventListener("click", () => { closeChooser(); action(); });
    box.appendChild(b);
  }
  document.getElementById("board").after(box);
}

function chessDests(n) {
  const dests = new Map();
  for (const m of n.legal_moves) {
    const from = m.slice(0, 2), to = m.slice(2, 4);
    if (!dests.has(from)) dests.set(from, []);
    if (!dests.get(from).includes(to)) dests.get(from).push(to);
  }
  return dests;
}
async function chessBoard(el) {
  const { Chessground } = await import(root.dataset.chessground);
  const config = () => ({
    fen: current.fen.split(" ")[0],
    orientation,
    turnColor: current.to_move,
    lastMove: current.move ? [current.move.slice(0, 2), current.move.slice(2, 4)] : undefined,
    // The move that made the position says check (+ or #, RULES 2).
    check: current.notation && /[+#]( e\.p\.)?$/.test(current.notation.en) ? current.to_move : false,
    movable: { free: false, color: current.to_move, dests: chessDests(current), showDests: true },
  });
  const api = Chessground(el, {
    ...config(),
    movable: {
      ...config().movable,
      events: {
        after(orig, dest) {
          const base = orig + dest;
          const promotions = current.legal_moves.filter((m) => m.length === 5 && m.startsWith(base));
          if (!promotions.length) return tryMove(base);
          const glyphs = { q: "♛", r: "♜", b: "♝", n: "♞" };
          chooser(t("tPromote"), promotions.map((m) => [glyphs[m[4]] || m[4], () => tryMove(m)]));
        },
      },
    },
  });
  return { render() { closeChooser(); api.set(config()); } };
}
function draughtsOn(el) {
  const b = draughtsBoard(el, geometry, {
    move: tryMove,
    choose: (paths) => chooser(t("tChoosePath"), paths.map((m) => [m, () => tryMove(m)])),
    // A capture elsewhere is the usual reason (RULES 2: the capture is compulsory).
    cannotMove: () => notice(current.legal_moves.some((m) => m.includes("x")) ? t("tCaptureCompulsory") : t("tCannotMove")),
  });
  return {
    render() {
      closeChooser();
      b.set({ fen: current.fen, legal: current.legal_moves, last: current.move || null, toMove: current.to_move, orientation });
    },
  };
}

// --- controls ------------------------------------------------------------------------------
function nav(action) {
  if (action === "first") go(start);
  else if (action === "prev") go(current.parent);
  else if (action === "next") go(current.children[0]);
  else if (action === "last") { let n = current; while (n.children[0]) n = n.children[0]; go(n); }
}
document.querySelectorAll("[data-nav]").forEach((b) => b.addEventListener("click", () => nav(b.dataset.nav)));
document.addEventListener("keydown", (e) => {
  if (e.target.closest("input, textarea, select") || e.altKey || e.ctrlKey || e.metaKey) return;
  const action = { ArrowLeft: "prev", ArrowRight: "next", Home: "first", End: "last", ArrowUp: "first", ArrowDown: "last" }[e.key];
  if (!action) return;
  e.preventDefault();
  nav(action);
});
document.getElementById("main-line").addEventListener("click", () => {
  // Back where the variation left the game's moves.
  let n = current;
  while (!n.game) n = n.parent;
  go(n);
});
document.getElementById("delete-variation").addEventListener("click", () => {
  const head = variationHead(current);
  if (!head) return;
  head.parent.children.splice(head.parent.children.indexOf(head), 1);
  go(head.parent);
});
document.getElementById("flip").addEventListener("click", () => {
  orientation = orientation === "white" ? "black" : "white";
  draw();
});
document.getElementById("copy-fen").addEventListener("click", async () => {
  const field = document.getElementById("fen");
  try {
    await navigator.clipboard.writeText(field.textContent);
    notice(t("tCopied"));
  } catch {
    // No clipboard (an insecure origin, a refused permission): the text selected instead.
    window.getSelection().selectAllChildren(field);
    notice(t("tCopyFailed"));
  }
});
// The file is asked for in the background, so a refusal (over the budget, a tree too big: the
// server says why, in the page's language) is shown in the notice, where the page stays; a
// refusal of nginx's own (plain text) gets the page's words.
const exportForm = document.getElementById("export-form");
exportForm.addEventListener("submit", async (event) => {
  event.preventDefault();
  document.getElementById("export-tree").value = JSON.stringify(start.children.length ? lineOf(start.children[0]) : []);
  const button = exportForm.querySelector("[type=submit]");
  button.disabled = true;
  try {
    const response = await fetch(exportForm.action, { method: "POST", body: new FormData(exportForm), credentials: "same-origin" });
    if (!response.ok) {
      const answer = await response.json().catch(() => ({}));
      notice(answer.error || (response.status === 429 ? t("tTooMany") : t("tFailed")));
      return;
    }
    const named = /filename="([^"]+)"/.exec(response.headers.get("Content-Disposition") || "");
    const link = document.createElement("a");
    link.href = URL.createObjectURL(await response.blob());
    link.download = named ? named[1] : "analisi.txt";
    document.body.appendChild(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(link.href), 10_000);
    notice("");
  } catch {
    notice(t("tFailed"));
  } finally {
    button.disabled = false;
  }
});

const boardEl = document.getElementById("board");
const board = chess ? await chessBoard(boardEl) : draughtsOn(boardEl);
go(gameEnd);
