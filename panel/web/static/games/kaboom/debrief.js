// Penguin Kaboom in the educators' debrief: the mission's outcome, where each penguin's time
// went and how fast each alert was reported flipped, as plots and tables. The game's part
// of /debrief (debrief.js): show(d, page), listing(m, page).
import { $, t } from "/static/common.js";
import { info } from "/static/games/index.js";
import { GAME, colourName, difficultyName, isColour, outcomeName, outcomeText, outcomeTitle }
  from "/static/games/kaboom/common.js";

// The tables' columns as shown (the CSV files have every column: /api/admin/debrief.csv).
const COLUMNS = {
  players: ["name", "turns", "seconds_played", "passes", "recharges", "seconds_recharged", "closest_to_zero", "time_left"],
  alerts: ["number", "sounded_at", "reported_after", "face_up_after"],
};
const HEADS = () => ({
  name: t("Player"), turns: t("Turns"), seconds_played: t("Seconds played"), passes: t("Passes"),
  recharges: t("Recharges received"), seconds_recharged: t("Seconds recharged"),
  closest_to_zero: t("Closest to zero (s)"), time_left: t("Time left at the end (s)"),
  number: t("Alert"), sounded_at: t("Sounded at (s)"), reported_after: t("Reported flipped after (s)"),
  face_up_after: t("Cards face up then"),
});

// A stored mission in the picker: the game, who played (a penguin without a name by its
// colour), and how it came out (accomplished, failed, abandoned) once over.
export const listing = (m, page) => [info(GAME).title, m.teams.map((x) => (isColour(x) ? colourName(x) : x)).join(" – "),
  outcomeName(m.outcome) || page.statusName(m.status)];

export function show(d, page) {
  const { hbars, figure } = page;
  const s = d.settings || {};
  $("#title").textContent = "· " + t("mission") + " " + d.match_id;
  document.title = t("Debrief") + " · " + t("mission") + " " + d.match_id;
  const state = { ...d, players: (s.players || []) };
  $("#outcome").textContent = d.finished ? outcomeTitle(d) : t("In play");
  const rules = s.rules || {};
  $("#meta").textContent = [
    info(GAME).title, d.created ? d.created.replace("T", " ").slice(0, 16) : null,
    s.mission === "custom" ? t("Custom mission") : t("Mission {number}", { number: s.mission }),
    s.mission === "custom" ? null : difficultyName(s.difficulty),
    t("{seconds} s each", { seconds: rules.time_per_player }), t("an alert every {seconds} s", { seconds: rules.alert_seconds }),
    t("seed {seed}", { seed: s.seed ?? "–" }),
  ].filter(Boolean).join(" · ");
  $("#outcometext").textContent = d.finished ? outcomeText(state) : "";
  $("#endtext").textContent = ""; // an Airlines match's end (rule 25): none in a mission
  const penguins = info(GAME).penguins || {};
  const players = d.tables.players.map((p) => ({ ...p, name: p.name || t("{colour} penguin", { colour: colourName(p.colour) }) }));
  const bar = (p, value, text) => ({ label: p.name, value, text, fill: penguins[p.colour]?.css,
    data: { colour: p.colour, value } });
  figure("fig-kplayed", t("Seconds each player's clock ran (their turns), with the number of turns."),
    players.length ? hbars({ id: "kplayed", title: t("Seconds played"), unit: t("seconds"), fill: "#0072B2",
      rows: players.map((p) => bar(p, p.seconds_played, `${p.seconds_played} s · ${p.turns}×`)) }) : null,
    t("The mission did not start."));
  figure("fig-kclosest", t("How close each clock came to zero: the fewest seconds it ever held."),
    players.length ? hbars({ id: "kclosest", title: t("Closest to zero"), unit: t("seconds"), fill: "#D55E00",
      rows: players.map((p) => bar(p, p.closest_to_zero, `${p.closest_to_zero} s`)) }) : null,
    t("The mission did not start."));
  const table = (name, rows, empty) => page.table(name, rows, empty, { columns: COLUMNS[name], heads: HEADS() });
  table("players", players, t("The mission did not start."));
  table("alerts", d.tables.alerts, t("No alert sounded."));
}
