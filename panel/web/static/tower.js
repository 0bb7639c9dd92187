// The control tower's phone: the card in play, drawn like the printed card, and the turn's
// timer. Nothing of the card is shown without the match's join code: the server refuses
// the socket (4403) and /api/tower (403) with a wrong one.
import { $, el, api, connect, liveBadge, Clock, fmtSeconds, pauseText } from "/static/common.js";

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

// The card in words too, under the drawing (screen readers, a quick check).
function cardLines(card) {
  const lines = [];
  for (const b of card.press || []) lines.push(`Press ${b}`);
  for (const [t, p] of Object.entries(card.set || {})) lines.push(`Set ${t} to ${p}`);
  if (card.kind === "activation") lines.push(`Type ${card.word}, then OK`);
  else if (card.steps) lines.push(`${card.section}: ${card.steps.join(" ")}, then OK`);
  if (card.kind !== "simple" && card.colours && card.colours.length) lines.push(`Call-out: ${card.colours.join(", ")}`);
  return lines;
}

function showCard(msg) {
  const box = $("#card");
  if (!msg.card) {
    box.replaceChildren();
    $("#cardlines").replaceChildren();
    $("#waiting").classList.remove("hidden");
    return;
  }
  // The SVG is drawn by the server (panel/web/card_drawing.py) from the layout: trusted markup.
  box.innerHTML = msg.svg || "";
  $("#cardlines").replaceChildren(...cardLines(msg.card).map((l) => el("li", { text: l })));
  $("#waiting").classList.add("hidden");
}

function showState(s) {
  state = s;
  clock.update(s);
  $("#team").textContent = s.team ? `${s.team}` : "";
  pips($("#done"), s.completed || 0, s.cards_per_turn || 0, "done");
  pips($("#mistakes"), s.mistakes || 0, s.mistakes_per_turn || 0, "mistake");
  $("#counters").textContent = `${s.counters_held || 0}`;
  const banner = $("#banner");
  let text = "", cls = "";
  if (s.phase === "paused") {
    const why = pauseText(s);
    text = why || "Challenge! Timer paused";
    cls = why && why.startsWith("Panel link") ? "lost" : "paused";
  }
  else if (s.stuck) { text = `Stuck: ${s.stuck_name}`; cls = "stuck"; }
  else if (s.finished) { text = "Game over"; cls = "paused"; }
  banner.textContent = text;
  banner.className = `banner ${cls}`;
  banner.classList.toggle("hidden", !text);
  if (s.phase === "between_turns" || s.finished) {
    $("#waiting").textContent = s.finished ? "The game is over. Look at the scoreboard!" :
      `Waiting for the turn to start… (${s.roles && s.roles.tower ? s.roles.tower + " is the tower" : ""})`;
  }
}

function tick() {
  let left = clock.now();
  const total = clock.total || 30;
  const secs = $("#secs");
  // Between turns: the full turn, dimmed (the hourglass before it is turned over).
  const waiting = (left === null || left === undefined) && state && !state.finished && state.turn_seconds;
  if (waiting) left = state.turn_seconds;
  secs.textContent = state && state.finished ? "" : waiting ? String(left) : fmtSeconds(left);
  secs.classList.toggle("waiting", !!waiting);
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
    showForm(e.status === 403 ? "That is not the code of the match being played." : e.message);
    return;
  }
  $("#codeform").classList.add("hidden");
  $("#play").classList.remove("hidden");
  link = connect("tower", { code }, {
    status: liveBadge(),
    state: (m) => showState(m.state),
    card: (m) => showCard(m),
    closed: (wsCode) => {
      if (wsCode === 4403) { showForm("The match changed: scan the new join code."); return false; }
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
