// A draughts board's drawing, for the game page (static/js/game.js, which adds the live game's
// premoves, dragging and keyboard grid) and for the analysis page and the top boards
// (`draughtsBoard` below): the SVG and classes of static/css/game.css. It knows no rule: the
// legal moves it marks are the server's, and the page using it says what a move that is not
// among them is.
import { parseDraughtsFen } from "./draughts-fen.js";

const SVGNS = "http://www.w3.org/2000/svg";
const CELL = 100;

export const squaresOf = (move) => move.split(/[-x]/).map((n) => parseInt(n, 10));

const svgEl = (name, attrs) => {
  const node = document.createElementNS(SVGNS, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  return node;
};

// The board's empty SVG in `el`. geometry: {size, squares: [[row, col], ...]}
// (games.selectors.board_geometry).
export function draughtsSvg(el, geometry) {
  const side = geometry.size * CELL;
  const svg = svgEl("svg", { viewBox: `0 0 ${side} ${side}`, class: "draughts-svg" });
  el.appendChild(svg);
  return svg;
}

// Draw a position: `view` = {fen, last (a move or null), orientation, selected (a square or
// null), targets (squares marked as destinations), queued (squares of a premove)}.
export function drawDraughts(svg, geometry, view) {
  const size = geometry.size, cell = CELL;
  const xy = (sq) => {
    let [r, c] = geometry.squares[sq - 1];
    if (view.orientation !== "white") { r = size - 1 - r; c = size - 1 - c; }
    return [c * cell, r * cell];
  };
  svg.replaceChildren();
  for (let r = 0; r < size; r++) for (let c = 0; c < size; c++) {
    svg.appendChild(svgEl("rect", { x: c * cell, y: r * cell, width: cell, height: cell, class: "sq light" }));
  }
  const pieces = parseDraughtsFen(view.fen);
  const last = view.last ? squaresOf(view.last) : [];
  const targets = view.targets || [], queued = view.queued || [];
  geometry.squares.forEach((_, i) => {
    const sq = i + 1, [x, y] = xy(sq);
    const g = svgEl("g", { "data-square": sq });
    let cls = "sq dark";
    if (last.includes(sq)) cls += " last";
    if (sq === view.selected) cls += " selected";
    if (queued.includes(sq)) cls += " premove";
    g.appendChild(svgEl("rect", { x, y, width: cell, height: cell, class: cls }));
    const label = svgEl("text", { x: x + 4, y: y + 18, class: "sqnum" });
    label.textContent = sq;
    g.appendChild(label);
    const p = pieces[sq];
    if (p) {
      g.appendChild(svgEl("circle", { cx: x + cell / 2, cy: y + cell / 2, r: cell * 0.38, class: `piece ${p.color}${p.king ? " king" : ""}` }));
      if (p.king) {
        const k = svgEl("text", { x: x + cell / 2, y: y + cell / 2 + 14, class: `crown ${p.color}` });
        k.textContent = "♛";
        g.appendChild(k);
      }
    }
    if (targets.includes(sq)) g.appendChild(svgEl("circle", { cx: x + cell / 2, cy: y + cell / 2, r: cell * 0.14, class: "dest" }));
    svg.appendChild(g);
  });
}

// on.move(text): a move to try; on.choose(paths): several captures go from and to the same
// squares; on.cannotMove(): a piece of the side to move that has no move.
export function draughtsBoard(el, geometry, on) {
  let shown = { fen: "W:W:B", legal: [], last: null, toMove: "white", orientation: "white" };
  let selected = null;
  const svg = draughtsSvg(el, geometry);
  const movesFrom = (sq) => shown.legal.filter((m) => squaresOf(m)[0] === sq);
  const dest = (m) => squaresOf(m).pop();
  function render() {
    const targets = selected ? movesFrom(selected).map(dest) : [];
    drawDraughts(svg, geometry, { fen: shown.fen, last: shown.last, orientation: shown.orientation, selected, targets });
  }
  // Click (or tap) a piece of the side to move, then a square.
  svg.addEventListener("pointerdown", (e) => {
    const g = e.target.closest && e.target.closest("[data-square]");
    if (!g) return;
    const sq = parseInt(g.dataset.square, 10);
    const piece = parseDraughtsFen(shown.fen)[sq];
    const mover = piece && piece.color === shown.toMove;
    if (selected !== null && sq !== selected && !mover) {
      const from = selected, chosen = movesFrom(from).filter((m) => dest(m) === sq);
      selected = null;
      render();
      if (chosen.length === 1) on.move(chosen[0]);
      else if (chosen.length > 1) on.choose(chosen);
      else on.move(`${from}-${sq}`); // not a destination: the server says it is illegal
      return;
    }
    if (mover && !movesFrom(sq).length && shown.legal.length) on.cannotMove();
    selected = mover && movesFrom(sq).length && sq !== selected ? sq : null;
    render();
  });
  return {
    set(next) { shown = { ...shown, ...next }; selected = null; render(); },
  };
}
