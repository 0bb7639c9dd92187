// The control tower's phone: the card in play, drawn like the printed card, and the turn's
// timer. Nothing of the card is shown without the match's join code: the server refuses
// the socket (4403) and /api/tower (403) with a wrong one. During a turn the page keeps the
// phone's screen awake (Screen Wake Lock, where the browser offers it).
import { $, el, api, t, connect, liveBadge, Clock, fmtSeconds, pauseText, hasMatch, possessive, linkLost, stuckText }
  from "/static/common.js";

const params = new URLSearchParams(location.search);
let code = (params.get("code") || "").trim().toUpperCase();
const clock = new Clock();
let state = null;
let link = null;

function showForm(message) {
  if (link) { link.close(); link = null; }
  $("#play").classList.add("hidden");
  $("#codeform").classList.remove("hidden");
  $("#code").value = code;
  const err = $("#codeerror");
  err.textContent = message || "";
  err.classList.toggle("hidden", !message);
  $("#code").focus();
}

function pips(node, n, total, cls) {
  node.replaceChildren(...Array.from({ length: total }, (_, i) =>
    el("span", { class: `pip ${cls} ${i < n ? "on" : ""}` })));
}

// ---------------------------------------------------------------- the screen stays awake

// Held while a turn runs (its timer matters to the tower), let go between turns. Browsers give
// it only to secure pages (https, or this machine's own address) and drop it when the page is
// hidden: it is asked again when the page shows.
let wakeLock = null;
let wantAwake = false;
async function keepAwake(on) {
  wantAwake = on;
  const note = $("#awake");
  if (!("wakeLock" in navigator)) {
    note.textContent = t("This browser cannot keep the screen on from this page: set the phone's screen to stay on during the game.");
    note.classList.toggle("hidden", !on);
    return;
  }
  note.classList.add("hidden");
  if (on && !wakeLock) {
    try {
      wakeLock = await navigator.wakeLock.request("screen");
      wakeLock.addEventListener("release", () => { wakeLock = null; });
    } catch (e) { wakeLock = null; /* refused (battery saver): the turn goes on */ }
  } else if (!on && wakeLock) {
    const lock = wakeLock;
    wakeLock = null;
    lock.release().catch(() => {});
  }
  document.body.dataset.awake = wakeLock ? "locked" : "free";
}
document.addEventListener("visibilitychange", () => { if (document.visibilityState === "visible" && wantAwake) keepAwake(true); });

function showCard(msg) {
  const box = $("#card");
  if (!msg.card) {
    box.replaceChildren();
    $("#cardlines").replaceChildren();
    $("#waiting").classList.remove("hidden");
    return;
  }
  // The SVG is drawn by the server (panel/games/airlines/card_drawing.py) from the layout: trusted markup.
  box.innerHTML = msg.svg || "";
  // The card in plain words too, under the drawing (screen readers, a quick check): the server's.
  $("#cardlines").replaceChildren(...(msg.lines || []).map((l) => el("li", { text: l })));
  $("#waiting").classList.add("hidden");
}

// What the tower is waiting for, and what starts it: START on the panel.
function waitingText(s) {
  if (!hasMatch(s)) {
    return t("No match yet. Keep this page open: the card appears here when the crew presses START on the panel.");
  }
  if (s.finished) {
    return s.ended_by === "abandoned" ? t("The game master abandoned the match. Look at the scoreboard.")
      : t("The game is over. Look at the scoreboard!");
  }
  return s.roles && s.roles.tower
    ? t("{tower} is the tower for {team}. The card appears here when the crew presses START on the panel.",
      { tower: s.roles.tower, team: s.team })
    : t("{team} plays next: whoever holds this phone is the tower. The card appears here when the crew presses START on the panel.",
      { team: s.team });
}

function showState(s) {
  state = s;
  clock.update(s);
  $(".tower").dataset.phase = hasMatch(s) ? (s.finished ? "ended" : s.phase) : "idle";
  keepAwake(s.phase === "in_turn" || s.phase === "paused");
  $("#team").textContent = s.team ? (s.phase === "between_turns" ? t("Next: {team}", { team: s.team })
    : t("{whose} turn", { whose: possessive(s.team) })) : "";
  pips($("#done"), s.completed || 0, s.cards_per_turn || 0, "done");
  pips($("#mistakes"), s.mistakes || 0, s.mistakes_per_turn || 0, "mistake");
  $("#counters").textContent = `${s.counters_held || 0}`;
  const banner = $("#banner");
  let text = "", cls = "";
  if (s.phase === "paused") {
    const why = pauseText(s);
    text = why || t("Challenge! Timer paused");
    cls = linkLost(s) ? "lost" : "paused";
  }
  else if (s.stuck_name) { text = stuckText(s); cls = "stuck"; }
  else if (s.finished) { text = t("Game over"); cls = "paused"; }
  banner.textContent = text;
  banner.className = `banner ${cls}`;
  banner.classList.toggle("hidden", !text);
  if (s.phase !== "in_turn" && s.phase !== "paused") $("#waiting").textContent = waitingText(s);
}

function tick() {
  let left = clock.now();
  const total = clock.total || 30;
  const secs = $("#secs");
  // Between turns: the full turn, dimmed (the hourglass before it is turned over).
  const waiting = (left === null || left === undefined) && state && !state.finished && state.turn_seconds;
  if (waiting) left = state.turn_seconds;
  secs.textContent = state && state.finished ? "" : waiting ? String(left) : fmtSeconds(left);
  secs.classList.toggle("dim", !!waiting);
  const low = left !== null && left <= 5 && clock.running;
  secs.classList.toggle("low", low);
  $("#bar").classList.toggle("low", low);
  $("#bar > div").style.transform = `scaleX(${left === null || waiting ? 0 : Math.min(1, left / total)})`;
  requestAnimationFrame(tick);
}

async function start() {
  if (!code) { showForm(""); return; }
  try {
    const first = await api(`/api/tower?code=${encodeURIComponent(code)}`);
    showCard(first);
  } catch (e) {
    showForm(e.status === 403 ? t("That is not the code of the match being played.") : e.message);
    return;
  }
  $("#codeform").classList.add("hidden");
  $("#play").classList.remove("hidden");
  link = connect("tower", { code }, {
    status: liveBadge(),
    state: (m) => showState(m.state),
    card: (m) => showCard(m),
    closed: (wsCode) => {
      if (wsCode === 4403) { showForm(t("The match changed: scan the new join code.")); return false; }
      return true;
    },
  });
}

$("#codeform").addEventListener("submit", (ev) => {
  ev.preventDefault();
  code = $("#code").value.trim().toUpperCase();
  history.replaceState(null, "", `/tower?code=${encodeURIComponent(code)}`);
  start();
});

requestAnimationFrame(tick);
start();
