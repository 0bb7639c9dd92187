// The educators' debrief: pick a stored match, show its result, its three tables and plots
// drawn here as inline SVG (no chart library, no build step). Every bar carries its value as
// text and its team's name or pattern, never colour alone; the page prints as an A4 handout.
import { $, el, api, post, csrf, t, tn, matchEndText, loadLanguage } from "/static/common.js";
import { PENGUIN_CSS, colourName, outcomeText, outcomeTitle } from "/static/kaboom.js";

const SVG = "http://www.w3.org/2000/svg";
let current = null; // the debrief shown

function svg(tag, attrs = {}, ...children) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined) continue;
    if (k === "dataset") for (const [dk, dv] of Object.entries(v)) e.dataset[dk] = dv;
    else if (k === "text") e.textContent = v;
    else e.setAttribute(k, v);
  }
  for (const c of children.flat()) if (c) e.append(c);
  return e;
}

function error(msg) {
  $("#error").textContent = msg || "";
  $("#error").classList.toggle("hidden", !msg);
}

// ---------------------------------------------------------------- team styles
// Okabe-Ito colours (told apart with colour-blindness) plus a pattern per team, so two teams
// differ in print on a grey-scale printer and for every viewer.
const TEAM_COLOURS = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#555555"];
const PATTERNS = ["solid", "stripes", "dots", "cross"];

function teamDefs(prefix, teams) {
  return svg("defs", {}, teams.map((_, i) => {
    const colour = TEAM_COLOURS[i % TEAM_COLOURS.length];
    const kind = PATTERNS[i % PATTERNS.length];
    const p = svg("pattern", { id: `${prefix}-t${i}`, width: 12, height: 12, patternUnits: "userSpaceOnUse" },
      svg("rect", { width: 12, height: 12, fill: colour }));
    if (kind === "stripes") p.append(svg("path", { d: "M-3,3 l6,-6 M0,12 l12,-12 M9,15 l6,-6", stroke: "#fff", "stroke-width": 3 }));
    if (kind === "dots") p.append(svg("circle", { cx: 6, cy: 6, r: 2.6, fill: "#fff" }));
    if (kind === "cross") p.append(svg("path", { d: "M0,6 h12 M6,0 v12", stroke: "#fff", "stroke-width": 2.5 }));
    return p;
  }));
}

const shorten = (s, n) => (s.length > n ? s.slice(0, n - 1) + "…" : s);
const MAXLABEL = 16; // letters of a team's name under its bar
const fmt = (v, unit = "") => (v === null || v === undefined ? "–" : `${v}${unit}`);

function niceMax(v) {
  if (v <= 1) return 1;
  const step = Math.pow(10, Math.floor(Math.log10(v)));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * step >= v) return m * step;
  return 10 * step;
}

