// Penguin Kaboom on the pages: the penguins' colours and names, what a mission's events
// and results say, and each player's clock between two pushes of the state. Every rule is
// the engine's (the state's `actions`, `players`, `alerts`); this only words and draws it.
import { t, tp, tn } from "/static/common.js";

// The lights' own colours (panel/games/kaboom/show.py): a pixel cannot show black,
// so the black penguin is violet on the lights and drawn dark here, with a violet ring.
export const PENGUIN_CSS = {
  red: "#e0203a", blue: "#1f5fd0", white: "#f4f4f0", yellow: "#f5c518", green: "#21a045", black: "#23232a",
};
export const PENGUIN_INK = { white: "#222", yellow: "#222" };

export function colourName(colour) {
  switch (colour) {
    case "red": return tp("penguin", "red");
    case "blue": return tp("penguin", "blue");
    case "white": return tp("penguin", "white");
    case "yellow": return tp("penguin", "yellow");
    case "green": return tp("penguin", "green");
    case "black": return tp("penguin", "black");
    default: return colour;
  }
}

// A player's name: the one the game master gave, else their penguin's colour.
export function playerName(state, colour) {
  const p = (state.players || []).find((x) => x.colour === colour);
  return (p && p.name) || t("{colour} penguin", { colour: colourName(colour) });
}

export const isKaboom = (s) => !!(s && s.game === "kaboom");

export function missionTitle(s) {
  const m = s.mission || {};
  const difficulty = { easy: t("easy"), medium: t("medium"), advanced: t("advanced") }[m.difficulty] || m.difficulty;
  const name = m.number === "custom" ? t("Custom mission") : t("Mission {number}", { number: m.number });
  return m.number === "custom" ? name : t("{mission}, {difficulty}", { mission: name, difficulty });
}

// What the players are asked to do now, in one line (null when the clocks just run).
export function kaboomBanner(s) {
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

export function describeKaboomEvent(e, s) {
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
export class KaboomClocks {
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
