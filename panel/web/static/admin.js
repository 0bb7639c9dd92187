// The game master's page: sign in with the PIN, set up a match, run its turns, rule on
// challenges, end or abandon it, and watch the co-processor link.
//
// The page keeps no rule: a button is enabled exactly when the state's `actions` (the
// engine's answer to "may this happen now") lists it, and the match settings (fields,
// labels, defaults, limits) come from the engine's declaration in /api/admin/status. What
// the match now shows and what its New match form asks is the game's part of the page:
// /static/games/<game>/admin.js.
import { $, $$, el, api, post, csrf, connect, liveBadge, hasMatch, showGame, t, loadLanguage, onLanguage }
  from "/static/common.js";
import { gameOf, parts } from "/static/games/index.js";

const games = await parts("admin");
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
// A name given by the defaults (`auto`) follows the page's language until someone types one.
function teamRow(name = "", players = "", { auto = false } = {}) {
  const nameInput = el("input", { class: "tname", value: name, dataset: auto ? { auto: "yes" } : null });
  nameInput.addEventListener("input", () => { delete nameInput.dataset.auto; });
  const row = el("div", { class: "team" },
    nameInput,
    el("input", { class: "tplayers", value: players }),
    el("button", { type: "button", class: "tremove", onclick: () => row.remove(), text: "✕" }));
  $("#teams").append(row);
  wordTeamRow(row);
}

