// The game master's page: sign in with the PIN, set up a match, run its turns, rule on
// challenges, end or abandon it, and watch the co-processor link.
//
// The page keeps no rule: a button is enabled exactly when the state's `actions` (the
// engine's answer to "may this happen now") lists it, and the match settings (fields,
// labels, defaults, limits) come from the engine's declaration in /api/admin/status.
import { $, $$, el, api, post, csrf, connect, liveBadge, Clock, fmtSeconds, describeEvent, hasMatch, pauseText,
  t, tn, loadLanguage, onLanguage, cardsText, matchEndText, possessive, challenger, challengedCard } from "/static/common.js";
import { KaboomClocks, PENGUIN_CSS, PENGUIN_INK, colourName, describeKaboomEvent, fmtClock, isKaboom, kaboomBanner,
  missionTitle, outcomeTitle, playerName } from "/static/kaboom.js";

const clock = new Clock();
const clocks = new KaboomClocks();
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
    el("input", { class: "tname", value: name }),
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
const isSignedOut = (e) => e.status === 401 || (e.status === 403 && /session|sign|log ?in|csrf/i.test(e.message));

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
  log.prepend(el("li", { text: typeof e === "string" ? e
    : isKaboom(state) && !e.type.startsWith("New ") ? describeKaboomEvent(e, state) : describeEvent(e) }));
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

function phaseText(s) {
  if (!hasMatch(s)) return t("No match");
  if (s.finished) return s.ended_by === "abandoned" ? t("Abandoned") : s.ended_by === "ended" ? t("Ended by the game master") : t("Finished");
  const why = pauseText(s);
  if (s.phase === "paused") return why || t("Paused for the challenge");
  return s.phase === "in_turn" ? t("Turn in progress") : t("Between turns");
}

function whoseText(s) {
  if (!hasMatch(s) || s.finished) return "";
  const tower = s.roles && s.roles.tower ? t("tower {name}", { name: s.roles.tower }) : t("the team picks its tower");
  const whose = s.phase === "between_turns" ? t("next: {team}", { team: s.team }) : t("{whose} turn", { whose: possessive(s.team) });
  return ["", whose, tower, t("round {round}", { round: s.round })].join(" · ").trim();
}

// What "End the match…" offers now: the engine's choices (`actions.end.when`), each saying
// what it does to the turn in progress.
function showEndChoices(s) {
  const when = (allowed().end || {}).when || [];
  const inTurn = s.phase === "in_turn" || s.phase === "paused";
  const played = Object.entries(s.turns_played || {});
  const unequal = new Set(played.map(([, n]) => n)).size > 1
    ? " " + t("Turns played: {turns}.", { turns: played.map(([team, n]) => team + " " + n).join(", ") }) : "";
  $("#endround").classList.toggle("hidden", !when.includes("round"));
  $("#endnow").classList.toggle("hidden", !when.includes("now"));
  const left = s.round_left || [];
  $("#end_round").textContent = inTurn ? t("Finish the round, then end (the turn in progress counts)")
    : t("Finish the round, then end (the teams still to play this round play)");
  const vars = { round: s.round, teams: left.join(", ") };
  $("#endround_text").textContent = inTurn
    ? tn("The match ends when round {round} does: {teams} still plays this round, the turn in progress included. Then it is scored, every team having played as many turns.",
      "The match ends when round {round} does: {teams} still play this round, the turn in progress included. Then it is scored, every team having played as many turns.",
      left.length, vars)
    : tn("The match ends when round {round} does: {teams} still plays this round. Then it is scored, every team having played as many turns.",
      "The match ends when round {round} does: {teams} still play this round. Then it is scored, every team having played as many turns.",
      left.length, vars);
  $("#end_now").textContent = inTurn ? t("End now (the turn in progress is not scored)") : t("End now and score the match");
  $("#endnow_text").textContent = (inTurn
    ? t("{whose} turn in progress ({cards} so far) is not scored: the result is the scores as they stand.",
      { whose: possessive(s.team), cards: cardsText(s.completed) })
    : t("The result is the scores as they stand.")) + unequal;
}

