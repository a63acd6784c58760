// The analysis board of a finished game, and the free analysis board (analysis/views.py board,
// `page.free`): step through a line, try other moves, keep them as a tree of variations, put
// symbols (! ? !! ?? !? ?!) and comments on moves, promote a variation, copy the FEN, download
// the PGN / PDN with all of it. The page decides no rule: every move tried is sent to the
// server (games/analysis_views.py), which answers the new position, its notation and its legal
// moves, or refuses it. A game's computer analysis (RULES 14), when there is one, draws an
// evaluation bar, a graph of the whole game, the marks and the engine's better lines; the free
// board asks the engine about the position on screen.
import { draughtsBoard } from "./board-draughts.js";

const root = document.getElementById("analysis");
const lang = root.dataset.lang;
const t = (key) => root.dataset[key] || "";
const geometry = JSON.parse(document.getElementById("board-geometry").textContent);
const page = JSON.parse(document.getElementById("analysis-page").textContent);
const chess = geometry.kind === "chessground";
const csrf = document.querySelector("#export-form [name=csrfmiddlewaretoken]").value;
let orientation = page.orientation;
// The free board has no game: the pasted (or empty) line is an ordinary line, which variations
// may replace.
const free = Boolean(page.free);
const NAGS = { "!": 1, "?": 2, "!!": 3, "??": 4, "!?": 5, "?!": 6 };
const SYMBOL_OF = Object.fromEntries(Object.entries(NAGS).map(([k, v]) => [v, k]));

