// Pengo Jump on the TV scoreboard: whose turn it is (the players' order), the daylight left
// as the bag empties (a sky that sets, its sun sinking), what is still in the bag by kind
// with the odds of the next draw, the penguins home out of 4, the sea lion tokens left, and
// the key of the panel's buttons, each named by what it is on this panel. Its section is
// built here, once, and marked data-game: the shared board page holds none of it.
// The game's part of the board (board.js): show(s, board), describe(e, s), event(e, board), tick(s, board).
import { $, el, t, tn } from "/static/common.js";
import { GAME, SIZES, bagRows, banner, describeEvent, keyRows, modeAndTurn, orderRow, outcomeText, outcomeTitle, playerName,
  sayRefused, sizeName, stageName, styles } from "/static/games/pengo-jump/common.js";

styles();
const section = el("section", { class: "pengo", id: "pengo", dataset: { game: GAME }, "aria-live": "polite" },
  el("div", { class: "psky", id: "psky" },
    el("div", { class: "psun", id: "psun", "aria-hidden": "true" }),
    el("div", { class: "psea", "aria-hidden": "true" }),
    el("div", { class: "pwho" }, el("div", { class: "pturnof", id: "pturnof" }), el("div", { class: "pname", id: "pname" }),
      el("div", { class: "porderline" }, el("span", { id: "pordertitle" }), " ", el("ol", { id: "porder", class: "porder" }))),
    el("div", { class: "pdaylight", id: "pdaylight" })),
  el("div", { id: "pbanner", class: "banner pbanner" }),
  el("div", { id: "prefused", class: "prefused hidden", role: "alert" }),
  el("div", { class: "pgrid" },
    el("section", { class: "pbox pbag" }, el("h3", { id: "pbagtitle" }), el("div", { id: "pbag", class: "pbagrows" })),
    el("section", { class: "pbox phome" }, el("h3", { id: "phometitle" }), el("div", { id: "phome", class: "ppenguins" }),
      el("p", { id: "phometext", class: "pbig" })),
    el("section", { class: "pbox ptokens", id: "ptokensbox" }, el("h3", { id: "ptokenstitle" }), el("div", { id: "ptokens" }))),
  el("section", { class: "pbox pkeybox" }, el("h3", { id: "pkeytitle" }), el("ul", { id: "pkey", class: "pkey" })));
document.querySelector(".board .ticker")?.before(section);

const KEY = ["snowy", "sea_lion", "frosty", "home", "fell", "small_sea_lion", "large_sea_lion", "end_turn",
  "small_token_fell", "large_token_fell"];

export function show(s, board) {
  $("#round").textContent = modeAndTurn(s);
  const daylight = Math.max(0, Math.min(1, s.daylight ?? 1));
  const sky = $("#psky");
  sky.dataset.stage = s.finished && s.outcome === "won" ? "won" : s.stage;
  sky.style.setProperty("--daylight", String(daylight));
  $("#pturnof").textContent = s.finished ? "" : t("Whose turn");
  $("#pname").textContent = s.finished ? outcomeTitle(s) : playerName(s, s.current);
  const left = tn("{n} chunk left of {total}", "{n} chunks left of {total}", s.left, { total: s.in_bag });
  $("#pdaylight").textContent = [stageName(s.stage), left].join(" · ");
  $("#pdaylight").dataset.left = String(s.left);
  const said = banner(s);
  $("#pbanner").textContent = said;
  $("#pbanner").classList.toggle("hidden", !!s.finished);
  $("#pbagtitle").textContent = t("In the bag · odds of the next draw");
  $("#pbag").replaceChildren(...bagRows(s));
  $("#phometitle").textContent = t("Penguins home");
  $("#phome").replaceChildren(...Array.from({ length: s.penguins || 4 }, (_, i) =>
    el("span", { class: `ppenguin ${i < s.home ? "safe" : ""}`, "aria-hidden": "true" })));
  $("#phometext").textContent = t("{home} of {penguins}", { home: s.home, penguins: s.penguins });
  $("#phometext").dataset.home = String(s.home);
  const tokens = s.tokens;
  $("#ptokensbox").classList.toggle("hidden", !tokens);
  $("#ptokenstitle").textContent = t("Sea lion tokens left");
  $("#ptokens").replaceChildren(...(tokens ? SIZES.map((z) => el("p", { class: "ptoken", dataset: { size: z, free: tokens[z].free } },
    el("b", { text: sizeName(z) }), " ",
    el("span", { class: "pbig", text: String(tokens[z].free) }), " ",
    el("span", { class: "muted ptokenwhere", text: t("({board} on the board, {fallen} fallen)", tokens[z]) }))) : []));
  $("#pordertitle").textContent = t("Players' order") + ":";
  $("#porder").replaceChildren(...orderRow(s));
  $("#pkeytitle").textContent = t("The panel's buttons");
  const roles = KEY.filter((r) => s.tokens || !/^(small|large)_/.test(r)); // Happy Penguins: no sea lion reports
  $("#pkey").replaceChildren(...keyRows(s, roles));
  board.result(s.finished, outcomeTitle(s), outcomeText(s));
}

export const describe = (e, s) => describeEvent(e, s);

// A press the rules refused (a draw from the empty bag, a second move...): said on the TV.
export const refused = (r) => sayRefused($("#prefused"), r);

// Every sound has its light on the board too: the page flashes with the event's cue.
const FLASH = { penguin_home: "card", all_home: "card", penguin_fell: "mistake", night_fell: "mistake", daylight: "challenge",
  chunk_drawn: "start", sea_lion_token: "challenge", tokens_collected: "challenge", token_fell: "mistake", turn_over: "start" };
export function event(e, board) {
  if (FLASH[e.type]) board.flash(FLASH[e.type]);
}

export function tick() {
  return [null, $("#pname")]; // no clock: the daylight is the bag
}
