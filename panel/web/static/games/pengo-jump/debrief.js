// Pengo Jump in the debrief: how the game came out, each turn (who drew what, what
// happened), each player's share, and the café's record over every game of it (games, won,
// by mode and by number of players: /api/admin/record). Its sections are built here and
// marked data-game. The game's part of /debrief (debrief.js): show(d, page), listing(m, page).
import { $, api, el, t, tn } from "/static/common.js";
import { info } from "/static/games/index.js";
import { GAME, kindName, modeName, outcomeName, outcomeText, outcomeTitle, playerName, sizeName, styles }
  from "/static/games/pengo-jump/common.js";

styles();
const COLUMNS = {
  draws: ["turn", "player", "drew", "left", "home", "fell", "hopped"],
  jumpers: ["name", "turns", "snowy", "sea_lion", "frosty", "home", "fell"],
};
const HEADS = () => ({
  turn: t("Turn"), player: t("Player"), drew: t("Drew"), left: t("Left in the bag"), home: t("Penguins home"),
  fell: t("Falls"), hopped: t("Hopped onto a sea lion"), sea_lion: kindName("sea_lion"), name: t("Player"), turns: t("Turns"), snowy: kindName("snowy"),
  frosty: kindName("frosty"),
});

const box = (id, table) => el("section", { class: "dsection", id, dataset: { game: GAME } },
  el("h2", { class: "pjh" }),
  el("div", { class: "tablehead" }, el("h3", { class: "pjsub" }),
    el("a", { class: "csv noprint", dataset: { table }, download: "" })),
  el("div", { class: "tablewrap" }, el("table", { id: `table-${table}`, class: "dtable" })));
const sections = [box("pjdrawsbox", "draws"), box("pjjumpersbox", "jumpers"),
  el("section", { class: "dsection pjrecord", id: "pjrecordbox", dataset: { game: GAME } },
    el("h2", { id: "pjrecordtitle" }), el("p", { id: "pjrecordline", class: "meta" }),
    el("div", { class: "tablewrap" }, el("table", { id: "pjrecord", class: "dtable" })))];
$("#resultbox")?.after(...sections);

// A stored game in the picker: the game, the mode, who played, and how it came out.
export const listing = (m, page) => [info(GAME).title, modeName(m.mode),
  m.teams.some(Boolean) ? m.teams.map((n, i) => n || t("Player {n}", { n: i + 1 })).join(" – ")
    : tn("{n} player", "{n} players", m.teams.length),
  outcomeName(m.outcome) || page.statusName(m.status)];

export function show(d, page) {
  const s = d.settings || {};
  const state = { ...d, players: (d.players || s.players || []).map((name, index) => ({ index, name })), penguins: 4 };
  $("#title").textContent = "· " + t("game") + " " + d.match_id;
  document.title = t("Debrief") + " · " + t("game") + " " + d.match_id;
  $("#outcome").textContent = d.finished ? outcomeTitle(d) : t("In play");
  $("#meta").textContent = [info(GAME).title, d.created ? d.created.replace("T", " ").slice(0, 16) : null, modeName(s.mode),
    tn("{n} player", "{n} players", state.players.length), t("Penguins home: {home} of 4", { home: d.home ?? 0 }),
    tn("{n} chunk left in the bag", "{n} chunks left in the bag", d.left ?? 0)].filter(Boolean).join(" · ");
  $("#outcometext").textContent = d.finished ? outcomeText(state) : "";
  $("#endtext").textContent = "";
  const [draws, jumpers] = $$sections();
  $(".pjh", draws).textContent = t("Turns: what each drew and what happened");
  $(".pjsub", draws).textContent = t("One row per turn");
  $(".pjh", jumpers).textContent = t("Players: draws and penguins home");
  $(".pjsub", jumpers).textContent = t("One row per player");
  for (const a of document.querySelectorAll("#pjdrawsbox a.csv, #pjjumpersbox a.csv")) a.textContent = t("Download CSV");
  const cell = (c, v) => (c === "drew" ? kindName(v) : c === "hopped" ? (v ? sizeName(v) : "") : c === "player" ? playerName(state, v - 1) : v);
  const table = (name, rows, empty) => page.table(name, rows, empty, { columns: COLUMNS[name], heads: HEADS(), cell });
  table("draws", d.tables.draws, t("No chunk was drawn."));
  table("jumpers", d.tables.jumpers.map((p) => ({ ...p, name: p.name || t("Player {n}", { n: p.player }) })), t("No player."));
  record();
}

const $$sections = () => [$("#pjdrawsbox"), $("#pjjumpersbox")];

// The café's record of the game, over every stored game of it.
async function record() {
  $("#pjrecordtitle").textContent = t("The café's record");
  let r;
  try { r = await api(`/api/admin/record?game=${encodeURIComponent(GAME)}`); } catch (e) {
    $("#pjrecordline").textContent = e.message;
    return;
  }
  $("#pjrecordline").textContent = t("{won} won of {games} games played to the end", r);
  $("#pjrecordline").dataset.games = String(r.games);
  $("#pjrecordline").dataset.won = String(r.won);
  const row = (label, v) => el("tr", {}, el("td", { text: label }), el("td", { class: "num", text: String(v.games) }),
    el("td", { class: "num", text: String(v.won) }));
  $("#pjrecord").replaceChildren(
    el("thead", {}, el("tr", {}, el("th", { text: "" }), el("th", { class: "num", text: t("Games") }),
      el("th", { class: "num", text: t("Won") }))),
    el("tbody", {}, row(t("All"), r),
      ...Object.entries(r.by_mode).map(([m, v]) => row(modeName(m), v)),
      ...Object.entries(r.by_players).map(([n, v]) => row(tn("{n} player", "{n} players", Number(n)), v))));
}