// ---------------------------------------------------------------- vertical bars, grouped
// groups: [{label, bars: [{label, value, text, fill, data}]}]
function vbars({ id, title, unit, groups, legend, integer = false }) {
  // Each bar as wide as its longest label (20 px type: about 12 px a letter), so that the
  // labels under the bars never run together; a longer one is shortened.
  const longest = Math.max(0, ...groups.flatMap((g) => g.bars.map((b) => Math.min(b.label.length, MAXLABEL))));
  const BAR = Math.max(78, longest * 12 + 8), GAP = 16, GROUPGAP = 46, LEFT = 74, TOP = 50, PLOT_H = 300, FOOT = 92;
  const n = groups.reduce((a, g) => a + g.bars.length, 0);
  const inner = groups.reduce((a, g) => a + g.bars.length * BAR + (g.bars.length - 1) * GAP, 0) + (groups.length - 1) * GROUPGAP;
  const width = Math.max(LEFT + inner + 30, 520);
  const height = TOP + PLOT_H + FOOT;
  const max = niceMax(Math.max(0, ...groups.flatMap((g) => g.bars.map((b) => b.value || 0))));
  const y = (v) => TOP + PLOT_H - (v / max) * PLOT_H;
  const s = svg("svg", { viewBox: `0 0 ${width} ${height}`, width, role: "img", class: "chart",
    "aria-label": title, dataset: { plot: id, bars: n } }, svg("title", { text: title }));
  if (legend) s.append(legend.defs);
  // Grid lines with their values: whole steps for small counts (no "0.3 points"), else fifths.
  const step = integer && max <= 5 ? 1 : max / 5;
  for (let i = 0; i * step <= max + 1e-9; i++) {
    const v = Number((i * step).toFixed(2));
    s.append(svg("line", { x1: LEFT - 6, x2: width - 10, y1: y(v), y2: y(v), class: i ? "grid" : "axis" }),
      svg("text", { x: LEFT - 12, y: y(v) + 7, class: "tick", "text-anchor": "end", text: String(v) }));
  }
  s.append(svg("text", { x: 8, y: 26, class: "unit", text: unit }));
  let x = LEFT + Math.max(0, (width - 30 - LEFT - inner) / 2);
  for (const g of groups) {
    const start = x;
    for (const b of g.bars) {
      const top = y(b.value || 0);
      const h = Math.max(TOP + PLOT_H - top, 0);
      s.append(svg("g", { class: "barg" },
        svg("rect", { x, y: top, width: BAR, height: h, fill: b.fill || "#0072B2", class: "bar",
          stroke: "#111", "stroke-width": h ? 1.5 : 0, dataset: { value: b.value ?? "", ...b.data } },
          svg("title", { text: `${b.label}: ${b.text}` })),
        svg("text", { x: x + BAR / 2, y: top - 10, class: "val", "text-anchor": "middle", text: b.text }),
        svg("text", { x: x + BAR / 2, y: TOP + PLOT_H + 30, class: "blabel", "text-anchor": "middle", text: shorten(b.label, MAXLABEL) })));
      x += BAR + GAP;
    }
    x -= GAP;
    if (g.label) {
      s.append(svg("line", { x1: start, x2: x, y1: TOP + PLOT_H + 48, y2: TOP + PLOT_H + 48, class: "bracket" }),
        svg("text", { x: (start + x) / 2, y: TOP + PLOT_H + 78, class: "glabel", "text-anchor": "middle", text: g.label }));
    }
    x += GROUPGAP;
  }
  return s;
}

// ---------------------------------------------------------------- horizontal bars
// rows: [{label, value, text, data}]
function hbars({ id, title, unit, rows, fill }) {
  const ROW = 50, TOP = 44, BAR_W = 560, CHAR = 12.5;
  const labelW = Math.max(120, Math.ceil(Math.max(...rows.map((r) => r.label.length)) * CHAR) + 24);
  const width = labelW + BAR_W + 190;
  const height = TOP + rows.length * ROW + 16;
  const max = niceMax(Math.max(0, ...rows.map((r) => r.value || 0)));
  const s = svg("svg", { viewBox: `0 0 ${width} ${height}`, width, role: "img", class: "chart",
    "aria-label": title, dataset: { plot: id, bars: rows.length } }, svg("title", { text: title }),
    svg("text", { x: 8, y: 28, class: "unit", text: unit }),
    svg("line", { x1: labelW, x2: labelW, y1: TOP - 6, y2: height - 8, class: "axis" }));
  rows.forEach((r, i) => {
    const top = TOP + i * ROW + 6;
    const w = ((r.value || 0) / max) * BAR_W;
    s.append(svg("g", { class: "barg" },
      svg("text", { x: labelW - 12, y: top + 26, class: "blabel", "text-anchor": "end", text: r.label }),
      svg("rect", { x: labelW, y: top, width: w, height: ROW - 14, fill: r.fill || fill, class: "bar", stroke: "#111",
        "stroke-width": w ? 1.5 : 0, dataset: { value: r.value ?? "", ...r.data } }, svg("title", { text: `${r.label}: ${r.text}` })),
      svg("text", { x: labelW + w + 10, y: top + 26, class: "val", text: r.text })));
  });
  return s;
}

function figure(id, caption, chart, emptyText) {
  const f = $(`#${id}`);
  f.replaceChildren(chart || el("p", { class: "empty", text: emptyText }), el("figcaption", { text: caption }));
}

