// Penguin Airlines in the educators' debrief: the match's result, points per turn, the
// instruction types and the controls that caused mistakes, each as a plot and a table. The
// game's part of /debrief (debrief.js): show(d, page), listing(m, page).
import { $, el, t, tn, matchEndText } from "/static/common.js";
import { info } from "/static/games/index.js";

const GAME = "airlines";
const modeName = (mode) => ((info(GAME).names || {}).mode || {})[mode] || mode;

// The tables' columns as shown (the CSV files have every column: /api/admin/debrief.csv).
const COLUMNS = {
  turns: ["round", "team", "tower", "cards", "mistakes", "flips", "ended_by", "points", "seconds", "mean_seconds_per_card"],
  card_kinds: ["kind", "dealt", "completed", "mistakes", "mistakes_per_card", "mean_seconds"],
  controls: ["control", "mistakes", "card_kinds", "teams"],
};
const HEADS = () => ({
  team: t("Team"), round: t("Round"), tower: t("Tower"), cards: t("Cards done"), mistakes: t("Mistakes"), flips: t("Timer flips"),
  ended_by: t("Ended by"), points: t("Points"), seconds: t("Seconds"), mean_seconds_per_card: t("Mean s per card"),
  kind: t("Instruction type"), dealt: t("Dealt"), completed: t("Completed"), mean_seconds: t("Mean s per card"),
  mistakes_per_card: t("Mistakes per card"), control: t("Control"), card_kinds: t("On instruction types"), teams: t("Teams"),
});
// How a turn ended, in words; the counts are the engine's (in the debrief it sends).
const ended = (d) => ({ time: t("time ran out"), five_cards: tn("{n} card done", "{n} cards done", d.cards_per_turn),
  mistakes: tn("{n} mistake", "{n} mistakes", d.mistakes_per_turn), ended: t("not scored: the match was ended"),
  abandoned: t("not scored: the match was abandoned") });
// An instruction type's name ("sequence"), as the cards print it, in the page's language.
const kindName = (kind) => ({ simple: t("simple"), sequence: t("sequence"), coordinates: t("coordinates"),
  activation: t("activation") })[kind] || kind;
const KIND_ORDER = ["simple", "sequence", "coordinates", "activation"];
const kindSort = (a, b) => ((KIND_ORDER.indexOf(a.kind) + 1 || 99) - (KIND_ORDER.indexOf(b.kind) + 1 || 99)) || a.kind.localeCompare(b.kind);

function resultLine(d) {
  const s = d.settings || {};
  if (d.status === "abandoned") return t("Abandoned: the match does not count");
  if (!d.finished) return t("In play: round {round}", { round: d.round });
  if (d.ended_by === "ended" && s.mode !== "cooperative") {
    const w = d.winner || [];
    return w.length > 1 ? t("Ended early, shared win: {teams}", { teams: w.join(" & ") })
      : w.length ? t("Ended early, winner: {team}", { team: w[0] }) : t("Ended early, no winner");
  }
  // The engine's tier and landing text are English; the catalog has them (panel/games/airlines/engine/cooperative.py).
  if (s.mode === "cooperative") return d.tier ? t("Landed: {tier}", { tier: t(d.tier) }) : t("Landed");
  const w = d.winner || [];
  if (w.length > 1) return t("Shared win: {teams}", { teams: w.join(" & ") });
  return w.length ? t("Winner: {team}", { team: w[0] }) : t("Over");
}

// A stored match in the picker: its mode, its teams, its status.
export const listing = (m, page) => [modeName(m.mode), m.teams.join(" – "), page.statusName(m.status)];

