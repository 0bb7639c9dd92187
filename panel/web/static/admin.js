// The game master's page: sign in with the PIN, set up a match, run its turns, rule on
// challenges, end or abandon it, and watch the co-processor link.
import { $, $$, el, api, post, csrf, connect, liveBadge, Clock, fmtSeconds, describeEvent, hasMatch, pauseText } from "/static/common.js";

const clock = new Clock();
let state = null;

function error(msg) {
  const e = $("#error");
  e.textContent = msg || "";
  e.classList.toggle("hidden", !msg);
}

// A green line for what went well (outside #app, so it stays when the login form shows).
function notice(msg) {
  const e = $("#notice");
  e.textContent = msg || "";
  e.classList.toggle("hidden", !msg);
}

function showLogin() {
  defaultsShown = false;
  $("#login").classList.remove("hidden");
  $("#app").classList.add("hidden");
  $("#pin").focus();
}

function showApp() {
  $("#login").classList.add("hidden");
  $("#app").classList.remove("hidden");
}

// ---------------------------------------------------------------- teams editor
function teamRow(name = "", players = "") {
  const row = el("div", { class: "team" },
    el("input", { class: "tname", "aria-label": "team name", placeholder: "Team name", value: name }),
    el("input", { class: "tplayers", "aria-label": "players", placeholder: "Players, comma separated", value: players }),
    el("button", { type: "button", "aria-label": "remove team", onclick: () => row.remove(), text: "✕" }));
  $("#teams").append(row);
}

function teamsFromForm() {
  return $$("#teams .team").map((r) => ({
    name: $(".tname", r).value.trim(),
    players: $(".tplayers", r).value.split(",").map((p) => p.trim()).filter(Boolean),
  })).filter((t) => t.name || t.players.length);
}

function modeChanged() {
  const coop = $("#mode").value === "cooperative";
  $("#target_points").closest("label").classList.toggle("hidden", coop);
  const rows = $$("#teams .team");
  if (coop && rows.length > 1) rows.slice(1).forEach((r) => r.remove());
  $("#addteam").classList.toggle("hidden", coop);
}

// ---------------------------------------------------------------- actions
const isSignedOut = (e) => e.status === 401 || (e.status === 403 && /session|sign|log ?in|csrf/i.test(e.message));

function signedOut(e) {
  csrf.clear();
  showLogin();
  error(`Signed out (${e.message}): sign in again with the PIN.`);
}

async function adminPost(path, body) {
  error("");
  notice("");
  try {
    return await post(path, body, { admin: true });
  } catch (e) {
    if (isSignedOut(e)) { signedOut(e); return null; }
    // 409: the page was a step behind the match (another tab, the panel's own buttons).
    error(e.status === 409 ? `Not possible now: ${e.message}.` : e.message);
    return null;
  }
}

// ---------------------------------------------------------------- settings
// The engine's own defaults, shown until the service has others.
const ENGINE_DEFAULTS = { turn_seconds: 30, time_counters: 4, target_points: 12 };
const DEFAULT_FIELDS = Object.keys(ENGINE_DEFAULTS);
const DEFAULT_LABELS = { turn_seconds: "Turn seconds", time_counters: "Time counters", target_points: "Target points" };
let defaultsShown = false; // the settings form is filled once per sign-in, then left to the game master
let setupFilled = false; // the New match form once per page, so a re-sign-in keeps what was typed there

function settingsMessage(msg, ok = false) {
  const e = $("#settingsmsg");
  e.textContent = msg || "";
  e.className = msg ? (ok ? "notice" : "error") : "hidden";
}

function showDefaults(defaults, { setup = false } = {}) {
  const d = { ...ENGINE_DEFAULTS, ...(defaults || {}) };
  for (const k of DEFAULT_FIELDS) {
    $(`#def_${k}`).value = String(d[k]);
    if (setup) $(`#${k}`).value = String(d[k]);
  }
}

async function saveSettings(body) {
  error("");
  notice("");
  settingsMessage("");
  try {
    return await post("/api/admin/settings", body, { admin: true });
  } catch (e) {
    if (isSignedOut(e)) { signedOut(e); return null; }
    settingsMessage(e.message);
    return null;
  }
}

async function action(name, params = {}) {
  // The events come back on the live socket too, which logs them: not logged twice here.
  return adminPost("/api/admin/action", { action: name, ...params });
}