// --- the tree ------------------------------------------------------------------------------
// A node is a position: {fen, to_move, legal_moves, outcome, move, notation, parent, children,
// game}. children[0] is the line's own continuation, the others are its variations; `game`
// marks the game's own moves (the main line, which stays).
let nextId = 0;
function node(data, parent, game = false) {
  const made = { ...data, parent, children: [], game, id: nextId++, comment: "", nags: [] };
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
for (const data of page.line.slice(1)) current = node(data, current, !free);
// The game's positions in order (the start first): what the computer analysis speaks of.
const gameNodes = [];
for (let n = start; n; n = n.children[0]) gameNodes.push(n);
const gameEnd = current;
current = start;

// The first node of the line `n` is on, when that line is a variation: the nearest one, itself
// or above, that is not its parent's own continuation (or continues the game past its end).
function variationHead(n) {
  for (let at = n; at && at.parent; at = at.parent) {
    if (at.game) return null;
    if (at.parent.children[0] !== at || (at.parent.game && !free)) return at;
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
  document.getElementById("promote").disabled = !promotable(current);
  drawAnnotation();
  drawComputer();
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
  const judged = computerMove(n);
  const symbol = n.nags.length ? SYMBOL_OF[n.nags[0]] : judged && judged.symbol ? judged.symbol : "";
  b.textContent = (label ? label + " " : "") + n.notation[lang] + symbol;
  if (judged && judged.mark) {
    b.classList.add(`mark-${judged.mark}`);
    b.title = judged.word;
  }
  if (n === current) b.setAttribute("aria-current", "true");
  b.addEventListener("click", () => go(n));
  if (!n.comment) return b;
  const note = document.createElement("span");
  note.className = "move-comment";
  note.textContent = n.comment;
  const both = document.createDocumentFragment();
  both.append(b, " ", note);
  return both;
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
    if (!variations.length && !n.comment && !n.nags.length) { line.push(n.move); continue; }
    const item = { move: n.move };
    if (variations.length) item.variations = variations;
    if (n.comment) item.comment = n.comment;
    if (n.nags.length) item.nags = n.nags;
    line.push(item);
  }
  return line;
}

// --- symbols, comments, promotion ----------------------------------------------------------
// A variation may take its line's place (become the line's own continuation) where that line
// is not the game's own moves, which stay the main line of a game's analysis.
function promotable(n) {
  const head = variationHead(n);
  if (!head || head.parent.children[0] === head) return null;
  return head.parent.children[0].game ? null : head;
}
document.getElementById("promote").addEventListener("click", () => {
  const head = promotable(current);
  if (!head) return;
  const siblings = head.parent.children;
  siblings.splice(siblings.indexOf(head), 1);
  siblings.unshift(head);
  draw();
});
const commentEl = document.getElementById("move-comment");
function drawAnnotation() {
  const none = !current.parent;
  commentEl.disabled = none;
  if (document.activeElement !== commentEl) commentEl.value = current.comment || "";
  document.querySelectorAll("[data-symbol]").forEach((b) => {
    b.disabled = none;
    b.setAttribute("aria-pressed", String(current.nags.includes(NAGS[b.dataset.symbol])));
  });
}
document.querySelectorAll("[data-symbol]").forEach((b) => b.addEventListener("click", () => {
  if (!current.parent) return;
  const nag = NAGS[b.dataset.symbol];
  current.nags = current.nags.includes(nag) ? [] : [nag];
  draw();
}));
commentEl.addEventListener("input", () => {
  if (!current.parent) return;
  current.comment = commentEl.value.slice(0, 500);
  renderTree();
});

// --- the computer analysis of the game (RULES 14) ------------------------------------------
let computer = {};
let computerText = null;
// The panel's data, read again when the panel was swapped in with other data (it is re-read
// when the site socket says the analysis changed). True when it changed.
function readComputer() {
  const el = document.getElementById("computer-analysis-data");
  const text = el ? el.textContent : "";
  if (text === computerText) return false;
  computerText = text;
  computer = (text && JSON.parse(text)) || {};
  return true;
}
// The judgement of the game's move that made `n`, if the analysis has one.
function computerMove(n) {
  if (!n.game || !n.parent || !computer.moves) return null;
  return computer.moves[gameNodes.indexOf(n) - 1] || null;
}
// White's winning chance in per cent (RULES 14.3), from an evaluation of the analysis.
function winPercent(p) {
  const cp = p.mate ? Math.sign(p.mate) * 1000 : Math.max(-1000, Math.min(1000, p.cp || 0));
  return 50 + 50 * (2 / (1 + Math.exp(-0.00368208 * cp)) - 1);
}
const SVG = "http://www.w3.org/2000/svg";
function svg(name, attrs) {
  const el = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
  return el;
}
function drawGraph(ply) {
  const box = document.getElementById("eval-graph");
  if (!box || !computer.positions) return;
  const W = 1000, H = 200, n = computer.positions.length;
  const x = (i) => (n > 1 ? (i / (n - 1)) * W : 0);
  const y = (p) => H - (winPercent(p) / 100) * H;
  const graph = svg("svg", { viewBox: `0 0 ${W} ${H}`, preserveAspectRatio: "none", role: "img", "aria-label": root.dataset.tGraph, class: "eval-svg" });
  const points = computer.positions.map((p, i) => `${x(i).toFixed(1)},${y(p).toFixed(1)}`);
  graph.append(
    svg("polygon", { points: `0,${H} ${points.join(" ")} ${W},${H}`, class: "eval-area" }),
    svg("line", { x1: 0, y1: H / 2, x2: W, y2: H / 2, class: "eval-mid" }),
  );
  computer.moves.forEach((m, i) => {
    if (m.mark) graph.append(svg("circle", { cx: x(i + 1), cy: y(computer.positions[i + 1]), r: 7, class: `eval-mark mark-${m.mark}` }));
  });
  if (ply !== null) graph.append(svg("line", { x1: x(ply), y1: 0, x2: x(ply), y2: H, class: "eval-now" }));
  box.replaceChildren(graph);
}
document.addEventListener("click", (event) => {
  const box = event.target.closest && event.target.closest("#eval-graph");
  if (!box || !computer.positions) return;
  const rect = box.getBoundingClientRect();
  const i = Math.round(((event.clientX - rect.left) / rect.width) * (computer.positions.length - 1));
  go(gameNodes[Math.max(0, Math.min(gameNodes.length - 1, i))]);
});
function drawComputer() {
  const bar = document.getElementById("eval-bar");
  const lineEl = document.getElementById("computer-line");
  const ply = current.game ? gameNodes.indexOf(current) : null;
  const position = ply !== null && computer.positions ? computer.positions[ply] : null;
  if (bar) {
    bar.hidden = !(computer.positions && computer.positions.length);
    if (position) {
      bar.querySelector(".eval-fill").style.height = `${winPercent(position).toFixed(1)}%`;
      bar.setAttribute("aria-label", `${root.dataset.tEval} ${position.text}`);
      bar.classList.toggle("flipped", orientation === "black");
    }
  }
  if (lineEl) {
    const judged = computerMove(current);
    const words = [];
    if (position) words.push(`${root.dataset.tEval} ${position.text}`);
    if (judged && judged.mark) words.push(`${judged.word} (${judged.symbol}).`);
    if (judged && judged.best && judged.best.length) words.push(`${t("tBest")} ${judged.best.join(" ")}`);
    if (judged && judged.refutation && judged.refutation.length) words.push(`${t("tRefutation")} ${judged.refutation.join(" ")}`);
    lineEl.textContent = words.join(" · ");
    lineEl.hidden = !words.length;
  }
  drawGraph(ply);
}
let ready = false;  // the board is built (below): only then may a swapped panel redraw
document.body.addEventListener("htmx:afterSettle", () => {
  if (readComputer() && ready) draw();
});
readComputer();

// --- the engine's look at the position on screen (the free board, chess) -------------------
const engineButton = document.getElementById("engine-ask");
if (engineButton) {
  const answerEl = document.getElementById("engine-answer");
  engineButton.addEventListener("click", async () => {
    engineButton.disabled = true;
    answerEl.textContent = t("tThinking");
    const asked = current;
    try {
      const response = await fetch(root.dataset.engineUrl, {
        method: "POST",
        headers: { "Content-Type": "application/json", "X-CSRFToken": csrf },
        body: JSON.stringify({ fen: asked.fen }),
        credentials: "same-origin",
      });
      const answer = await response.json().catch(() => ({}));
      if (response.status !== 202) { answerEl.textContent = answer.error || t("tFailed"); return; }
      // The engine has at most a few seconds (ANALYSIS_BOARD_NODES): ask for the answer
      // every half second, for a minute at most.
      for (let i = 0; i < 120; i++) {
        await new Promise((r) => setTimeout(r, 500));
        const reply = await fetch(`${root.dataset.engineUrl}${answer.token}/`, { credentials: "same-origin" });
        const got = await reply.json().catch(() => ({}));
        if (got.state === "done") {
          answerEl.textContent = `${t("tEval")} ${got.text} · ${t("tBest")} ${got.best.join(" ")}`;
          return;
        }
        if (got.state !== "queued") { answerEl.textContent = got.error || t("tFailed"); return; }
      }
      answerEl.textContent = t("tFailed");
    } catch {
      answerEl.textContent = t("tFailed");
    } finally {
      engineButton.disabled = false;
    }
  });
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
  const boardEl = document.getElementById("board");
  (boardEl.closest(".board-with-bar") || boardEl).after(box);
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
  // Back where the variation left the game's moves (on the free board, the main line).
  let n = current;
  if (free) for (let head = variationHead(n); head; head = variationHead(n)) n = head.parent;
  else while (!n.game) n = n.parent;
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
  const startField = document.getElementById("export-start");
  if (startField) startField.value = start.fen;
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
ready = true;