export function show(d, page) {
  const { svg, vbars, hbars, figure, teamDefs } = page;
  const s = d.settings || {};
  const teams = (s.teams || []).map((t) => t.name);
  const title = t("match {number}", { number: d.match_id });
  $("#title").textContent = "· " + title;
  document.title = t("Debrief") + " · " + title;
  $("#outcome").textContent = resultLine(d);
  $("#meta").textContent = [
    info(GAME).title, modeName(s.mode),
    d.created ? d.created.replace("T", " ").slice(0, 16) : null,
    t("{seconds} s turns", { seconds: s.turn_seconds }), tn("{n} time counter", "{n} time counters", s.time_counters),
    s.mode === "cooperative" ? null : tn("first to {n} point", "first to {n} points", s.target_points),
    s.expansion ? t("{side} side + expansion", { side: t(s.side) }) : t("{side} side", { side: t(s.side) }),
    t("seed {seed}", { seed: s.seed ?? "–" }),
  ].filter(Boolean).join(" · ");
  $("#outcometext").textContent = s.mode === "cooperative" && d.outcome ? t(d.outcome) : "";
  $("#endtext").textContent = d.finished ? matchEndText(d) || "" : "";
  const ranked = Object.entries(d.scores || {}).sort((a, b) => b[1] - a[1]);
  $("#scores tbody").replaceChildren(...ranked.map(([t, p]) => el("tr", { dataset: { team: t } },
    el("td", { text: t }), el("td", { class: "num", text: String(p) }))));

  // Points per turn, per team, grouped by round.
  const turns = d.tables.turns;
  const index = new Map(teams.map((t, i) => [t, i]));
  const rounds = [...new Set(turns.map((t) => t.round))];
  const defs = teamDefs("pts", teams);
  const groups = rounds.map((r) => ({
    label: t("Round {round}", { round: r }),
    bars: turns.map((t, i) => ({ ...t, n: i + 1 })).filter((t) => t.round === r).map((t) => ({
      label: t.team, value: t.points, text: tn("{n} pt", "{n} pts", t.points),
      fill: `url(#pts-t${index.get(t.team) ?? 0})`,
      data: { turn: t.n, team: t.team, round: t.round, points: t.points },
    })),
  }));
  const legend = teams.length > 1 ? el("ul", { class: "legend" }, teams.map((t, i) => el("li", {},
    svg("svg", { viewBox: "0 0 24 24", width: 24, height: 24, "aria-hidden": "true" },
      teamDefs(`lg${i}`, teams), svg("rect", { width: 24, height: 24, fill: `url(#lg${i}-t${i})`, stroke: "#111" })), t))) : null;
  figure("fig-points", t("Points scored in each turn; each bar is one turn, named by its team, grouped by round."),
    turns.length ? vbars({ id: "points", title: t("Points per turn"), unit: t("points"), groups, legend: { defs }, integer: true }) : null,
    t("No turn has ended yet."));
  if (legend) $("#fig-points").prepend(legend);

  // Instruction types: mean seconds per completed card, and mistakes.
  const kinds = [...d.tables.card_kinds].sort(kindSort);
  figure("fig-seconds", t("Mean seconds to complete a card of each instruction type (– : none completed)."),
    kinds.length ? vbars({ id: "seconds", title: t("Mean seconds per card by instruction type"), unit: t("seconds"),
      groups: [{ label: null, bars: kinds.map((k) => ({ label: kindName(k.kind), value: k.mean_seconds ?? 0,
        text: k.mean_seconds === null ? "–" : `${k.mean_seconds} s`, fill: "#0072B2",
        data: { kind: k.kind, seconds: k.mean_seconds ?? "" } })) }] }) : null,
    t("No card was dealt."));
  figure("fig-kind-mistakes", t("Mistakes made on each instruction type (per card dealt in brackets)."),
    kinds.length ? hbars({ id: "kind-mistakes", title: t("Mistakes by instruction type"), unit: t("mistakes"), fill: "#D55E00",
      rows: kinds.map((k) => ({ label: kindName(k.kind), value: k.mistakes,
        text: k.mistakes_per_card !== null ? t("{n} ({per} per card)", { n: k.mistakes, per: k.mistakes_per_card }) : String(k.mistakes),
        data: { kind: k.kind, mistakes: k.mistakes } })) }) : null,
    t("No card was dealt."));
  const controls = d.tables.controls;
  figure("fig-controls", t("The controls pressed or moved by mistake, most often first."),
    controls.length ? hbars({ id: "controls", title: t("Controls that caused mistakes"), unit: t("mistakes"), fill: "#CC79A7",
      rows: controls.map((c) => ({ label: c.control, value: c.mistakes, text: `${c.mistakes} · ${c.teams}`,
        data: { control: c.control_id, mistakes: c.mistakes } })) }) : null,
    t("No mistakes: nothing to show."));

  const ENDED = ended(d);
  const table = (name, rows, empty) => page.table(name, rows, empty, { columns: COLUMNS[name], heads: HEADS(),
    cell: (c, v) => (c === "ended_by" ? ENDED[v] || v : c === "kind" ? kindName(v) : v) });
  table("turns", turns, t("No turn has ended yet."));
  table("card_kinds", kinds, t("No card was dealt."));
  table("controls", controls, t("No mistakes."));
}
