// Penguin Ultimatum on the TV scoreboard: every player's score in their colour, their
// entertainer cards by colour and form, who would win each colour's majority now, and at
// the end each player's breakdown line by line and the winner. The game's part of the
// board (board.js): show(s, board), describe(e, s), tick(s, board), leave(board).
import { $, el, t } from "/static/common.js";
import { cardRow, colours, describeEvent, entertainerColourName, animalName, formName, majorityText, paintPlayer,
  playerName, winnerText } from "/static/games/ultimatum/common.js";

function section() {
  let node = $("#ult");
  if (!node) {
    node = el("section", { id: "ult", class: "ult", dataset: { game: "ultimatum" }, "aria-live": "polite" },
      el("div", { id: "uwinner", class: "uwinner hidden", role: "status" }),
      el("div", { id: "uplayers", class: "uplayers" }),
      el("div", { id: "umajor", class: "umajor" }),
      el("div", { id: "upile", class: "upile" }));
    $("#ticker").before(node);
  }
  return node;
}

function playerTile(s, p) {
  const byColour = colours().map((c) => cardRow(p.cards, c));
  const line = (s.lines || {})[p.player];
  return paintPlayer(el("div", { class: `uplayer ${s.winner === p.player ? "won" : ""}` },
    el("div", { class: "upname", text: playerName(s, p.player) }),
    el("div", { class: "upcard", text: t("performance card: {form}", { form: formName(p.form) }) }),
    el("div", { class: "upscore", text: String(p.score) }),
    el("div", { class: "upcards" }, ...byColour),
    line ? el("div", { class: "upline", text: line }) : null), p.player);
}

export function show(s) {
  section();
  $("#result").classList.add("hidden"); // the game's own end, in its section
  $("#round").textContent = s.finished ? t("The end") : s.phase === "tie" ? t("The end: who is shorter?")
    : s.phase === "setup" ? t("Players sitting down") : t("{n} entertainers yet to perform", { n: (s.pile || []).length });
  $("#uplayers").replaceChildren(...(s.players || []).map((p) => playerTile(s, p)));
  $("#uplayers").dataset.count = String((s.players || []).length);
  $("#umajor").replaceChildren(el("h3", { text: s.final ? t("Majorities at the end") : t("Majorities now") }),
    ...colours().map((c) => el("div", { class: "umaj", dataset: { colour: c } },
      el("span", { class: "umajname", text: `${animalName(c)} (${entertainerColourName(c)})` }),
      el("span", { class: "umajwho", text: majorityText(s, c) }))));
  $("#upile").textContent = t("{n} entertainers yet to perform · {out} out of the game", { n: (s.pile || []).length, out: (s.out || []).length });
  const won = winnerText(s);
  $("#uwinner").textContent = won;
  $("#uwinner").classList.toggle("hidden", !won);
}

export const describe = (e, s) => describeEvent(e, s);

export function tick() {
  return [null, $("#round")];
}