// A team row's words, in the page's language (again when it changes).
function wordTeamRow(row) {
  const set = (sel, attrs) => { for (const [a, v] of Object.entries(attrs)) $(sel, row).setAttribute(a, v); };
  set(".tname", { "aria-label": t("team name"), placeholder: t("Team name") });
  set(".tplayers", { "aria-label": t("players"), placeholder: t("Players, comma separated") });
  set(".tremove", { "aria-label": t("remove team") });
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
const isSignedOut = (e) => e.status === 401 || e.signedOut; // the server's flag, never its words

function signedOut(e) {
  csrf.clear();
  showLogin();
  error(t("Signed out ({why}): sign in again with the PIN.", { why: e.message }));
}

async function adminPost(path, body) {
  error("");
  notice("");
  try {
    return await post(path, body, { admin: true });
  } catch (e) {
    if (isSignedOut(e)) { signedOut(e); return null; }
    // 409: the page was a step behind the match (another tab, the panel's own buttons).
    error(e.status === 409 ? t("Not possible now: {why}.", { why: e.message }) : e.message);
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

function settingField(st, prefix) {
  const id = prefix + st.name;
  let input;
  if (st.kind === "choice") {
    input = el("select", { id }, ...st.choices.map((c) => el("option", { value: c })));
  } else if (st.kind === "flag") {
    input = el("select", { id }, el("option", { value: "false" }), el("option", { value: "true" }));
  } else {
    input = el("input", { id, type: "number", min: st.low, max: st.high, step: st.whole ? 1 : "any" });
  }
  return el("label", { dataset: { modes: st.modes.join(" "), setting: st.name, prefix } }, el("span"), input);
}

// The settings' words in the page's language (again when it changes): the engine's labels,
// help and choices are in the catalog (panel/games/airlines/engine/settings.py marks them).
function wordSettings() {
  const flags = { false: t("No"), true: t("Yes") };
  for (const label of $$("label[data-setting]")) {
    const st = SETTINGS.find((x) => x.name === label.dataset.setting);
    label.title = st.help; // the service says the labels, help and choices in the cockpit's language
    $("span", label).textContent = st.label;
    const input = $(`#${label.dataset.prefix}${st.name}`);
    for (const o of input.tagName === "SELECT" ? input.options : []) {
      o.textContent = st.kind === "flag" ? flags[o.value] : st.choice_names[st.choices.indexOf(o.value)];
    }
    if (st.kind === "number" && !st.where.includes("defaults")) input.placeholder = t("new each match");
  }
}

// The forms are built from the first declaration; each later one (every status) only words
// them again, so that they say what the service says now.
function buildSettingForms(settings) {
  const first = !SETTINGS;
  SETTINGS = settings;
  if (first) {
    const choice = (st) => st.kind === "choice" || st.kind === "flag";
    $("#setupchoices").replaceChildren(...inForm("form").filter(choice).map((st) => settingField(st, "")));
    $("#setupnumbers").replaceChildren(...inForm("form").filter((st) => st.kind === "number").map((st) => settingField(st, "")));
    $("#defaultfields").replaceChildren(...inForm("defaults").filter((st) => st.kind !== "teams")
      .map((st) => settingField(st, "def_")));
    $("#mode").addEventListener("change", modeChanged);
  }
  wordSettings();
}

// A field's value for the service; undefined when left blank (then the service decides:
// the defaults, or a new deck for the seed); a string when it cannot be sent.
function readField(st, prefix, { required = false } = {}) {
  const e = $(`#${prefix}${st.name}`);
  if (st.kind === "flag") return e.value === "true";
  if (st.kind !== "number") return e.value;
  const text = e.value.trim();
  if (!text) return required ? t("{setting}: enter a number.", { setting: t(st.label) }) : undefined;
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
    const auto = !(defaults && teams.name in defaults); // the declaration's names, in the page's language
    for (const t of value(teams)) teamRow(t.name, t.players.join(", "), { auto });
    modeChanged();
  }
}

// The default team names in the language the status came in: a name nobody typed follows it
// (switched back to English, the form no longer offers "Equipo azul").
function followLanguage(defaults) {
  const teams = inForm("form").find((st) => st.kind === "teams");
  if (!teams || (defaults && teams.name in defaults)) return;
  $$("#teams .team .tname").forEach((input, i) => {
    if (input.dataset.auto && teams.default[i]) input.value = teams.default[i].name;
  });
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
  const part = games.of(state);
  log.prepend(el("li", { text: typeof e === "string" ? e : part ? part.describe(e, state) : e.type }));
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

// What a game's part may use of the page: `action(name, params)` sends an action through the
// page's one action path (its answer, or null with the reason shown), for a game whose
// part enters its own (a scorekeeper's entries).
const page = { offer, declaredBody, action };

let shown = null; // the game of the match shown

function show(s) {
  state = s;
  const has = hasMatch(s);
  if (shown !== gameOf(s)) games.all[shown]?.leave?.(page);
  shown = gameOf(s);
  showGame($(".admin"), shown);
  $(".admin").dataset.phase = has ? (s.finished ? "ended" : s.phase) : "idle";
  games.of(s)?.show(s, page);

  // Each action's button is shown, and enabled, exactly when the engine allows it now.
  for (const b of $$("button[data-action]")) {
    b.disabled = !allows(b);
    if (b.classList.contains("big") && b.closest(".actions")) b.classList.toggle("hidden", b.disabled);
  }
  $("#newmatch").classList.toggle("hidden", !("new_match" in allowed()));
  // A new match replaces one in play only after it is abandoned (the page asks first).
  $("#setupsubmit").disabled = !("new_match" in allowed() || "abandon" in allowed());
}

// ---------------------------------------------------------------- the New match form
// The games this cockpit plays, each as its declaration offers it (one this panel cannot
// play, its layout lacking what the game needs, listed but disabled); the form shows the
// one chosen.
function buildGames(declared) {
  const select = $("#game");
  if (!select.options.length) {
    select.replaceChildren(...Object.keys(declared).map((game) => el("option", { value: game })));
    select.value = gameOf(null);
  }
  for (const o of select.options) {
    o.textContent = declared[o.value].title;
    o.disabled = !declared[o.value].available;
    games.all[o.value]?.form(declared[o.value], page);
  }
  gameChanged();
}

function gameChanged() {
  showGame($("#setup"), $("#game").value);
}

// The New match answer of a game whose settings the engine declares (the form built from them).
function declaredBody() {
  const body = {};
  for (const st of inForm("form")) {
    const v = st.kind === "teams" ? teamsFromForm() : readField(st, "");
    if (v !== undefined) body[st.name] = v;
  }
  return body;
}

async function refreshStatus() {
  try {
    const st = await api("/api/admin/status");
    if (!csrf.get()) { showLogin(); return false; } // signed in by cookie only: no action would pass
    showApp();
    const l = st.link || {};
    $("#link").replaceChildren(el("span", { class: `linkdot ${l.connected ? "on" : ""}` }),
      l.connected ? t("connected") : (l.connected === false ? t("not connected") : t("none (simulator)")));
    $("#frames").textContent = t("{received} received · {rejected} rejected",
      { received: l.frames_received ?? 0, rejected: l.frames_rejected ?? 0 });
    $("#reconnects").textContent = String(l.reconnects ?? 0);
    $("#firmware").textContent = l.firmware ? t(l.firmware) : "–"; // a board's own version, or "browser simulator"
    $("#version").textContent = st.version || "–";
    // What the start found (a match set aside, a damaged file) and a store that cannot write.
    const warnings = st.warnings || [];
    $("#warnings").replaceChildren(...warnings.map((text) => el("li", { text })));
    $("#warnings").classList.toggle("hidden", !warnings.length);
    buildSettingForms(st.settings);
    buildGames(st.games);
    if (!defaultsShown) {
      defaultsShown = true;
      showDefaults(st.defaults, { setup: !setupFilled });
      setupFilled = true;
    } else followLanguage(st.defaults);
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
    refreshCode(); // asked before the sign-in, it was refused; the match has not changed since
  } catch (e) {
    error(e.status === 429 ? t("Too many wrong PINs: wait a minute.") : e.status === 403 ? t("Wrong PIN.") : e.message);
  }
});

$("#setup").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const game = $("#game").value;
  const body = { game, ...games.all[game].body(page) };
  if (!("new_match" in allowed())) {
    // The service plays one match at a time: the one in play is abandoned first.
    if (!confirm(t("A match is in play. Abandon it (no score kept) and set up this one?"))) return;
    if (!(await action("abandon"))) return;
  }
  const r = await adminPost("/api/admin/match", body);
  if (r) {
    $("#code").textContent = r.code;
    logEvent(t("New match {number}, join code {code}", { number: r.match_id, code: r.code }));
    notice(t("Match {number} is set up: the tower joins with the code {code}.", { number: r.match_id, code: r.code }));
    window.scrollTo({ top: 0 });
  }
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
    .map((st) => [t(st.label), st.kind === "flag" ? (r.defaults[st.name] ? t("yes") : t("no"))
      : st.kind === "choice" ? t(r.defaults[st.name]) : r.defaults[st.name]].join(" "));
  settingsMessage(t("Defaults saved: new matches get {settings}.", { settings: said.join(", ") }), true);
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
  if (!/^[0-9]{4,12}$/.test(pin)) { settingsMessage(t("The new PIN must be 4 to 12 digits (0–9).")); return; }
  if (pin !== again) { settingsMessage(t("The two new PINs differ: type the same PIN twice.")); return; }
  const r = await saveSettings({ pin });
  if (!r) return;
  $("#newpin").value = "";
  $("#newpin2").value = "";
  // The service ends every session on a new PIN (whoever knew the old one is out), this one too.
  csrf.clear();
  showLogin();
  notice(t("PIN changed. Every game master was signed out, this page too: sign in with the new PIN."));
});