function logEvent(e) {
  const log = $("#log");
  log.prepend(el("li", { text: describeEvent(e) }));
  while (log.children.length > 60) log.lastChild.remove();
}

// ---------------------------------------------------------------- state
function show(s) {
  state = s;
  clock.update(s);
  const has = hasMatch(s);
  const why = pauseText(s);
  $("#phase").textContent = has ? (s.finished ? "finished" : why ? `paused: ${why}` : s.phase.replace("_", " ")) : "no match";
  $("#whose").textContent = has ? `${s.team} · tower ${s.roles?.tower ?? "–"} · round ${s.round}` : "–";
  $("#counts").textContent = has ? `${s.completed} cards · ${s.mistakes} mistakes · ${s.counters_held} counters held${s.stuck ? ` · stuck ${s.stuck}` : ""}` : "–";
  $("#scoreline").textContent = has ? Object.entries(s.scores || {}).map(([t, p]) => `${t} ${p}`).join(" · ") : "–";

  const inTurn = s.phase === "in_turn", paused = s.phase === "paused", between = s.phase === "between_turns";
  $("#start_turn").disabled = !has || !between || s.finished;
  $("#pause").disabled = !inTurn;
  // Resume lifts the game master's own pause (or the one after a restart); a lost link
  // resumes by itself, a challenge by the ruling.
  $("#resume").disabled = !(paused && (s.paused_for || []).some((r) => r === "pause" || r === "restart"));
  $("#flip").disabled = !inTurn;
  $("#end").disabled = !has || s.finished;
  $("#abandon").disabled = !has || s.finished;

  // Challenge: any team other than the one playing may call it, on the card in play or
  // on one completed this turn.
  const others = (s.teams || []).map((t) => t.name).filter((n) => n !== s.team || s.mode === "cooperative");
  const chteam = $("#chteam");
  const keepTeam = chteam.value;
  chteam.replaceChildren(...others.map((n) => el("option", { value: n, text: n })));
  if (others.includes(keepTeam)) chteam.value = keepTeam;
  const chcard = $("#chcard");
  const keepCard = chcard.value;
  chcard.replaceChildren(el("option", { value: "current", text: "the card in play" }),
    ...Array.from({ length: s.completed || 0 }, (_, i) => el("option", { value: String(i), text: `completed card ${i + 1}` })));
  if ([...chcard.options].some((o) => o.value === keepCard)) chcard.value = keepCard;
  $("#challenge").disabled = !inTurn || !!s.challenge;
  $("#upheld").disabled = !s.challenge;
  $("#rejected").disabled = !s.challenge;
  $("#chinfo").textContent = s.challenge
    ? `Open challenge by ${s.challenge.team} on ${s.challenge.card === "current" ? "the card in play" : `completed card ${Number(s.challenge.card) + 1}`}${s.challenge.number != null ? ` (#${s.challenge.number})` : ""}.`
    : "No challenge open.";
}

async function refreshStatus() {
  try {
    const st = await api("/api/admin/status");
    if (!csrf.get()) { showLogin(); return false; } // signed in by cookie only: no action would pass
    showApp();
    const l = st.link || {};
    $("#link").replaceChildren(el("span", { class: `linkdot ${l.connected ? "on" : ""}` }),
      l.connected ? "connected" : (l.connected === false ? "not connected" : "none (simulator)"));
    $("#frames").textContent = `${l.frames_received ?? 0} received · ${l.frames_rejected ?? 0} rejected`;
    $("#reconnects").textContent = String(l.reconnects ?? 0);
    $("#firmware").textContent = l.firmware || "–";
    $("#version").textContent = st.version || "–";
    // What the start found (a match set aside, a damaged file) and a store that cannot write.
    const warnings = st.warnings || [];
    $("#warnings").replaceChildren(...warnings.map((text) => el("li", { text })));
    $("#warnings").classList.toggle("hidden", !warnings.length);
    if (!defaultsShown) {
      defaultsShown = true;
      showDefaults(st.defaults, { setup: !setupFilled });
      setupFilled = true;
    }
    return true;
  } catch (e) {
    if (e.status === 401 || e.status === 403) { showLogin(); return false; }
    error(e.message);
    return false;
  }
}

async function refreshCode() {
  try { const j = await api("/api/join"); $("#code").textContent = j.code || "–"; } catch (e) { /* no match yet */ }
}

// ---------------------------------------------------------------- wiring
$("#login").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  error("");
  try {
    const r = await post("/api/admin/login", { pin: $("#pin").value });
    csrf.set(r.csrf);
    $("#pin").value = "";
    notice("");
    settingsMessage("");
    await refreshStatus();
  } catch (e) {
    error(e.status === 429 ? "Too many wrong PINs: wait a minute." : e.status === 403 ? "Wrong PIN." : e.message);
  }
});

