// Arena pages (RULES 8): a player paired while on this page is taken to the board at once.
// The site socket (notices.js) says "mygame" with the game's id; the arena's own socket
// (events.js) refreshes the leaderboard.
(function () {
  "use strict";
  document.body.addEventListener("mygame-changed", function (event) {
    const game = event.detail && event.detail.game;
    if (game && /^\d+$/.test(String(game))) location.href = "/games/" + game + "/";
  });
})();