$("#addteam").addEventListener("click", () => teamRow());
$("#game").addEventListener("change", gameChanged);
for (const b of $$("button[data-action]")) {
  b.addEventListener("click", async () => {
    if (b.dataset.action === "abandon" && !confirm(t("Abandon this match? Nothing of it is scored and there is no result."))) return;
    if (b.dataset.action === "end") { games.of(state).endChoices(state); $("#enddialog").showModal(); return; }
    await action(b.dataset.action, paramsOf(b));
  });
}
for (const [id, when] of [["#end_now", "now"], ["#end_round", "round"]]) {
  $(id).addEventListener("click", async () => {
    $("#enddialog").close();
    await action("end", { when });
  });
}
$("#end_cancel").addEventListener("click", () => $("#enddialog").close());
$("#newmatch").addEventListener("click", () => {
  $("#setup").scrollIntoView({ behavior: "smooth", block: "start" });
  $("#setupsubmit").focus({ preventScroll: true });
});

function tick() {
  games.of(state)?.tick(state);
  requestAnimationFrame(tick);
}

// Another language chosen (here or in another tab): the forms built once are worded again.
onLanguage(() => {
  if (SETTINGS) wordSettings();
  for (const part of Object.values(games.all)) part.word();
  for (const row of $$("#teams .team")) wordTeamRow(row);
  if (state) show(state);
  if (!$("#app").classList.contains("hidden")) refreshStatus(); // the link's words
});

connect("board", {}, {
  status: liveBadge(),
  state: (m) => {
    show(m.state);
    // The join code may change with the match, at its end, and for a new group (its version).
    const key = `${m.state.match_id}/${m.state.status}/${m.state.join}`;
    if (key !== show.codeFor) { show.codeFor = key; refreshCode(); }
  },
  event: (m) => logEvent(m.event),
});
refreshStatus();
// Keep the link status fresh while signed in (the login form is left alone meanwhile).
setInterval(() => { if (!$("#app").classList.contains("hidden")) refreshStatus(); }, 3000);
requestAnimationFrame(tick);