// The completed cards of the turn (the last turn's between turns), drawn, numbered as the
// challenge menu numbers them.
let doneFor = null;
async function showDoneCards(s) {
  const box = $("#donebox");
  const key = hasMatch(s) ? `${s.match_id}/${s.phase}/${(s.completed_cards || []).length}/`
    + `${Object.values(s.turns_played || {}).reduce((a, b) => a + b, 0)}` : null;
  if (key === doneFor) return;
  doneFor = key;
  if (!key) { box.classList.add("hidden"); return; }
  try {
    const done = await api("/api/completed");
    box.classList.toggle("hidden", !done.turn || !done.cards.length);
    if (!done.turn) return;
    $("#donetitle").textContent = done.turn.in_progress
      ? t("Completed cards of {whose} turn", { whose: possessive(done.turn.team) })
      : t("Completed cards of {whose} last turn (round {round})", { whose: possessive(done.turn.team), round: done.turn.round });
    $("#donerow").replaceChildren(...done.cards.map((c) => {
      const pic = el("div", { class: "pic" });
      pic.innerHTML = c.svg || ""; // drawn by the server (panel/games/airlines/card_drawing.py): trusted markup
      return el("figure", { class: "donecard", dataset: { index: c.index, number: c.number } }, pic,
        el("figcaption", { text: t("Completed card {number}", { number: c.index }) }));
    }));
  } catch (e) {
    doneFor = null; // asked again with the next state
  }
}

function show(s) {
  state = s;
  clock.update(s);
  const has = hasMatch(s);
  const kaboom = has && isKaboom(s);
  $(".admin").classList.toggle("kaboom", kaboom);
  $(".admin").dataset.phase = has ? (s.finished ? "ended" : s.phase) : "idle";
  // The timer's words, or in a Kaboom mission the clocks' (the Airlines ones as the page was written).
  $("#pause").textContent = kaboom ? t("Pause the clocks") : t("Pause the timer");
  $("#resume").textContent = kaboom ? t("Resume the clocks") : t("Resume the timer");
  if (kaboom) showKaboom(s);
  else {
    $("#phase").textContent = phaseText(s);
    $("#whose").textContent = whoseText(s);
    $("#counts").textContent = has && !s.finished
      ? [tn("{done} of {n} card", "{done} of {n} cards", s.cards_per_turn, { done: s.completed }),
        tn("{done} of {n} mistake", "{done} of {n} mistakes", s.mistakes_per_turn, { done: s.mistakes }),
        tn("{n} time counter held", "{n} time counters held", s.counters_held),
        s.stuck_name ? t("stuck finger: {name}", { name: s.stuck_name }) : null].filter(Boolean).join(" · ")
      : has ? Object.entries(s.scores || {}).map(([team, p]) => `${team} ${p}`).join(" · ") : "";
  }

  // Each action's button is shown, and enabled, exactly when the engine allows it now.
  for (const b of $$("button[data-action]")) {
    b.disabled = !allows(b);
    if (b.classList.contains("big") && b.closest(".actions")) b.classList.toggle("hidden", b.disabled);
  }
  $("#newmatch").classList.toggle("hidden", !("new_match" in allowed()));
  // A new match replaces one in play only after it is abandoned (the page asks first).
  $("#setupsubmit").disabled = !("new_match" in allowed() || "abandon" in allowed());

  // Challenge: the teams that may call it and the cards it may be called on, as the engine lists them.
  const ch = allowed().challenge || { teams: [], cards: [] };
  offer($("#chteam"), ch.teams, challenger);
  offer($("#chcard"), ch.cards, challengedCard);
  $("#challengebox").classList.toggle("hidden", !allowed().challenge);
  const c = s.challenge;
  $("#chinfo").textContent = !c ? t("No challenge open.") : c.number != null
    ? t("Open challenge by {team} on {card} (card number {number}): rule on it.",
      { team: challenger(c.team), card: challengedCard(c.card), number: c.number })
    : t("Open challenge by {team} on {card}: rule on it.", { team: challenger(c.team), card: challengedCard(c.card) });
  $("#chinfo").classList.toggle("hidden", !has || s.finished);
  if (kaboom) { $("#endinfo").classList.add("hidden"); return; } // its outcome is the phase line
  const endNote = s.ending && !s.finished
    ? (s.round_left?.length ? t("The match ends at the end of round {round}: {teams} still to play.", { round: s.round, teams: s.round_left.join(", ") })
      : t("The match ends at the end of round {round}.", { round: s.round }))
    : s.finished ? matchEndText(s) : null;
  $("#endinfo").textContent = endNote || "";
  $("#endinfo").classList.toggle("hidden", !endNote);
  if ($("#enddialog").open) showEndChoices(s);
  showDoneCards(s);
}