// ---------------------------------------------------------------- tables
const HEADS = () => ({
  team: t("Team"), round: t("Round"), tower: t("Tower"), cards: t("Cards done"), mistakes: t("Mistakes"), flips: t("Timer flips"),
  ended_by: t("Ended by"), points: t("Points"), seconds: t("Seconds"), mean_seconds_per_card: t("Mean s per card"),
  kind: t("Instruction type"), dealt: t("Dealt"), completed: t("Completed"), mean_seconds: t("Mean s per card"),
  mistakes_per_card: t("Mistakes per card"), control: t("Control"), card_kinds: t("On instruction types"), teams: t("Teams"),
});
const COLUMNS = {
  turns: ["round", "team", "tower", "cards", "mistakes", "flips", "ended_by", "points", "seconds", "mean_seconds_per_card"],
  card_kinds: ["kind", "dealt", "completed", "mistakes", "mistakes_per_card", "mean_seconds"],
  controls: ["control", "mistakes", "card_kinds", "teams"],
  players: ["name", "turns", "seconds_played", "passes", "recharges", "seconds_recharged", "closest_to_zero", "time_left"],
  alerts: ["number", "sounded_at", "reported_after", "face_up_after"],
};
// A Kaboom mission's columns, in the page's language.
const KABOOM_HEADS = () => ({
  name: t("Player"), turns: t("Turns"), seconds_played: t("Seconds played"), passes: t("Passes"),
  recharges: t("Recharges received"), seconds_recharged: t("Seconds recharged"),
  closest_to_zero: t("Closest to zero (s)"), time_left: t("Time left at the end (s)"),
  number: t("Alert"), sounded_at: t("Sounded at (s)"), reported_after: t("Reported flipped after (s)"),
  face_up_after: t("Cards face up then"),
});
// How a turn ended, in words; the counts are the engine's (in the debrief it sends).
const ended = (d) => ({ time: t("time ran out"), five_cards: tn("{n} card done", "{n} cards done", d.cards_per_turn),
  mistakes: tn("{n} mistake", "{n} mistakes", d.mistakes_per_turn), ended: t("not scored: the match was ended"),
  abandoned: t("not scored: the match was abandoned") });
// An instruction type's name ("sequence"), as the cards print it, in the page's language.
const kindName = (kind) => ({ simple: t("simple"), sequence: t("sequence"), coordinates: t("coordinates"),
  activation: t("activation") })[kind] || kind;

function table(name, rows, emptyText) {
  const ENDED = ended(current);
  const cols = COLUMNS[name];
  const t = $(`#table-${name}`);
  const heads = current.game === "kaboom" ? KABOOM_HEADS() : HEADS();
  const head = el("thead", {}, el("tr", {}, cols.map((c) => el("th", { class: typeof rows[0]?.[c] === "number" ? "num" : null, text: heads[c] || c }))));
  const body = el("tbody", {}, rows.length ? rows.map((r) => el("tr", {}, cols.map((c) => {
    let v = r[c];
    if (c === "ended_by") v = ENDED[v] || v;
    if (c === "kind") v = kindName(v);
    return el("td", { class: typeof r[c] === "number" ? "num" : null, dataset: { col: c }, text: v === null || v === undefined || v === "" ? "–" : String(v) });
  }))) : el("tr", {}, el("td", { colspan: cols.length, class: "empty", text: emptyText })));
  t.replaceChildren(head, body);
}

// ---------------------------------------------------------------- the page
const KIND_ORDER = ["simple", "sequence", "coordinates", "activation"];
const kindSort = (a, b) => ((KIND_ORDER.indexOf(a.kind) + 1 || 99) - (KIND_ORDER.indexOf(b.kind) + 1 || 99)) || a.kind.localeCompare(b.kind);

