// The venue's admin page (a phone): sign in with the venue's PIN, then start a walk-up
// match on a cockpit, pause, resume or end its match. Each cockpit answers with the same
// words its game master's page would get.
import { $, el, api, post, t, csrf, connect } from "/static/common.js";

// The commands' words, in the page's language.
const LABELS = () => ({ start: t("Start"), pause: t("Pause"), resume: t("Resume"), end: t("End the match") });
let cockpits = new Map();
let commands = [];

function error(msg) {
  $("#error").textContent = msg || "";
  $("#error").classList.toggle("hidden", !msg);
}

function showLogin() {
  $("#login").classList.remove("hidden");
  $("#app").classList.add("hidden");
  $("#pin").focus();
}

function describe(c) {
  const s = c.state;
  if (!c.online) return t("offline");
  if (!s || !s.match || s.phase === "idle") return t("no match in play");
  const phase = { between_turns: t("between turns"), in_turn: t("turn running"), paused: t("paused"), finished: t("finished") }[s.phase];
  return [phase, s.team, ...Object.entries(s.scores).map(([team, p]) => `${team} ${p}`)].filter(Boolean).join(" · ");
}

const sections = new Map(); // cockpit id -> its section, built once (a reply line stays put)

function section(c) {
  const reply = el("p", { class: "reply muted", role: "status" });
  return el("section", { class: "cockpit", dataset: { cockpit: c.id } },
    el("h2", { text: c.name }),
    el("p", { class: "what muted" }),
    el("div", { class: "controls" }, commands.map((a) => el("button", {
      type: "button", class: a === "end" ? "danger" : a === "start" ? "primary" : "", dataset: { action: a },
      onclick: () => (a === "end" ? askEnd(cockpits.get(c.id), reply) : command(cockpits.get(c.id), a, reply)),
      text: LABELS()[a] || a }))),
    reply);
}

function render() {
  $("#none").classList.toggle("hidden", cockpits.size > 0);
  for (const id of [...sections.keys()]) if (!cockpits.has(id)) { sections.get(id).remove(); sections.delete(id); }
  const list = [...cockpits.values()].sort((a, b) => a.name.localeCompare(b.name));
  for (const c of list) {
    if (!sections.has(c.id)) sections.set(c.id, section(c));
    const node = sections.get(c.id);
    node.querySelector(".what").textContent = describe(c);
    // Enabled exactly when the cockpit says it takes that command now.
    const takes = (c.state && c.state.commands) || [];
    for (const b of node.querySelectorAll("button")) b.disabled = !c.online || !takes.includes(b.dataset.action);
  }
  $("#cockpits").replaceChildren(...list.map((c) => sections.get(c.id)));
}

// "End the match…" asks first, and offers the ends the cockpit takes now (its state's
// `end_when`), worded as on the game master's page: finish the round, or end now.
let ending = null; // { cockpit id, reply line } while the dialog is open
function askEnd(c, reply) {
  ending = { id: c.id, reply };
  showEndChoices();
  $("#enddialog").showModal();
}

function showEndChoices() {
  const c = ending && cockpits.get(ending.id);
  if (!c) return;
  const s = c.state || {};
  const when = s.end_when || ["now"];
  const inTurn = s.phase === "in_turn" || s.phase === "paused";
  $("#endwhere").textContent = t("End the match at {cockpit}?", { cockpit: c.name });
  $("#endround").classList.toggle("hidden", !when.includes("round"));
  $("#endnow").classList.toggle("hidden", !when.includes("now"));
  $("#end_round").textContent = inTurn ? t("Finish the round, then end (the turn in progress counts)")
    : t("Finish the round, then end (the teams still to play this round play)");
  $("#end_now").textContent = inTurn ? t("End now (the turn in progress is not scored)") : t("End now and score the match");
}

for (const [id, when] of [["#end_now", "now"], ["#end_round", "round"]]) {
  $(id).addEventListener("click", () => {
    $("#enddialog").close();
    const c = ending && cockpits.get(ending.id);
    if (c) command(c, "end", ending.reply, when);
    ending = null;
  });
}
$("#end_cancel").addEventListener("click", () => { $("#enddialog").close(); ending = null; });

async function command(c, action, reply, when) {
  error("");
  const label = LABELS()[action];
  reply.textContent = t("{command}: asking {cockpit}…", { command: label, cockpit: c.name });
  try {
    await post("/api/admin/command", { cockpit: c.id, action, ...(when ? { when } : {}) }, { admin: true });
    reply.textContent = t("{command}: done", { command: label });
  } catch (e) {
    if (e.status === 403 && /log in|session|CSRF/i.test(e.message)) { csrf.clear(); showLogin(); }
    reply.textContent = `${label}: ${e.message}`;
  }
}

async function load() {
  try {
    const s = await api("/api/admin/status");
    commands = s.commands;
    cockpits = new Map(s.cockpits.map((c) => [c.id, c]));
    $("#broker").textContent = s.broker ? t("Connected to the broker.") : t("Not connected to the broker: commands wait until it is back.");
    $("#login").classList.add("hidden");
    $("#app").classList.remove("hidden");
    render();
    return true;
  } catch (e) {
    if (e.status === 403) showLogin(); else error(e.message);
    return false;
  }
}

$("#login").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  error("");
  try {
    const r = await post("/api/admin/login", { pin: $("#pin").value });
    csrf.set(r.csrf);
    $("#pin").value = "";
    await load();
  } catch (e) {
    error(e.message);
  }
});

connect("venue", {}, {
  cockpit(msg) {
    if (cockpits.size || commands.length) { cockpits.set(msg.cockpit.id, msg.cockpit); render(); }
    if ($("#enddialog").open) showEndChoices();
  },
  forget(msg) { cockpits.delete(msg.cockpit); render(); },
  broker(msg) { $("#broker").textContent = msg.connected ? t("Connected to the broker.") : t("Not connected to the broker."); },
});
load();