$("#setup").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const seedText = $("#seed").value.trim();
  const body = {
    mode: $("#mode").value,
    teams: teamsFromForm(),
    turn_seconds: Number($("#turn_seconds").value),
    time_counters: Number($("#time_counters").value),
    target_points: Number($("#target_points").value),
    side: $("#side").value,
    expansion: $("#expansion").value === "true",
  };
  if (seedText) body.seed = Number(seedText);
  if (hasMatch(state) && !state.finished) {
    // The service plays one match at a time: the one in play is abandoned first.
    if (!confirm("A match is in play. Abandon it (no score kept) and set up this one?")) return;
    if (!(await action("abandon"))) return;
  }
  const r = await adminPost("/api/admin/match", body);
  if (r) { $("#code").textContent = r.code; logEvent({ type: `New match ${r.match_id}, join code ${r.code}` }); }
});

$("#defaultsform").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const body = {};
  for (const k of DEFAULT_FIELDS) {
    const text = $(`#def_${k}`).value.trim();
    if (!text) { settingsMessage(`${DEFAULT_LABELS[k]}: enter a number.`); return; }
    body[k] = Number(text);
  }
  const r = await saveSettings(body);
  if (!r) return;
  showDefaults(r.defaults, { setup: true });
  const d = { ...ENGINE_DEFAULTS, ...r.defaults };
  settingsMessage(`Defaults saved: new matches get ${d.turn_seconds} s turns, ${d.time_counters} time counters` +
                  `, ${d.target_points} target points.`, true);
});

$("#pinform").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const pin = $("#newpin").value, again = $("#newpin2").value;
  if (!/^[0-9]{4,12}$/.test(pin)) { settingsMessage("The new PIN must be 4 to 12 digits (0–9)."); return; }
  if (pin !== again) { settingsMessage("The two new PINs differ: type the same PIN twice."); return; }
  const r = await saveSettings({ pin });
  if (!r) return;
  $("#newpin").value = "";
  $("#newpin2").value = "";
  // The service ends every session on a new PIN (whoever knew the old one is out), this one too.
  csrf.clear();
  showLogin();
  notice("PIN changed. Every game master was signed out, this page too: sign in with the new PIN.");
});

$("#addteam").addEventListener("click", () => teamRow());
$("#mode").addEventListener("change", modeChanged);
for (const b of $$("button[data-action]")) {
  b.addEventListener("click", async () => {
    if (b.dataset.action === "abandon" && !confirm("Abandon this match? Nothing of it will be scored.")) return;
    if (b.dataset.action === "end" && !confirm("End this match now and score it?")) return;
    await action(b.dataset.action);
  });
}
$("#challenge").addEventListener("click", () => {
  const v = $("#chcard").value;
  action("challenge", { team: $("#chteam").value, card: v === "current" ? "current" : Number(v) });
});
$("#upheld").addEventListener("click", () => action("rule", { upheld: true }));
$("#rejected").addEventListener("click", () => action("rule", { upheld: false }));

function tick() {
  if (hasMatch(state)) $("#left").textContent = `${fmtSeconds(clock.now())} s of ${state.turn_seconds}`;
  requestAnimationFrame(tick);
}

teamRow("Penguins", "Ana, Ben");
teamRow("Puffins", "Cleo, Dan");
modeChanged();
connect("board", {}, {
  status: liveBadge(),
  state: (m) => { show(m.state); if (m.state && m.state.match_id !== undefined && m.state.match_id !== show.lastId) { show.lastId = m.state.match_id; refreshCode(); } },
  event: (m) => logEvent(m.event),
});
refreshStatus();
// Keep the link status fresh while signed in (the login form is left alone meanwhile).
setInterval(() => { if (!$("#app").classList.contains("hidden")) refreshStatus(); }, 3000);
requestAnimationFrame(tick);