function resultLine(d) {
  const s = d.settings || {};
  if (d.status === "abandoned") return t("Abandoned: the match does not count");
  if (!d.finished) return t("In play: round {round}", { round: d.round });
  if (d.ended_by === "ended" && s.mode !== "cooperative") {
    const w = d.winner || [];
    return w.length > 1 ? t("Ended early, shared win: {teams}", { teams: w.join(" & ") })
      : w.length ? t("Ended early, winner: {team}", { team: w[0] }) : t("Ended early");
  }
  // The engine's tier and landing text are English; the catalog has them (panel/games/airlines/engine/cooperative.py).
  if (s.mode === "cooperative") return d.tier ? t("Landed: {tier}", { tier: t(d.tier) }) : t("Landed");
  const w = d.winner || [];
  if (w.length > 1) return t("Shared win: {teams}", { teams: w.join(" & ") });
  return w.length ? t("Winner: {team}", { team: w[0] }) : t("Over");
}

// ---------------------------------------------------------------- Penguin Kaboom
function showKaboom(d) {
  const s = d.settings || {};
  $("#title").textContent = "· " + t("mission") + " " + d.match_id;
  document.title = t("Debrief") + " · " + t("mission") + " " + d.match_id;
  const state = { ...d, players: (s.players || []) };
  $("#outcome").textContent = d.finished ? outcomeTitle(d) : t("In play");
  const rules = s.rules || {};
  $("#meta").textContent = [
    "Penguin Kaboom", d.created ? d.created.replace("T", " ").slice(0, 16) : null,
    s.mission === "custom" ? t("Custom mission") : t("Mission {number}", { number: s.mission }),
    s.mission === "custom" ? null : t(s.difficulty),
    t("{seconds} s each", { seconds: rules.time_per_player }), t("an alert every {seconds} s", { seconds: rules.alert_seconds }),
    t("seed {seed}", { seed: s.seed ?? "–" }),
  ].filter(Boolean).join(" · ");
  $("#outcometext").textContent = d.finished ? outcomeText(state) : "";
  $("#endtext").textContent = "";
  const players = d.tables.players.map((p) => ({ ...p, name: p.name || t("{colour} penguin", { colour: colourName(p.colour) }) }));
  const bar = (p, value, text) => ({ label: p.name, value, text, fill: PENGUIN_CSS[p.colour],
    data: { colour: p.colour, value } });
  figure("fig-kplayed", t("Seconds each player's clock ran (their turns), with the number of turns."),
    players.length ? hbars({ id: "kplayed", title: t("Seconds played"), unit: t("seconds"), fill: "#0072B2",
      rows: players.map((p) => bar(p, p.seconds_played, `${p.seconds_played} s · ${p.turns}×`)) }) : null,
    t("The mission did not start."));
  figure("fig-kclosest", t("How close each clock came to zero: the fewest seconds it ever held."),
    players.length ? hbars({ id: "kclosest", title: t("Closest to zero"), unit: t("seconds"), fill: "#D55E00",
      rows: players.map((p) => bar(p, p.closest_to_zero, `${p.closest_to_zero} s`)) }) : null,
    t("The mission did not start."));
  table("players", players, t("The mission did not start."));
  table("alerts", d.tables.alerts, t("No alert sounded."));
}

