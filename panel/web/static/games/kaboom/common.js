// Penguin Kaboom on the pages: the penguins' names and colours (the service's, GET
// /api/games), what a mission's events and results say, and each player's clock between two
// pushes of the state. Every rule is the engine's (the state's `actions`, `players`,
// `alerts`); this only words and draws it. Shared by the game's parts of each page.
import { colourCss, el, t, tn } from "/static/common.js";
import { info } from "/static/games/index.js";

export const GAME = "kaboom";
const names = (kind) => (info(GAME).names || {})[kind] || {};

export const colourName = (colour) => names("colour")[colour] || colour;
export const isColour = (colour) => colour in names("colour");
export const difficultyName = (difficulty) => names("difficulty")[difficulty] || difficulty;
export const outcomeName = (outcome) => names("outcome")[outcome] || null;

// A node painted in a penguin's colour, with ink that reads on it, and marked penguin-<colour>
// (none: unpainted).
export function paint(node, colour) {
  const p = (info(GAME).penguins || {})[colour];
  node.style.background = p ? p.css : "transparent";
  node.style.color = p ? p.ink : "#fff";
  node.className = node.className.replace(/\bpenguin-\w+/g, "").trim() + (colour ? ` penguin-${colour}` : "");
}

// A player's name: the one the game master gave, else their penguin's colour.
export function playerName(state, colour) {
  const p = (state.players || []).find((x) => x.colour === colour);
  return (p && p.name) || t("{colour} penguin", { colour: colourName(colour) });
}

export function missionTitle(s) {
  const m = s.mission || {};
  const difficulty = difficultyName(m.difficulty);
  const name = m.number === "custom" ? t("Custom mission") : t("Mission {number}", { number: m.number });
  return m.number === "custom" ? name : t("{mission}, {difficulty}", { mission: name, difficulty });
}

// What the players are asked to do now, in one line (null when the clocks just run).
export function banner(s) {
  const a = s.alerts || {};
  if (s.phase === "setup") {
    return s.players && s.players.length
      ? t("Players: press your colour to join · START to begin")
      : t("Press your colour to join, then START");
  }
  if (s.phase === "paused") {
    const why = s.paused_for || [];
    if (why.includes("link")) return t("Panel link lost: the clocks wait until the panel is reconnected");
    if (why.includes("restart")) return t("Paused after a restart: the game master resumes");
    return t("Paused by the game master");
  }
  if (s.phase === "closing") return t("Every player: a finger on your colour!");
  if (a.waiting === 1) return t("ALERT! Flip an alert card face up, then press the alert button");
  if (a.waiting) return t("ALERT! Flip {n} alert cards face up, pressing the alert button for each", { n: a.waiting });
  return null;
}

export function outcomeTitle(s) {
  if (s.outcome === "success") return t("Mission accomplished!");
  if (s.outcome === "abandoned") return t("Mission abandoned");
  return t("Mission failed");
}

export function outcomeText(s) {
  if (s.outcome === "success") return t("Every bomb defused, every penguin on their colour.");
  if (s.outcome === "abandoned") return t("No result: the game master abandoned this mission.");
  if (s.reason === "clock_out") return t("{player}'s clock ran out.", { player: playerName(s, s.failed_colour) });
  return t("The last alert card is face up.");
}

export function describeEvent(e, s) {
  const who = (c) => (s ? playerName(s, c) : colourName(c));
  switch (e.type) {
    case "player_joined": return t("{player} joined", { player: who(e.colour) });
    case "player_left": return t("{player} left", { player: who(e.colour) });
    case "mission_started": return t("Mission started: {player} plays first", { player: who(e.first) });
    case "turn_passed": return e.why === "tie_break"
      ? t("{player} plays (drawn among equal clocks)", { player: who(e.to) })
      : t("{player} plays", { player: who(e.to) });
    case "recharge": return e.capped
      ? t("Recharge: +{seconds} s for {player} (up to the starting time)", { seconds: Math.round(e.seconds), player: who(e.to) })
      : t("Recharge: +{seconds} s for {player}", { seconds: Math.round(e.seconds), player: who(e.to) });
    case "alert": return t("Alert {number}!", { number: e.number });
    case "alert_flipped": return tn("An alert card flipped: {n} left face down", "An alert card flipped: {n} left face down", e.remaining);
    case "alert_deactivated": return t("An alert card turned back face down");
    case "cover_lifted": return t("Mission button: protection off");
    case "cover_lowered": return t("Mission button: protection back on");
    case "mission_confirmed": return t("Mission confirmed: every finger on its colour!");
    case "mission_accomplished": return t("Mission accomplished!");
    case "mission_failed": return t("Mission failed");
    case "mission_abandoned": return t("Mission abandoned");
    case "paused": return t("Paused");
    case "resumed": return t("Resumed");
    default: return e.type;
  }
}

// Each player's clock between pushes of the state: the running one drains.
export class Clocks {
  constructor() { this.players = []; this.at = 0; }
  update(state) { this.players = state.players || []; this.at = performance.now(); }
  left(colour) {
    const p = this.players.find((x) => x.colour === colour);
    if (!p) return null;
    return p.running ? Math.max(0, p.time_left - (performance.now() - this.at) / 1000) : p.time_left;
  }
}

export function fmtClock(s) {
  if (s === null || s === undefined) return "–";
  s = Math.max(0, s);
  if (s < 10) return s.toFixed(1);
  const whole = Math.ceil(s);
  return `${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, "0")}`;
}

// A press the rules refused, said in `node` for a few seconds: the service's reason in the
// players' words ("it is the red penguin's turn"), and which control was pressed.
const SAY_REFUSED_MS = 8000;
export function sayRefused(node, r) {
  const reason = r.reason ? r.reason[0].toUpperCase() + r.reason.slice(1) : "";
  node.replaceChildren(el("b", { class: "kreason", text: reason }),
    ...(r.plain ? [" ", el("span", { class: "kpressed", text: t("({control} pressed)", { control: r.plain }) })] : []));
  node.classList.remove("hidden", "again");
  void node.offsetWidth; // the same refusal twice: seen again
  node.classList.add("again");
  clearTimeout(node.hideTimer);
  node.hideTimer = setTimeout(() => node.classList.add("hidden"), SAY_REFUSED_MS);
}

// The panel's buttons for the mission, each by what it is on the panel (the service's words,
// from the layout), with a swatch of its colour.
export function legendItems(s) {
  return (s.legend || []).map((row) => {
    const chip = el("span", { class: "kchip", "aria-hidden": "true" });
    chip.style.background = colourCss(row.colour);
    return el("li", { dataset: { role: row.role } }, chip, el("b", { text: row.what }), el("span", { text: row.name }));
  });
}

// What START at the panel plays now that the mission is over.
export function nextText(s) {
  const next = s.next_mission;
  if (next === null || next === undefined) return "";
  if (next === "custom") return t("Press START to play the custom mission again");
  if (next === (s.mission || {}).number) return t("Press START to try this mission again");
  return t("Press START for mission {number}", { number: next });
}
