// Shared by every page: the live socket (reconnects by itself), JSON fetch helpers that
// carry the admin CSRF token, the texts in the cockpit's language, and small DOM helpers.
// No framework, no build step.

export const $ = (sel, root = document) => root.querySelector(sel);
export const $$ = (sel, root = document) => Array.from(root.querySelectorAll(sel));

// el("div", {class: "x", dataset: {a: 1}, onclick: fn}, child, "text", ...)
export function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") e.className = v;
    else if (k === "dataset") Object.assign(e.dataset, v);
    else if (k.startsWith("on") && typeof v === "function") e.addEventListener(k.slice(2), v);
    else if (k === "text") e.textContent = v;
    else e.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

// Colours of the panel, with a text name next to them everywhere (colour-blind players).
export const COLOURS = {
  white: "#f7f7f4", black: "#23232a", red: "#d7263d", blue: "#1f5fd0", yellow: "#f5c518",
  green: "#2c9a45", gray: "#8b9099", grey: "#8b9099", orange: "#f08a24",
};
export const INK = { white: "#222", yellow: "#222", orange: "#222" };
export const colourCss = (name) => COLOURS[name] || "#bbb";
export const inkCss = (name) => INK[name] || "#fff";

export function fmtSeconds(s) {
  if (s === null || s === undefined) return "–";
  s = Math.max(0, s);
  return s >= 10 ? String(Math.ceil(s)) : s.toFixed(1);
}

// ---------------------------------------------------------------- HTTP

export class ApiError extends Error {
  // signedOut: the server's own flag (no session, or its token replaced), in any language.
  constructor(status, message, signedOut = false) { super(message); this.status = status; this.signedOut = signedOut; }
}

// Kept where the session cookie is: shared by every tab of this origin. (In sessionStorage a
// second game-master tab looked signed in, by its cookie, but every action failed for want of
// the token.) The latest sign-in replaces both the cookie and the token for all tabs.
const CSRF_KEY = "pp_csrf";
export const csrf = {
  get: () => localStorage.getItem(CSRF_KEY),
  set: (t) => localStorage.setItem(CSRF_KEY, t),
  clear: () => localStorage.removeItem(CSRF_KEY),
};

