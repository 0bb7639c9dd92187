// The game master's page: sign in with the PIN, set up a match, run its turns, rule on
// challenges, end or abandon it, and watch the co-processor link.
//
// The page keeps no rule: a button is enabled exactly when the state's `actions` (the
// engine's answer to "may this happen now") lists it, and the match settings (fields,
// labels, defaults, limits) come from the engine's declaration in /api/admin/status.
import { $, $$, el, api, post, csrf, connect, liveBadge, Clock, fmtSeconds, describeEvent, hasMatch, pauseText,
  t, loadLanguage } from "/static/common.js";

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
  const mode = $("#mode") ? $("#mode").value : "";
  // A setting the engine does not use in this mode (target points in cooperative) is hidden.
  for (const label of $$("#setup label[data-modes]")) {
    label.classList.toggle("hidden", !label.dataset.modes.split(" ").includes(mode));
  }
  // Teams are listed the same way in every mode: in cooperative mode the engine makes one
  // crew of everyone listed (rule 24).
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
// The engine's declaration of the match settings (name, label, kind, default, limits, where
// each may be set), from /api/admin/status; the forms are built from it once.
let SETTINGS = null;
let defaultsShown = false; // the settings form is filled once per sign-in, then left to the game master
let setupFilled = false; // the New match form once per page, so a re-sign-in keeps what was typed there
const inForm = (place) => (SETTINGS || []).filter((st) => st.where.includes(place));
const capital = (t) => t.charAt(0).toUpperCase() + t.slice(1);

function settingField(st, prefix) {
  const id = prefix + st.name;
  let input;
  if (st.kind === "choice") {
    input = el("select", { id }, ...st.choices.map((c) => el("option", { value: c, text: capital(c) })));
  } else if (st.kind === "flag") {
    input = el("select", { id }, el("option", { value: "false", text: "No" }), el("option", { value: "true", text: "Yes" }));
  } else {
    input = el("input", { id, type: "number", min: st.low, max: st.high, step: st.whole ? 1 : "any",
      placeholder: st.where.includes("defaults") ? "" : "new each match" });
  }
  return el("label", { title: st.help, dataset: { modes: st.modes.join(" ") } }, el("span", { text: st.label }), input);
}

function buildSettingForms(settings) {
  if (SETTINGS) return;
  SETTINGS = settings;
  const choice = (st) => st.kind === "choice" || st.kind === "flag";
  $("#setupchoices").replaceChildren(...inForm("form").filter(choice).map((st) => settingField(st, "")));
  $("#setupnumbers").replaceChildren(...inForm("form").filter((st) => st.kind === "number").map((st) => settingField(st, "")));
  $("#defaultfields").replaceChildren(...inForm("defaults").filter((st) => st.kind !== "teams")
    .map((st) => settingField(st, "def_")));
  $("#mode").addEventListener("change", modeChanged);
}

// A field's value for the service; undefined when left blank (then the service decides:
// the defaults, or a new deck for the seed); a string when it cannot be sent.
function readField(st, prefix, { required = false } = {}) {
  const e = $(`#${prefix}${st.name}`);
  if (st.kind === "flag") return e.value === "true";
  if (st.kind !== "number") return e.value;
  const text = e.value.trim();
  if (!text) return required ? `${st.label}: enter a number.` : undefined;
  return Number(text);
}

function settingsMessage(msg, ok = false) {
  const e = $("#settingsmsg");
  e.textContent = msg || "";
  e.className = msg ? (ok ? "notice" : "error") : "hidden";
}

function showDefaults(defaults, { setup = false } = {}) {
  const value = (st) => (defaults && st.name in defaults ? defaults[st.name] : st.default);
  for (const st of inForm("defaults")) {
    if (st.kind === "teams") continue;
    $(`#def_${st.name}`).value = String(value(st));
    if (setup && $(`#${st.name}`)) $(`#${st.name}`).value = String(value(st));
  }
  if (setup) {
    const teams = inForm("form").find((st) => st.kind === "teams");
    $("#teams").replaceChildren();
    for (const t of value(teams)) teamRow(t.name, t.players.join(", "));
    modeChanged();
  }
}

