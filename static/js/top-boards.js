// The top boards of an event's page (events/_top_boards.html): each a small read-only board
// following its game over the game's own socket as a spectator (docs/protocol.md: `state` on
// connect and `sync`, `played` for each move). At most six boards, so at most six sockets. The
// section is re-rendered when the round or the pairings change ("tournament-changed",
// "arena-changed"); each board's drawing is kept across that (hx-preserve, by game), so a board
// still shown keeps its socket, one that left the page closes it and a new one opens its own.
import { draughtsBoard } from "./board-draughts.js";

const followed = new Map(); // game id -> {view, socket, stopped}

const uciSquares = (move) => (move && move.length >= 4 ? [move.slice(0, 2), move.slice(2, 4)] : undefined);

async function chessView(el, root) {
  const { Chessground } = await import(root.dataset.chessground);
  const api = Chessground(el, { viewOnly: true, coordinates: false, animation: { duration: 150 } });
  return (fen, last) => api.set({ fen: fen.split(" ")[0], lastMove: uciSquares(last) });
}

function draughtsView(el, geometry) {
  const board = draughtsBoard(el, geometry, { move() {}, choose() {}, cannotMove() {} });
  return (fen, last) => board.set({ fen, last: last || null, legal: [] });
}

async function follow(view, list) {
  const link = view.closest("[data-game]");
  const gameId = link.dataset.game;
  const entry = { view, socket: null, stopped: false };
  followed.set(gameId, entry); // before the first await: a second scan does not follow it twice
  const geometry = JSON.parse(list.dataset.geometry);
  const show = geometry.kind === "chessground" ? await chessView(view, list) : draughtsView(view, geometry);
  if (entry.stopped) return;
  let version = -1;
  show(link.dataset.fen, link.dataset.last);
  // `?watch`: a player of the game looking at this page has not sat at their board.
  entry.socket = window.LiveSocket.open(`/ws/game/${gameId}/?watch`, {
    message(m) {
      if ((m.type !== "state" && m.type !== "played") || m.version <= version) return;
      version = m.version;
      show(m.fen, m.type === "played" ? m.move : m.last_move);
      // The link around the board now (a refresh may have put the board in a new one).
      const around = view.closest("[data-game]");
      if (!around) return;
      around.dataset.fen = m.fen;
      around.dataset.ply = m.ply;
      around.classList.toggle("finished", m.status === "finished");
    },
  });
}

function scan() {
  const list = document.querySelector(".top-boards-list");
  const views = list ? [...list.querySelectorAll("[data-game] .top-board-view")] : [];
  for (const [gameId, f] of followed) {
    if (!views.includes(f.view)) {
      f.stopped = true;
      if (f.socket) f.socket.stop();
      followed.delete(gameId);
    }
  }
  for (const view of views) {
    const gameId = view.closest("[data-game]").dataset.game;
    if (!followed.has(gameId)) follow(view, list);
  }
}

scan();
document.body.addEventListener("htmx:afterSettle", scan);