// JSON in, JSON out; every error becomes an ApiError carrying the server's one line.
export async function api(path, { method = "GET", body, admin = false } = {}) {
  const headers = { Accept: "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (admin && csrf.get()) headers["X-CSRF-Token"] = csrf.get();
  let res;
  try {
    res = await fetch(path, {
      method, headers, credentials: "same-origin",
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (e) {
    throw new ApiError(0, t("the cockpit cannot be reached (network)"));
  }
  let data = null;
  try { data = await res.json(); } catch (e) { data = null; }
  if (!res.ok) {
    throw new ApiError(res.status, (data && data.error) || `${res.status} ${res.statusText}`, Boolean(data && data.signed_out));
  }
  return data;
}

export const post = (path, body, opts = {}) => api(path, { method: "POST", body, ...opts });

// ---------------------------------------------------------------- language

// Texts are written in English where they are used: t("Press START to play"),
// t("Next: {team}", { team }), tn("{n} point", "{n} points", n), tp("context", "text"),
// and data-t on an HTML element whose text is a message (data-t-attrs="title aria-label"
// for attributes). The translations are the cockpit's gettext catalog in the language the
// game master chose on /admin (compiled .mo, served as JSON by /api/i18n; see the guide's
// docs/languages.md); a text the catalog lacks shows in English.
let catalog = { language: "en", plural: "n != 1", messages: {} };
let pluralIndex = (n) => (n !== 1 ? 1 : 0);
const originals = new WeakMap(); // element -> its English text and attributes, as written
const languageListeners = [];

const fill = (text, vars) =>
  vars ? text.replace(/\{(\w+)\}/g, (m, k) => (k in vars ? String(vars[k]) : m)) : text;
const found = (s) => (typeof s === "string" && s ? s : null);

export const t = (msgid, vars) => fill(found(catalog.messages[msgid]) || msgid, vars);
export const tp = (context, msgid, vars) => fill(found(catalog.messages[`${context}\u0004${msgid}`]) || msgid, vars);
export function tn(singular, plural, n, vars) {
  const forms = catalog.messages[singular];
  const text = (Array.isArray(forms) && found(forms[pluralIndex(n)])) || (n === 1 ? singular : plural);
  return fill(text, { n, ...vars });
}
export const language = () => catalog.language;

// The catalog's plural rule is a C expression of n (checked by the service to hold nothing else).
function pluralRule(expr) {
  try { const f = new Function("n", `return Number(${expr});`); f(1); return f; }
  catch (e) { return (n) => (n !== 1 ? 1 : 0); }
}

// The page's own marked texts, in the catalog's language.
export function translatePage(root = document) {
  for (const e of root.querySelectorAll("[data-t], [data-t-attrs]")) {
    let o = originals.get(e);
    if (!o) {
      o = { attrs: {} };
      if (e.hasAttribute("data-t")) o.text = e.textContent.replace(/\s+/g, " ").trim();
      for (const a of (e.dataset.tAttrs || "").split(/\s+/).filter(Boolean)) o.attrs[a] = e.getAttribute(a) || "";
      originals.set(e, o);
    }
    if (o.text) e.textContent = t(o.text);
    for (const [a, v] of Object.entries(o.attrs)) if (v) e.setAttribute(a, t(v));
  }
}

// Loads a language's catalog (the cockpit's when none is named) and shows the page in it;
// then tells the page (onLanguage) so it can show its own texts again.
export async function loadLanguage(lang) {
  try {
    catalog = await api(`/api/i18n${lang ? `?lang=${encodeURIComponent(lang)}` : ""}`);
    pluralIndex = pluralRule(catalog.plural);
  } catch (e) { /* the page stays in the language it has: every text still reads */ }
  document.documentElement.lang = catalog.language;
  translatePage();
  // In order, each awaited: words a page fetches in the new language (the games') are in
  // before the listeners after it word the page again.
  for (const fn of languageListeners) await fn(catalog.language);
}
export const onLanguage = (fn) => languageListeners.push(fn);

// Every page starts in the cockpit's language: importers of this module wait for it.
await loadLanguage();

// ---------------------------------------------------------------- live socket

// Opens /ws?view=...; reconnects with backoff; calls handlers[msg.type](msg).
// handlers.status(kind, ok) is told about the connection ("live" or "reconnecting"); handlers.closed(code) may return
// false to stop reconnecting (e.g. a tower socket refused with 4403). A "language" message
// (the game master chose another) loads that catalog and shows the last state again.
export function connect(view, params, handlers) {
  let ws = null;
  let lastState = null; // shown again in a new language
  let shownIn = null; // the language lastState was shown in
  let delay = 500;
  let stopped = false;
  let timer = null;
  const status = handlers.status || (() => {});

  function open() {
    const q = new URLSearchParams({ view, ...(params || {}) });
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    ws = new WebSocket(`${proto}//${location.host}/ws?${q}`);
    ws.onopen = () => { delay = 500; status("live", true); };
    ws.onmessage = async (ev) => {
      let msg;
      try { msg = JSON.parse(ev.data); } catch (e) { return; }
      if (msg.type === "language") {
        if (msg.language !== catalog.language) await loadLanguage(msg.language);
        if (lastState && handlers.state && shownIn !== catalog.language) {
          shownIn = catalog.language;
          handlers.state(lastState);
        }
        return;
      }
      if (msg.type === "state") { lastState = msg; shownIn = catalog.language; }
      const h = handlers[msg.type];
      if (h) h(msg);
    };
    ws.onclose = (ev) => {
      if (stopped) return;
      if (handlers.closed && handlers.closed(ev.code) === false) { stopped = true; return; }
      status("reconnecting", false);
      timer = setTimeout(open, delay);
      delay = Math.min(delay * 2, 8000);
    };
    ws.onerror = () => { /* onclose follows and reconnects */ };
  }
  open();
  return {
    close() { stopped = true; clearTimeout(timer); if (ws) ws.close(); },
    get socket() { return ws; },
  };
}

// A small badge showing whether the live link is up: in the page's own #live (placed where it
// covers nothing), else in a corner. Told "live" or "reconnecting" by connect(); worded in
// the page's language, again when the language changes.
export function liveBadge() {
  let b = $("#live");
  if (!b) { b = el("div", { id: "live", class: "live float", role: "status" }); document.body.append(b); }
  let last = null;
  // Down, it says so in words a player understands (it was a tiny corner dot before).
  const show = (kind, ok) => {
    last = [kind, ok];
    const why = t("reconnecting…"); // on its own: a t() inside another's arguments never reaches the catalog
    b.textContent = ok ? t("live") : t("Connection to the cockpit lost: {why}", { why });
    b.classList.toggle("down", !ok);
  };
  onLanguage(() => { if (last) show(...last); });
  return show;
}

// Interpolates the turn timer between pushes, so it drains smoothly on screen.
export class Clock {
  constructor() { this.left = null; this.at = 0; this.running = false; this.total = 30; }
  update(state) {
    this.left = state.time_left;
    this.total = state.turn_seconds || this.total;
    this.at = performance.now();
    this.running = state.phase === "in_turn";
  }
  now() {
    if (this.left === null || this.left === undefined) return null;
    if (!this.running) return this.left;
    return Math.max(0, this.left - (performance.now() - this.at) / 1000);
  }
}

// Whose: "Otters'" and "Red team's" in English; "de Otters" in Spanish, where the owner
// follows the thing owned. A sentence places it: t("{whose} turn", { whose: possessive(team) })
// reads "Otters' turn" and "Turno de Otters".
export const possessive = (name) => (/s$/i.test(name)
  // Translators: the owner of what follows or precedes it ("Otters' turn": "turno de Otters").
  ? tp("whose", "{name}'", { name })
  // Translators: the owner of what follows or precedes it ("Red team's turn": "turno de Red team").
  : tp("whose", "{name}'s", { name }));
export const plural = (n, one, many) => `${n} ${n === 1 ? one : many}`;
export const cardsText = (n) => (n ? tn("{n} card", "{n} cards", n) : t("no card"));

// A finished turn's result as the room reads it: "Red team: 5 cards + 4 time counters = 9
// points". The engine says which points were a bonus (rule 22); the page only adds words.
const doneIn = (turn) => (Array.isArray(turn.completed) ? turn.completed.length : turn.completed || 0);
export function turnResultText(turn) {
  const cards = cardsText(doneIn(turn)), points = turn.points || 0;
  return turn.bonus
    ? tn("{team}: {cards} + {bonus} time counter = {n} points", "{team}: {cards} + {bonus} time counters = {n} points",
      turn.bonus, { team: turn.team, cards, bonus: turn.bonus, n: points })
    : tn("{team}: {cards} = {n} point", "{team}: {cards} = {n} points", points, { team: turn.team, cards });
}

// Why a turn ended, in words.
export function endedText(turn) {
  if (turn.reason === "time") return t("time ran out");
  if (turn.reason === "five_cards") return t("{cards} done", { cards: cardsText(doneIn(turn)) });
  if (turn.reason === "mistakes") return tn("{n} mistake", "{n} mistakes", turn.mistakes || 0);
  return turn.reason || "";
}

// How a match that is over ended, in a sentence (null when it was played to its end): who
// played how many turns, and what the winner was decided on (rule 25).
export function matchEndText(s) {
  const played = Object.entries(s.turns_played || {});
  if (s.ended_by === "abandoned") {
    return s.unplayed ? t("No result: the match was ended before any turn was scored, so it does not count.")
      : t("No result: the game master abandoned this match.");
  }
  if (s.ended_by !== "ended") return null;
  const counts = [...new Set(played.map(([, n]) => n))];
  const equal = counts.length <= 1;
  const u = s.unscored;
  const said = [u ? t("Ended by the game master during round {round}: {whose} turn in progress ({cards} done) was not scored.",
    { round: u.round, whose: possessive(u.team), cards: cardsText(u.completed) })
    : equal ? t("Ended by the game master at the end of round {round}: every team played as many turns.", { round: counts[0] || s.round })
      : t("Ended by the game master during round {round}.", { round: s.round })];
  if (equal && u && played.length > 1) said.push(tn("Every team played {n} turn.", "Every team played {n} turns.", counts[0] || 0));
  if (!equal) {
    said.push(t("Turns played: {turns}.", { turns: played.map(([team, n]) => `${team} ${n}`).join(", ") }));
    const d = s.decided;
    if (d && d.turns) {
      said.push(t("The winner is decided on the turns every team played ({n} each): {scores}.",
        { n: d.turns, scores: Object.entries(d.scores).map(([team, p]) => `${team} ${p}`).join(", ") }));
    } else {
      said.push(t("Nobody wins: not every team has played a turn."));
    }
  }
  return said.join(" ");
}

// What starts the next turn: START on the panel (the game master's page can too).
export function nextTurnText(s) {
  return t("{team} plays next: press START on the panel to start the turn.", { team: s.team });
}

// The card a challenge is called on: the one in play, or a completed card by its number.
export const challengedCard = (card) => (card === "current" ? t("the card in play")
  : t("completed card {number}", { number: Number(card) + 1 }));
// Who called a challenge: a team, or the game master.
export const challenger = (team) => team ?? t("the game master");

// An upheld challenge: the cards discarded, and the time counters the crew keeps (rule 20),
// said so that nobody hands them back.
export function rulingUpheldText(e) {
  const n = e.counters_held;
  const held = n === undefined ? "" : " " + (n ? tn("The crew keeps its {n} time counter.",
    "The crew keeps its {n} time counters.", n) : t("The crew holds no time counter."));
  return t("Challenge upheld: the cards are discarded.") + held;
}

export function describeEvent(e) {
  switch (e.type) {
    case "turn_started": return e.team ? t("{whose} turn started", { whose: possessive(e.team) }) : t("A team's turn started");
    case "card_drawn": return t("New card (card {number} of the turn)", { number: e.index ?? "" });
    case "mistake": return e.name ? t("Mistake: {name}", { name: e.name }) : t("Mistake");
    case "card_completed": return t("Card done ({cards} this turn)", { cards: cardsText(e.completed ?? 0) });
    case "counter_granted": return t("The crew took a time counter");
    case "counter_spent": return t("The crew spent a time counter: the timer is full again");
    case "challenge": return t("Challenge by {team} on {card}", { team: challenger(e.team), card: challengedCard(e.card) });
    case "challenge_ruled": return e.upheld ? rulingUpheldText(e) : t("Challenge rejected: the card counts");
    case "turn_ended": return t("Turn over ({why}). {result}", { why: endedText(e), result: turnResultText(e) });
    case "round_ended": return t("Round {round} is over", { round: e.round ?? "" });
    case "game_ended": return e.reason === "abandoned" && !e.unplayed ? t("The match was abandoned")
      : e.reason === "ended" || e.unplayed ? t("The game master ended the match") : t("The match is over");
    case "paused": return e.reason === "link" ? t("Paused: the panel's link is lost") : e.reason === "challenge" ? t("Paused for the challenge") : t("Paused");
    case "resumed": return e.reason === "link" ? t("Resumed: the panel is back") : t("Resumed");
    case "card_skipped": return t("Card skipped (nothing to do)");
    case "deck_reshuffled": return t("Deck reshuffled");
    default: return e.type;
  }
}

// Why a turn is paused, in words for the room; null when it is not paused. A lost link
// says so (the timer waits by itself until the cockpit's panel is heard again).
// The control the turn's first mistake left stuck, said with what the crew does about it (rule 16).
export const stuckText = (s) => (s.stuck_name
  ? t("Stuck finger: keep a finger on {name} until the turn ends", { name: s.stuck_name }) : "");

export function pauseText(s) {
  if (!s || s.phase !== "paused") return null;
  const why = s.paused_for || [];
  if (why.includes("link") || (s.link && s.link.connected === false)) {
    return t("Panel link lost: the timer waits until the panel is reconnected");
  }
  if (s.challenge) return null; // each page words the challenge itself
  if (why.includes("restart")) return t("Paused after a restart: the game master resumes");
  return t("Paused by the game master");
}
// Whether the pause is a lost link (pages show it as a loss, not a pause).
export const linkLost = (s) => !!s && s.phase === "paused"
  && ((s.paused_for || []).includes("link") || (!!s.link && s.link.connected === false));

// The parts of a page that belong to one game (data-game="<its id>") shown while `scope`
// shows that game, the other games' parts hidden (.othergame); a scope inside it
// (data-playing) shows its own game.
export function showGame(scope, game) {
  scope.dataset.playing = game || "";
  for (const e of scope.querySelectorAll("[data-game]")) {
    if (e.closest("[data-playing]") === scope) e.classList.toggle("othergame", e.dataset.game !== game);
  }
}

// A match is set up (the service reports phase "idle" and match_id null before the first one).
export const hasMatch = (s) => !!(s && s.match_id !== null && s.match_id !== undefined && s.phase && s.phase !== "idle");