// The cockpit's languages, each named in itself; the one in use selected.
function showLanguages(languages, current) {
  const select = $("#language");
  if (select.options.length !== (languages || []).length) {
    select.replaceChildren(...(languages || []).map((l) => el("option", { value: l.code, text: l.name })));
  }
  if (document.activeElement !== select) select.value = current;
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
const allowed = () => (state && state.actions) || {};

// The parameters a button sends: a ruling's verdict, a challenge's team and card.
function paramsOf(b) {
  if (b.dataset.action === "rule") return { upheld: b.dataset.upheld === "true" };
  if (b.dataset.action === "challenge") {
    const team = $("#chteam").value, card = $("#chcard").value;
    return { ...(team ? { team } : {}), card: card === "current" ? "current" : Number(card) };
  }
  return {};
}

// Enabled exactly when the engine allows it now (a ruling: that verdict).
function allows(b) {
  const options = allowed()[b.dataset.action];
  if (!options) return false;
  if (b.dataset.action === "rule") return options.upheld.includes(b.dataset.upheld === "true");
  return true;
}

// Options of a select from the engine's list, keeping the one chosen when it is still offered.
function offer(select, values, text) {
  const keep = select.value;
  select.replaceChildren(...values.map((v) => el("option", { value: v === null ? "" : String(v), text: text(v) })));
  if ([...select.options].some((o) => o.value === keep)) select.value = keep;
  select.disabled = !values.length;
}

function show(s) {
  state = s;
  clock.update(s);
  const has = hasMatch(s);
  const why = pauseText(s);
  $("#phase").textContent = has ? (s.finished ? (s.ended_by === "abandoned" ? "abandoned" : "finished") : why ? `paused: ${why}` : s.phase.replace("_", " ")) : "no match";
  $("#whose").textContent = has ? `${s.team} · tower ${s.roles?.tower ?? "–"} · round ${s.round}` : "–";
  $("#counts").textContent = has ? `${s.completed} of ${s.cards_per_turn} cards · ${s.mistakes} of ${s.mistakes_per_turn} mistakes · ${s.counters_held} counters held${s.stuck ? ` · stuck: ${s.stuck_name}` : ""}` : "–";
  $("#scoreline").textContent = has ? Object.entries(s.scores || {}).map(([t, p]) => `${t} ${p}`).join(" · ") : "–";

  for (const b of $$("button[data-action]")) b.disabled = !allows(b);
  // A new match replaces one in play only after it is abandoned (the page asks first).
  $("#setupsubmit").disabled = !("new_match" in allowed() || "abandon" in allowed());

  // Challenge: the teams that may call it and the cards it may be called on, as the engine lists them.
  const ch = allowed().challenge || { teams: [], cards: [] };
  offer($("#chteam"), ch.teams, (t) => (t === null ? "the game master" : t));
  offer($("#chcard"), ch.cards, (c) => (c === "current" ? "the card in play" : `completed card ${c + 1}`));
  $("#chinfo").textContent = s.challenge
    ? `Open challenge by ${s.challenge.team ?? "the game master"} on ${s.challenge.card === "current" ? "the card in play" : `completed card ${Number(s.challenge.card) + 1}`}${s.challenge.number != null ? ` (#${s.challenge.number})` : ""}.`
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
    buildSettingForms(st.settings);
    if (!defaultsShown) {
      defaultsShown = true;
      showDefaults(st.defaults, { setup: !setupFilled });
      setupFilled = true;
    }
    showLanguages(st.languages, st.language);
    return true;
  } catch (e) {
    if (e.status === 401 || e.status === 403) { showLogin(); return false; }
    error(e.message);
    return false;
  }
}

async function refreshCode() {
  try { const j = await api("/api/join"); $("#code").textContent = j.code || "–"; } catch (e) { /* the cockpit is out of reach: tried again at the next refresh */ }
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
  const body = {};
  for (const st of inForm("form")) {
    const v = st.kind === "teams" ? teamsFromForm() : readField(st, "");
    if (v !== undefined) body[st.name] = v;
  }
  if (!("new_match" in allowed())) {
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
  for (const st of inForm("defaults")) {
    if (st.kind === "teams") continue; // the teams are chosen for each match
    const v = readField(st, "def_", { required: true });
    if (typeof v === "string" && st.kind === "number") { settingsMessage(v); return; }
    body[st.name] = v;
  }
  const r = await saveSettings(body);
  if (!r) return;
  showDefaults(r.defaults, { setup: true });
  const said = inForm("defaults").filter((st) => st.name in r.defaults && st.kind !== "teams")
    .map((st) => `${st.label} ${st.kind === "flag" ? (r.defaults[st.name] ? "yes" : "no") : r.defaults[st.name]}`);
  settingsMessage(`Defaults saved: new matches get ${said.join(", ")}.`, true);
});

$("#language").addEventListener("change", async (ev) => {
  const r = await saveSettings({ language: ev.target.value });
  if (!r) return;
  await loadLanguage(r.language); // this page at once; the others by the message on their sockets
  settingsMessage(t("Language saved: every page now shows {language}.",
    { language: ev.target.selectedOptions[0].textContent }), true);
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
for (const b of $$("button[data-action]")) {
  b.addEventListener("click", async () => {
    if (b.dataset.action === "abandon" && !confirm("Abandon this match? Nothing of it will be scored.")) return;
    if (b.dataset.action === "end" && !confirm("End this match now and score it?")) return;
    await action(b.dataset.action, paramsOf(b));
  });
}

function tick() {
  if (hasMatch(state)) $("#left").textContent = `${fmtSeconds(clock.now())} s of ${state.turn_seconds}`;
  requestAnimationFrame(tick);
}

connect("board", {}, {
  status: liveBadge(),
  state: (m) => { show(m.state); if (m.state && m.state.match_id !== undefined && m.state.match_id !== show.lastId) { show.lastId = m.state.match_id; refreshCode(); } },
  event: (m) => logEvent(m.event),
});
refreshStatus();
// Keep the link status fresh while signed in (the login form is left alone meanwhile).
setInterval(() => { if (!$("#app").classList.contains("hidden")) refreshStatus(); }, 3000);
requestAnimationFrame(tick);
