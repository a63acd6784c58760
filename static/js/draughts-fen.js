// A draughts position's pieces from its PDN FEN ("W:W21,22,K30:B1,2"): square number ->
// {color, king}. One reader for the game page, its text mode and the read-only boards.
export function parseDraughtsFen(fen) {
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
