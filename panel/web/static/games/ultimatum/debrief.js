// Penguin Ultimatum in the debrief: the winner, each player's breakdown line by line, the
// end's standings and the whole score sheet, entry by entry with the scores after each.
// The game's part of /debrief (debrief.js): show(d, page), listing(m, page).
import { $, el, t } from "/static/common.js";
import { info } from "/static/games/index.js";
import { GAME, colourName, entryText, formName, kindName, playerName, winnerText }
  from "/static/games/ultimatum/common.js";

const HEADS = () => ({
  place: t("Place"), name: t("Player"), form: t("Performance card"), points_before_end: t("Points before the end"),
  form_points: t("Matching forms"), majority_points: t("Majorities"), entertainer_cards: t("Entertainer cards"),
  total: t("Total"), entry: t("Entry"), kind: t("Kind"), what: t("What"), scores: t("Scores after it"),
});

function section() {
  let node = $("#ultbox");
  if (!node) {
    const csv = (table) => el("a", { class: "csv noprint", dataset: { table }, download: "", text: t("Download CSV") });
    node = el("div", { id: "ultbox", dataset: { game: "ultimatum" } },
      el("section", { class: "dsection" }, el("h2", { id: "ulinesh" }), el("ul", { id: "ulines", class: "ulines" }),
        el("div", { class: "tablehead" }, el("h3", { id: "ustandh" }), csv("standings")),
        el("div", { class: "tablewrap" }, el("table", { id: "table-standings", class: "dtable" }))),
      el("section", { class: "dsection" }, el("h2", { id: "uentriesh" }),
        el("div", { class: "tablehead" }, el("h3", { id: "uentriesh3" }), csv("entries")),
        el("div", { class: "tablewrap" }, el("table", { id: "table-entries", class: "dtable" }))));
    $("#app").append(node);
  }
  return node;
}

// A stored game in the picker: the game, who played, its status.
export const listing = (m, page) => [info(GAME).title, m.teams.map((x) => (colourName(x) !== x ? colourName(x) : x)).join(" – "),
  page.statusName(m.status)];

export function show(d, page) {
  section();
  const tables = info(GAME).tables || {};
  $("#title").textContent = "· " + t("game") + " " + d.match_id;
  document.title = t("Debrief") + " · " + t("game") + " " + d.match_id;
  const s = { ...d, players: d.players || [] };
  $("#outcome").textContent = d.finished ? winnerText(s) : t("In play");
  $("#meta").textContent = [info(GAME).title, d.created ? d.created.replace("T", " ").slice(0, 16) : null,
    (d.players || []).map((p) => playerName(s, p.player)).join(", ")].filter(Boolean).join(" · ");
  $("#outcometext").textContent = "";
  $("#endtext").textContent = "";
  $("#ulinesh").textContent = t("The end, line by line");
  $("#ulines").replaceChildren(...Object.values(d.lines || {}).map((line) => el("li", { text: line })));
  $("#ustandh").textContent = tables.standings || "";
  $("#uentriesh").textContent = tables.entries || "";
  $("#uentriesh3").textContent = t("One row per entry");
  const standings = d.tables.standings.map((r) => ({ ...r, name: playerName(s, r.player), form: formName(r.form) }));
  page.table("standings", standings, t("The game has not ended."),
    { columns: ["place", "name", "form", "points_before_end", "form_points", "majority_points", "entertainer_cards", "total"], heads: HEADS() });
  page.table("entries", (d.entries || []).map((r) => ({ entry: r.entry, kind: kindName(r.kind), what: entryText(r, s),
    scores: Object.entries(r.scores || {}).map(([p, n]) => `${playerName(s, p)} ${n}`).join(" · ") })),
  t("Nothing entered yet."), { columns: ["entry", "kind", "what", "scores"], heads: HEADS() });
}