function show(d) {
  current = d;
  $(".debrief").classList.toggle("kaboom", d.game === "kaboom");
  if (d.game === "kaboom") {
    showKaboom(d);
    $("#endtext").textContent = ""; // the Airlines match's end (rule 25): none in a mission
    for (const a of document.querySelectorAll("a.csv")) {
      a.href = `/api/admin/debrief.csv?match=${d.match_id}&table=${a.dataset.table}`;
    }
    $("#app").classList.remove("hidden");
    $("#nomatch").classList.add("hidden");
    return;
  }
  const s = d.settings || {};
  const teams = (s.teams || []).map((t) => t.name);
  const title = t("match {number}", { number: d.match_id });
  $("#title").textContent = "· " + title;
  document.title = t("Debrief") + " · " + title;
  $("#outcome").textContent = resultLine(d);
  $("#meta").textContent = [
    s.mode === "cooperative" ? t("Cooperative") : t("Competitive"),
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

  table("turns", turns, t("No turn has ended yet."));
  table("card_kinds", kinds, t("No card was dealt."));
  table("controls", controls, t("No mistakes."));
  for (const a of document.querySelectorAll("a.csv")) {
    a.href = `/api/admin/debrief.csv?match=${d.match_id}&table=${a.dataset.table}`;
  }
  $("#app").classList.remove("hidden");
  $("#nomatch").classList.add("hidden");
}

function needLogin(e) {
  if (e.status === 403 && /PIN|log in/i.test(e.message)) {
    $("#login").classList.remove("hidden");
    $("#app").classList.add("hidden");
    $("#pin").focus();
    return true;
  }
  return false;
}

// A stored match's game or mode and its status, in the page's language (the menu of matches).
const modeName = (mode) => ({ competitive: t("competitive"), cooperative: t("cooperative"), kaboom: "Penguin Kaboom" })[mode] || mode;
const statusName = (status) => ({ active: t("in play"), finished: t("finished"), ended: t("ended early"),
  abandoned: t("abandoned"), set_aside: t("set aside") })[status] || status;

// Who played: the teams, or in a mission the players (a penguin without a name by its colour).
const sides = (m) => (m.mode === "kaboom" ? m.teams.map((x) => (x in PENGUIN_CSS ? colourName(x) : x)) : m.teams);

// The picker lists the newest matches; "Older matches" fetches the page before the last one shown.
let older = null; // the id the next page of older matches comes before, or null when there is none

const matchOption = (m) => el("option", { value: String(m.id),
  text: [`#${m.id}`, m.created.replace("T", " ").slice(0, 16), modeName(m.mode), sides(m).join(" – "), statusName(m.status)]
    .join(" · ") });

function addMatches(matches, more) {
  const sel = $("#match");
  const shown = new Set([...sel.options].map((o) => o.value));
  for (const m of matches) {
    if (shown.has(String(m.id))) sel.querySelector(`option[value="${m.id}"]`).replaceWith(matchOption(m));
    else sel.append(matchOption(m));
  }
  older = more && matches.length ? matches[matches.length - 1].id : null;
  $("#older").classList.toggle("hidden", older === null);
}

async function loadMatches() {
  const { matches, more } = await api("/api/admin/matches");
  $("#login").classList.add("hidden");
  const sel = $("#match");
  const keep = new URLSearchParams(location.search).get("match") || sel.value;
  sel.replaceChildren();
  addMatches(matches, more);
  if (keep && /^\d+$/.test(keep) && !matches.some((m) => String(m.id) === keep)) {
    sel.append(el("option", { value: keep, text: `#${keep}` })); // an older match, asked for by its id
  }
  if (keep && sel.querySelector(`option[value="${keep}"]`)) sel.value = keep;
  return matches.length;
}

async function loadOlder() {
  error("");
  try {
    const { matches, more } = await api(`/api/admin/matches?before=${older}`);
    const keep = $("#match").value;
    addMatches(matches, more);
    $("#match").value = keep;
  } catch (e) {
    if (!needLogin(e)) error(e.message);
  }
}

// The page has no live socket: each load (Refresh, another match) asks for the cockpit's
// language too, so a language chosen since on /admin shows here.
async function load() {
  error("");
  await loadLanguage();
  try {
    if (!(await loadMatches())) {
      $("#nomatch").classList.remove("hidden");
      $("#app").classList.add("hidden");
      return;
    }
    show(await api(`/api/admin/debrief?match=${encodeURIComponent($("#match").value)}`));
  } catch (e) {
    if (!needLogin(e)) error(e.message);
  }
}

$("#match").addEventListener("change", () => {
  const u = new URL(location.href);
  u.searchParams.set("match", $("#match").value);
  history.replaceState(null, "", u);
  load();
});
$("#refresh").addEventListener("click", load);
$("#older").addEventListener("click", loadOlder);
$("#print").addEventListener("click", () => window.print());
$("#login").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  error("");
  try {
    const r = await post("/api/admin/login", { pin: $("#pin").value });
    csrf.set(r.csrf); // the game master's other tabs share it
    $("#pin").value = "";
    await load();
  } catch (e) {
    error(e.status === 429 ? t("Too many wrong PINs: wait a minute.") : e.status === 403 ? t("Wrong PIN.") : e.message);
  }
});
window.debriefShown = () => current; // for tests and the curious: the data behind the page
load();