// ---------------------------------------------------------------- Penguin Kaboom
// The missions as the missions file and the layout declare them (/api/admin/status): the
// penguins this panel has, the difficulties, each mission's numbers, the custom limits.
let KABOOM = null;

function kaboomNumbers(r) {
  return t("{seconds} s each, an alert every {alert} s, recharge {recharge} s ({cap}), {cards} alert cards ({up} face up)", {
    seconds: r.time_per_player, alert: r.alert_seconds, recharge: r.recharge_seconds,
    cap: r.recharge_above_start ? t("may go above the start") : t("never above the start"),
    cards: r.alerts, up: r.alerts_face_up });
}

function buildKaboomForm(k) {
  if (KABOOM || !k) return;
  KABOOM = k;
  $("#game").querySelector("option[value=kaboom]").disabled = !k.available;
  if (!k.available) return;
  $("#kpenguins").replaceChildren(...k.colours.map((c) => {
    const box = el("label", { class: "kpenguin", dataset: { colour: c } },
      el("input", { type: "checkbox", class: "kplays" }), el("span"), el("input", { type: "text", class: "kname" }));
    box.style.background = PENGUIN_CSS[c];
    box.style.color = PENGUIN_INK[c] || "#fff";
    return box;
  }));
  $("#kdifficulty").replaceChildren(...k.difficulties.map((d) => el("option", { value: d })));
  $("#kmission").replaceChildren(...k.missions.map((m) => el("option", { value: String(m.number) })),
    el("option", { value: "custom" }));
  // The custom mission's numbers: fields with the engine's limits, starting from the file's values.
  $("#kcustom").replaceChildren(...Object.entries(k.custom).filter(([name]) => name !== "name").map(([name, v]) => {
    const input = typeof v === "boolean"
      ? el("select", { id: `kc_${name}` }, el("option", { value: "false" }), el("option", { value: "true" }))
      : el("input", { id: `kc_${name}`, type: "number", min: k.limits[name][0], max: k.limits[name][1], step: 1 });
    input.value = String(v);
    input.addEventListener("input", kaboomPreview);
    return el("label", { dataset: { custom: name } }, el("span"), input);
  }));
  const d = k.defaults || {};
  if (d.difficulty) $("#kdifficulty").value = d.difficulty;
  if (d.mission !== undefined) $("#kmission").value = String(d.mission);
  for (const sel of [$("#kdifficulty"), $("#kmission")]) sel.addEventListener("change", kaboomPreview);
  wordKaboomForm();
}

// The Kaboom set-up's words in the page's language (again when it changes).
function wordKaboomForm() {
  if (!KABOOM || !KABOOM.available) return;
  for (const box of $$("#kpenguins .kpenguin")) {
    const c = box.dataset.colour;
    $(".kplays", box).setAttribute("aria-label", t("{colour} penguin plays", { colour: colourName(c) }));
    $("span", box).textContent = colourName(c);
    $(".kname", box).placeholder = t("name (optional)");
    $(".kname", box).setAttribute("aria-label", t("name"));
  }
  for (const o of $("#kdifficulty").options) {
    o.textContent = { easy: t("easy"), medium: t("medium"), advanced: t("advanced") }[o.value] || o.value;
  }
  for (const o of $("#kmission").options) {
    o.textContent = o.value === "custom" ? t("Custom mission") : t("Mission {number}", { number: o.value });
  }
  for (const label of $$("#kcustom label")) {
    label.title = t(KABOOM.words[label.dataset.custom]);
    $("span", label).textContent = label.title;
    for (const o of $("select", label)?.options || []) o.textContent = o.value === "true" ? t("Yes") : t("No");
  }
  kaboomPreview();
}

function kaboomCustom() {
  const out = {};
  for (const [name, v] of Object.entries(KABOOM.custom)) {
    if (name === "name") continue;
    const e = $(`#kc_${name}`);
    out[name] = typeof v === "boolean" ? e.value === "true" : Number(e.value);
  }
  return out;
}

function kaboomPreview() {
  const mission = $("#kmission").value;
  $("#kcustom").classList.toggle("hidden", mission !== "custom");
  const m = KABOOM.missions.find((x) => String(x.number) === mission);
  $("#kpreview").textContent = kaboomNumbers(m ? m.rules[$("#kdifficulty").value] : kaboomCustom());
}

