// The top boards of an event's page (events/_top_boards.html): each a small read-only board
// following its game over the game's own socket as a spectator (docs/protocol.md: `state` on
// connect and `sync`, `played` for each move). At most six boards, so at most six sockets. The
// section is re-rendered when the round or the pairings change ("tournament-changed",
// "arena-changed"): boards that left the page close their socket, new ones open theirs.
import { draughtsBoard } from "./board-draughts.js";

const followed = new Map(); // game id -> {link, socket, show}

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

async function follow(link, list) {
  const gameId = link.dataset.game;
  const entry = { link, socket: null, stopped: false };
  followed.set(gameId, entry); // before the first await: a second scan does not follow it twice
  const geometry = JSON.parse(list.dataset.geometry);
  const view = link.querySelector(".top-board-view");
  const show = geometry.kind === "chessground" ? await chessView(view, list) : draughtsView(view, geometry);
  if (entry.stopped) return;
  let version = -1;
  show(link.dataset.fen, link.dataset.last);
  entry.socket = window.LiveSocket.open(`/ws/game/${gameId}/`, {
    message(m) {
      if ((m.type !== "state" && m.type !== "played") || m.version <= version) return;
      version = m.version;
      const last = m.type === "played" ? m.move : m.last_move;
      link.dataset.fen = m.fen;
      link.dataset.ply = m.ply;
      show(m.fen, last);
      if (m.status === "finished") link.classList.add("finished");
    },
  });
}

function scan() {
  const list = document.querySelector(".top-boards-list");
  const links = list ? [...list.querySelectorAll("[data-game]")] : [];
  const shown = new Set(links.map((a) => a.dataset.game));
  for (const [gameId, f] of followed) {
    if (!shown.has(gameId) || !document.contains(f.link)) {
      f.stopped = true;
      if (f.socket) f.socket.stop();
      followed.delete(gameId);
    }
  }
  for (const link of links) if (!followed.has(link.dataset.game)) follow(link, list);
}

scan();
document.body.addEventListener("htmx:afterSettle", scan);
