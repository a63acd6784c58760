// "Your game opens by itself, on any page of the site" (docs/features.md). When a game of mine
// opens — a tournament round, a double pairing's return leg, an arena or quick pairing, an
// accepted challenge — the site socket (/ws/me/, notices.js) says "mygame" with its id: pushed
// as it opens, and said again when a socket opens while the game still waits for me (I have not
// sat at it yet: live.consumers, games.selectors.game_waiting_for). This is the one handler,
// on every page of a signed-in player:
//   - the game's own page: nothing to do;
//   - a live game I am playing (another one): never taken away; a notice links to the new game,
//     and when the game here ends, what follows for a finished game;
//   - a finished game I played, not an arena's: a visible countdown (3 s), "Resta qui" stops
//     it (the return leg opens while both players look at the first one);
//   - anything else — an arena game's page (RULES 8: the arena pairs at once; its own return
//     to the arena after 5 s is game.js's), the tournament or home page, any other page: at once.
// A sound (unless the game page's switch is off, remembered by the browser under the same key),
// and, in a tab in the background, its title flashing until it is looked at.
(function () {
  "use strict";
  const script = document.currentScript;
  const t = (key) => (script && script.dataset[key]) || "";
  const SOUND_KEY = "circolo.sound"; // game.js's mute switch: "off" is muted
  const ARRIVED_KEY = "circolo.mygame-arrived"; // this tab was taken to that game
  const COUNTDOWN_SECONDS = 3;
  const SOUND_MS = 350; // the chime's length: a page that leaves at once waits for it
  let shown = null; // the game a countdown or notice is on screen for
  let timer = null;

  // --- the page I am on --------------------------------------------------------------------
  function gamePage() {
    const root = document.getElementById("game");
    if (!root || !root.dataset.game) return null;
    const hook = window.circoloGamePage; // game.js: whether its game is live now
    let live = false;
    if (hook && String(hook.id) === root.dataset.game) live = hook.live();
    else {
      try { live = JSON.parse(document.getElementById("game-state").textContent).status === "live"; }
      catch (e) { live = false; }
    }
    return { id: root.dataset.game, mine: !!root.dataset.myColor, live, returns: root.dataset.eventReturns === "1" };
  }

  // --- sound and title ---------------------------------------------------------------------
  function chime() {
    if (localStorage.getItem(SOUND_KEY) === "off") return false;
    // What played, for the tests and anyone curious; the sound itself follows.
    const html = document.documentElement;
    html.dataset.mygameSounds = String(Number(html.dataset.mygameSounds || 0) + 1);
    try {
      const ctx = new AudioContext();
      let at = ctx.currentTime;
      for (const freq of [523, 784]) {
        const osc = ctx.createOscillator(), amp = ctx.createGain();
        osc.type = "sine"; osc.frequency.value = freq;
        amp.gain.setValueAtTime(0.2, at);
        amp.gain.exponentialRampToValueAtTime(0.001, at + 0.15);
        osc.connect(amp).connect(ctx.destination);
        osc.start(at); osc.stop(at + 0.15);
        at += 0.17;
      }
    } catch (e) { /* no audio here: the page works the same */ }
    return true;
  }

  let flashing = null;
  function flashTitle(text) {
    if (!document.hidden || flashing) return;
    const title = document.title, news = text || t("tTitle");
    let on = false;
    document.documentElement.dataset.mygameFlashing = "1";
    flashing = setInterval(() => { on = !on; document.title = on ? news : title; }, 1000);
    document.title = news;
    const stop = () => {
      if (document.hidden) return;
      clearInterval(flashing); flashing = null;
      document.title = title;
      delete document.documentElement.dataset.mygameFlashing;
      document.removeEventListener("visibilitychange", stop);
    };
    document.addEventListener("visibilitychange", stop);
  }

  // A tab in the background also shows a browser notification, when the player chose them
  // (the account page, where the browser's permission is asked on a click, never here).
  function notifyInBackground(game) {
    if (!document.hidden || !script || script.dataset.notify !== "1") return;
    if (!("Notification" in window) || Notification.permission !== "granted") return;
    try {
      const note = new Notification(t("tTitle"), { tag: "circolo-game-" + game });
      note.onclick = () => { window.focus(); location.href = "/games/" + game + "/"; };
      const html = document.documentElement;
      html.dataset.notifications = String(Number(html.dataset.notifications || 0) + 1);
    } catch (e) { /* notifications only from a service worker here: the title still flashes */ }
  }

  // --- going there -------------------------------------------------------------------------
  function go(game, soundPlayed) {
    sessionStorage.setItem(ARRIVED_KEY, game);
    const leave = () => { location.href = "/games/" + game + "/"; };
    if (soundPlayed) setTimeout(leave, SOUND_MS); else leave();
  }

  function message(game, testid, href) {
    const box = document.createElement("div");
    box.className = "message mygame";
    box.setAttribute("role", "status");
    box.dataset.testid = testid;
    box.dataset.game = game;
    const text = document.createElement("span");
    text.dataset.testid = "mygame-text";
    const link = document.createElement("a");
    link.className = "button small";
    link.href = href || "/games/" + game + "/";
    link.dataset.testid = "mygame-go";
    box.append(text, " ", link);
    const old = document.querySelector(".message.mygame");
    if (old) old.remove();
    const place = document.getElementById("messages") || document.body;
    place.prepend(box);
    return { box, text, link };
  }

  function notice(game) { // on a live game of mine: the link, nothing more
    const { text, link } = message(game, "mygame-notice");
    text.textContent = t("tAnother");
    link.textContent = t("tGo");
  }

  function countdown(game) { // on a finished game of mine: a few seconds to stay
    const { box, text, link } = message(game, "mygame-countdown");
    link.textContent = t("tGoNow");
    link.addEventListener("click", () => sessionStorage.setItem(ARRIVED_KEY, game));
    const stay = document.createElement("button");
    stay.type = "button";
    stay.className = "button small secondary";
    stay.dataset.testid = "mygame-stay";
    stay.textContent = t("tStay");
    box.append(" ", stay);
    let left = COUNTDOWN_SECONDS;
    const tick = () => {
      if (left <= 0) { clearInterval(timer); timer = null; go(game, false); return; }
      text.textContent = t("tOpensIn").replace(/\{n\}\s?/, left + "\u00a0"); // "3 s" never split
      left -= 1;
    };
    tick();
    timer = setInterval(tick, 1000);
    stay.addEventListener("click", () => {
      clearInterval(timer); timer = null;
      stay.remove();
      text.textContent = t("tWaiting");
      link.textContent = t("tGo");
      box.dataset.testid = "mygame-notice";
    });
  }

  function opened(game) {
    const here = gamePage();
    if (here && here.id === game) return; // already at its board
    if (shown === game) return; // told twice (a push and a reconnect): once is enough
    shown = game;
    clearInterval(timer); timer = null;
    const played = chime();
    flashTitle();
    notifyInBackground(game);
    act(game, played);
  }

  function act(game, soundPlayed) {
    const here = gamePage();
    if (here && here.mine && here.live) {
      notice(game);
      // The game here ends: then as on any finished game of mine. The two news come on two
      // sockets, in either order: a return leg opens in the worker as soon as the first leg is
      // settled, and its "mygame" can beat the first leg's end to this page (the player would
      // only be told, and the return leg would go to 0-0 by absence).
      document.body.addEventListener("game-ended", () => { if (shown === game) act(game, false); }, { once: true });
    } else if (here && here.mine && !here.returns) countdown(game);
    else go(game, soundPlayed);
  }

  document.body.addEventListener("mygame-changed", (event) => {
    const game = event.detail && event.detail.game;
    if (game && /^\d+$/.test(String(game))) opened(String(game));
  });

  // --- an event of mine calls me (RULES 8: an arena that starts) -----------------------------
  // "eventcall" with the event page's `url`: I am needed on it now (only a page open on an
  // arena pairs me), so this page goes there as it goes to a game: at once, unless I am
  // playing a live game (then a notice links to it). Once per page and tab: leaving it again
  // is not undone.
  const CALLED_KEY = "circolo.eventcall-taken";
  function called(url) {
    if (location.pathname === url) return;
    let taken = [];
    try { taken = JSON.parse(sessionStorage.getItem(CALLED_KEY) || "[]"); } catch (e) { taken = []; }
    if (taken.includes(url)) return;
    sessionStorage.setItem(CALLED_KEY, JSON.stringify([...taken, url].slice(-20)));
    const played = chime();
    flashTitle(t("tEventTitle"));
    const here = gamePage();
    if (here && here.mine && here.live) {
      const { text, link } = message("", "eventcall-notice", url);
      text.textContent = t("tEvent");
      link.textContent = t("tGoEvent");
      return;
    }
    const leave = () => { location.href = url; };
    if (played) setTimeout(leave, SOUND_MS); else leave();
  }

  document.body.addEventListener("eventcall-changed", (event) => {
    const url = event.detail && event.detail.url;
    // A page of this site only: a path, never another origin.
    if (typeof url === "string" && /^\/[a-z0-9\/_-]+\/$/i.test(url)) called(url);
  });

  // Arrived at the board by itself while the tab was in the background: say so in its title.
  const arrived = sessionStorage.getItem(ARRIVED_KEY);
  if (arrived) {
    sessionStorage.removeItem(ARRIVED_KEY);
    const here = gamePage();
    if (here && here.id === arrived) flashTitle();
  }
})();
