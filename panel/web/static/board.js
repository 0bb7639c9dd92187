// The TV scoreboard: the game being played, as its part of the board shows it
// (/static/games/<game>/board.js: a turn's timer, counters and scores, or every player's
// clock and the alert cards), with the cockpit's sounds played here too (sound.js), each
// with its visual cue. The page keeps no rule: counts, points, bonuses and
// clocks are the engine's (the state and the events).
import { $, el, t, connect, liveBadge, hasMatch, showGame } from "/static/common.js";
import { gameOf, info, parts } from "/static/games/index.js";
import { Cues, soundSwitch } from "/static/sound.js";

const cues = new Cues();
const games = await parts("board");
let live = null; // the latest state from the cockpit
let shown = null; // the game on the board
let lastSecond = null; // the last whole second the tick was played for
window.boardCues = cues.played; // the cues asked for, for the tests and the curious

function pips(node, n, total, cls) {
  node.replaceChildren(...Array.from({ length: Math.max(total || 0, n) }, (_, i) =>
    el("span", { class: `pip ${cls} ${i < n ? "on" : ""}` })));
  node.setAttribute("aria-label", t("{n} of {total}", { n, total }));
  node.dataset.count = String(n);
}

// A visual cue that goes with a sound (or stands for it, with the sound off).
function flash(kind) {
  const main = $(".board");
  main.classList.remove(`flash-${kind}`);
  void main.offsetWidth; // restart the animation
  main.classList.add(`flash-${kind}`);
}

// The result box: shown with its title and text once the game is over, hidden until then.
function result(over, title, text) {
  $("#resultend").textContent = "";
  $("#result").classList.toggle("hidden", !over);
  if (over) {
    $("#resulttitle").textContent = title;
    $("#resulttext").textContent = text;
  }
}

// What a game's part may use of the board.
const board = { pips, flash, result, live: () => live, render, lastSeconds: () => cues.lastSeconds(gameOf(live)) };

function render() {
  const s = live;
  if (!s) return;
  const main = $(".board");
  // The result boxes open under the header, whatever its height: its sound switch stays in reach.
  document.documentElement.style.setProperty("--board-top", `${Math.ceil($(".board .top").getBoundingClientRect().bottom)}px`);
  const game = gameOf(s);
  if (shown !== game && games.all[shown]?.leave) games.all[shown].leave(board);
  shown = game;
  showGame(main, game);
  main.classList.toggle("nomatch", !hasMatch(s));
  $("h1").textContent = info(game).title || "";
  main.dataset.phase = !hasMatch(s) ? "idle" : s.finished ? "ended" : s.phase;
  games.of(s)?.show(s, board);
}

function show(s) {
  live = s;
  // The store cannot write (a full card): nothing pressed counts until it can, so the room is told.
  $("#saveerror").textContent = s.store_error
    ? t("The cockpit cannot save ({reason}): presses do not count until it can", { reason: s.store_error }) : "";
  $("#saveerror").classList.toggle("hidden", !s.store_error);
  // A full disk at start: the cockpit plays on a copy in memory, and the room knows nothing is kept.
  $("#unsaved").textContent = s.unsaved ? t("Nothing is saved: {reason}", { reason: s.unsaved }) : "";
  $("#unsaved").classList.toggle("hidden", !s.unsaved);
  games.of(s)?.update?.(s);
  render();
}

function onEvent(e) {
  const part = games.of(live);
  $("#ticker").textContent = part ? part.describe(e, live) : e.type;
  const sound = cues.forEvent(gameOf(live), e.type);
  if (sound) cues.cue(sound);
  part?.event?.(e, board);
}

// The last seconds tick, heard and seen (the timer beats with each one).
function lastSeconds(left, node) {
  const second = left !== null && left !== undefined ? Math.ceil(left) : null;
  if (second !== null && second !== lastSecond && second >= 1 && second <= board.lastSeconds() && lastSecond !== null) {
    cues.cue(cues.spec.tick);
    node.classList.remove("beat");
    void node.offsetWidth;
    node.classList.add("beat");
  }
  lastSecond = second;
}

function tick() {
  const part = live && games.of(live);
  if (part) lastSeconds(...part.tick(live, board));
  requestAnimationFrame(tick);
}

await cues.load();
soundSwitch($("#sound"), cues);
connect("board", {}, {
  status: liveBadge(),
  state: (m) => show(m.state),
  event: (m) => onEvent(m.event),
  refused: (m) => games.of(live)?.refused?.(m.refused, board), // a press the rules refused: the game says why
});
requestAnimationFrame(tick);