function kaboomBody() {
  const players = $$("#kpenguins .kpenguin").filter((b) => $(".kplays", b).checked).map((b) => {
    const name = $(".kname", b).value.trim();
    return name ? { colour: b.dataset.colour, name } : b.dataset.colour;
  });
  const mission = $("#kmission").value;
  const body = { mode: "kaboom", players, difficulty: $("#kdifficulty").value,
    mission: mission === "custom" ? "custom" : Number(mission) };
  if (mission === "custom") body.custom = kaboomCustom();
  return body;
}

function gameChanged() {
  const kaboom = $("#game").value === "kaboom";
  $(".airlines-setup").classList.toggle("hidden", kaboom);
  $(".kaboom-setup").classList.toggle("hidden", !kaboom);
}

function showKaboom(s) {
  clocks.update(s);
  const phase = { setup: t("waiting for the start"), playing: t("playing"), paused: t("paused"),
    closing: t("closing: every finger on its colour") }[s.phase] || s.phase;
  $("#phase").textContent = s.finished ? outcomeTitle(s) : `${phase}${kaboomBanner(s) ? ` · ${kaboomBanner(s)}` : ""}`;
  $("#whose").textContent = `· ${missionTitle(s)}${s.active && !s.finished ? ` · ${playerName(s, s.active)}` : ""}`;
  const a = s.alerts || {};
  const cards = t("{down} face down, {up} face up, {waiting} waiting",
    { down: a.remaining ?? 0, up: a.face_up ?? 0, waiting: a.waiting ?? 0 });
  $("#counts").textContent = t("Alert cards") + ": " + cards;
}

function tickKaboom() {
  const s = state;
  $("#left").textContent = s.active && !s.finished ? fmtClock(clocks.left(s.active)) : "";
  const each = (s.players || []).map((p) => `${playerName(s, p.colour)} ${fmtClock(clocks.left(p.colour))}`).join(" · ");
  const label = t("Clocks");
  $("#scoreline").textContent = each ? `${label}: ${each}` : "";
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
    buildKaboomForm(st.kaboom);
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
    error(e.status === 429 ? t("Too many wrong PINs: wait a minute.") : e.status === 403 ? t("Wrong PIN.") : e.message);
  }
});

$("#setup").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  let body = {};
  if ($("#game").value === "kaboom") body = kaboomBody();
  else {
    for (const st of inForm("form")) {
      const v = st.kind === "teams" ? teamsFromForm() : readField(st, "");
      if (v !== undefined) body[st.name] = v;
    }
  }
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
    if (b.dataset.action === "end") { showEndChoices(state); $("#enddialog").showModal(); return; }
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
  const s = state;
  if (hasMatch(s) && isKaboom(s)) { tickKaboom(); requestAnimationFrame(tick); return; }
  const left = clock.now();
  $("#left").textContent = !hasMatch(s) || s.finished ? ""
    : left === null || left === undefined ? t("Turns of {seconds} s.", { seconds: s.turn_seconds })
    : s.phase === "paused" ? t("{left} s left of {seconds} s (stopped).", { left: fmtSeconds(left), seconds: s.turn_seconds })
    : t("{left} s left of {seconds} s.", { left: fmtSeconds(left), seconds: s.turn_seconds });
  requestAnimationFrame(tick);
}

// Another language chosen (here or in another tab): the forms built once are worded again.
onLanguage(() => {
  if (SETTINGS) wordSettings();
  wordKaboomForm();
  for (const row of $$("#teams .team")) wordTeamRow(row);
  if (state) show(state);
  if (!$("#app").classList.contains("hidden")) refreshStatus(); // the link's words
});

connect("board", {}, {
  status: liveBadge(),
  state: (m) => {
    show(m.state);
    // The join code changes with the match, and at its end (the next match's, made ahead).
    const key = `${m.state.match_id}/${m.state.status}`;
    if (key !== show.codeFor) { show.codeFor = key; refreshCode(); }
  },
  event: (m) => logEvent(m.event),
});
refreshStatus();
// Keep the link status fresh while signed in (the login form is left alone meanwhile).
setInterval(() => { if (!$("#app").classList.contains("hidden")) refreshStatus(); }, 3000);
requestAnimationFrame(tick);
