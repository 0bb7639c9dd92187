// The educators' debrief: pick a stored match, show its result, its tables and plots drawn
// here as inline SVG (no chart library, no build step). Every bar carries its value as text
// and its team's name or pattern, never colour alone; the page prints as an A4 handout. What
// a match of each game shows is the game's part of the page: /static/games/<game>/debrief.js.
import { $, el, api, post, csrf, t, loadLanguage, showGame } from "/static/common.js";
import { gameOf, parts } from "/static/games/index.js";

const SVG = "http://www.w3.org/2000/svg";
const games = await parts("debrief");
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

// The charts' smallest type is 18 units (the grid's values): drawn at no less than 2/3 of its
// size, it reads at 12 px or more; a chart wider than its box then scrolls in it (a phone).
const MIN_SCALE = 2 / 3;
const PHONE = () => window.innerWidth < 600;
const chartBox = (width) => ({ width, style: `min-width: ${Math.ceil(width * MIN_SCALE)}px` });

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
  const s = svg("svg", { viewBox: `0 0 ${width} ${height}`, ...chartBox(width), role: "img", class: "chart",
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
// On a phone each label stands above its bar, the chart no wider than a phone's page at 2/3
// scale; on a wider screen the labels are beside the bars.
function hbars({ id, title, unit, rows, fill }) {
  const narrow = PHONE();
  const TOP = 44, CHAR = 12.5, LABEL = narrow ? 26 : 0, ROW = 50 + LABEL;
  const labelW = narrow ? 8 : Math.max(120, Math.ceil(Math.max(...rows.map((r) => r.label.length)) * CHAR) + 24);
  const BAR_W = narrow ? 300 : 560;
  const width = labelW + BAR_W + (narrow ? 230 : 190);
  const height = TOP + rows.length * ROW + 16;
  const max = niceMax(Math.max(0, ...rows.map((r) => r.value || 0)));
  const s = svg("svg", { viewBox: `0 0 ${width} ${height}`, ...chartBox(width), role: "img", class: "chart",
    "aria-label": title, dataset: { plot: id, bars: rows.length } }, svg("title", { text: title }),
    svg("text", { x: 8, y: 28, class: "unit", text: unit }),
    svg("line", { x1: labelW, x2: labelW, y1: TOP - 6, y2: height - 8, class: "axis" }));
  rows.forEach((r, i) => {
    const top = TOP + i * ROW + 6 + LABEL;
    const w = ((r.value || 0) / max) * BAR_W;
    s.append(svg("g", { class: "barg" },
      narrow ? svg("text", { x: labelW + 4, y: top - 8, class: "blabel", text: shorten(r.label, 38) })
        : svg("text", { x: labelW - 12, y: top + 26, class: "blabel", "text-anchor": "end", text: r.label }),
      svg("rect", { x: labelW, y: top, width: w, height: ROW - LABEL - 14, fill: r.fill || fill, class: "bar", stroke: "#111",
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
// columns: the ones shown, in order; heads: each one's heading; cell: a value as shown.
function table(name, rows, emptyText, { columns, heads, cell = (c, v) => v }) {
  const node = $(`#table-${name}`);
  const head = el("thead", {}, el("tr", {}, columns.map((c) => el("th", { class: typeof rows[0]?.[c] === "number" ? "num" : null, text: heads[c] || c }))));
  const body = el("tbody", {}, rows.length ? rows.map((r) => el("tr", {}, columns.map((c) => {
    const v = cell(c, r[c]);
    return el("td", { class: typeof r[c] === "number" ? "num" : null, dataset: { col: c, head: heads[c] || c }, text: v === null || v === undefined || v === "" ? "–" : String(v) });
  }))) : el("tr", {}, el("td", { colspan: columns.length, class: "empty", text: emptyText })));
  node.replaceChildren(head, body);
}

// ---------------------------------------------------------------- the page
// A stored match's status, in the page's language (the menu of matches).
const statusName = (status) => ({ active: t("in play"), finished: t("finished"), ended: t("ended early"),
  abandoned: t("abandoned"), set_aside: t("set aside") })[status] || status;

// What a game's part may use of the page.
const page = { svg, vbars, hbars, figure, table, teamDefs, statusName };

function show(d) {
  current = d;
  const part = games.of(d);
  if (!part) { error(t("This page cannot show a match of {game}.", { game: gameOf(d) })); return; }
  showGame($(".debrief"), gameOf(d));
  part.show(d, page);
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

// The picker lists the newest matches; "Older matches" fetches the page before the last one shown.
let older = null; // the id the next page of older matches comes before, or null when there is none

// A stored match in the picker: its number, when, and its game's words for it (a game this
// page cannot show: its id, its sides and its status).
const matchOption = (m) => el("option", { value: String(m.id),
  text: [`#${m.id}`, m.created.replace("T", " ").slice(0, 16),
    ...(games.of(m)?.listing(m, page) || [m.game, m.teams.join(" – "), statusName(m.status)])].filter(Boolean).join(" · ") });

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
