// Penguin Ultimatum on the pages: the names of the players' colours, the forms, the
// entertainers' colours and animals (the service's, GET /api/games), what the score
// sheet's entries and events say, and the cards and players drawn. Every rule is the
// engine's (the state's `actions`, `players`, `majorities`, `final`); this only words and
// draws it. Shared by the game's parts of each page; its look is ultimatum.css.
import { el, t } from "/static/common.js";
import { info } from "/static/games/index.js";

export const GAME = "ultimatum";
const names = (kind) => (info(GAME).names || {})[kind] || {};
const css = (kind) => ((info(GAME).css || {})[kind]) || {};

// The game's style sheet, once per page.
if (!document.querySelector("link[data-ultimatum]")) {
  document.head.append(el("link", { rel: "stylesheet", href: "/static/games/ultimatum/ultimatum.css", dataset: { ultimatum: "1" } }));
}

export const colourName = (c) => names("player")[c] || c;
export const formName = (f) => names("form")[f] || f;
export const animalName = (c) => names("animal")[c] || c;
export const entertainerColourName = (c) => names("colour")[c] || c;
export const kindName = (k) => names("kind")[k] || k;
export const reasonName = (r) => names("reason")[r] || r;
export const forms = () => info(GAME).forms || [];
export const colours = () => info(GAME).colours || [];
export const playerColours = () => info(GAME).player_colours || [];

// A player as people call them: their name, else their colour.
export function playerName(s, colour) {
  const p = ((s && s.players) || []).find((x) => x.player === colour);
  return (p && p.name) || t("{colour} player", { colour: colourName(colour) });
}

// An entertainer card ("red-dance") in words: its animal and form ("seal, dance").
export function cardName(card) {
  const [colour, form] = card.split("-");
  return t("{animal}, {form}", { animal: animalName(colour), form: formName(form) });
}

// A node painted in a player's colour (with ink that reads on it), marked player-<colour>.
export function paintPlayer(node, colour) {
  const p = css("player")[colour];
  node.style.setProperty("--ucss", p ? p.css : "#888");
  node.style.setProperty("--uink", p ? p.ink : "#fff");
  node.dataset.player = colour;
  return node;
}

// A player's entertainer cards of one colour as one row in the entertainer's colour: the
// animal named once with how many, then each card's form ("sheep ×2  dance  music"); null
// when they hold none of it.
export function cardRow(cards, colour) {
  const held = cards.filter((card) => card.startsWith(`${colour}-`));
  if (!held.length) return null;
  const p = css("entertainer")[colour] || {};
  const row = el("div", { class: "ucrow", dataset: { colour } },
    el("span", { class: "ucanimal", text: `${animalName(colour)} ×${held.length}` }),
    ...held.map((card) => el("span", { class: "ucard", dataset: { card }, title: cardName(card), text: formName(card.split("-")[1]) })));
  row.style.background = p.css || "#888";
  row.style.color = p.ink || "#fff";
  return row;
}

// Who would win a colour's majority now, in words.
export function majorityText(s, colour) {
  const m = (s.majorities || {})[colour] || { leaders: [], count: 0 };
  if (!m.leaders.length) return s.final ? t("nobody") : t("nobody yet");
  const who = m.leaders.map((p) => playerName(s, p)).join(", ");
  return m.leaders.length > 1 ? t("tied: {players} ({n} each)", { players: who, n: m.count })
    : t("{player} ({n})", { player: who, n: m.count });
}

const pointsText = (s, points) => Object.entries(points || {}).filter(([, n]) => n)
  .map(([p, n]) => `${playerName(s, p)} ${n}`).join(", ") || t("nobody scored");

// One entry of the sheet in words (the phone's list, the debrief).
export function entryText(r, s) {
  switch (r.kind) {
    case "add_player": return t("{player} sits down: {form} performance card", { player: playerName(s, r.player), form: formName(r.form) });
    case "performance": {
      const to = r.to ? t("card to {player}", { player: playerName(s, r.to) })
        : r.why === "tied" ? t("card out of the game (tied for the fewest)") : t("card out of the game (nobody scored)");
      return `${cardName(r.card)}: ${pointsText(s, r.points)} · ${to}`;
    }
    case "penalty": return r.card
      ? t("{player} gives up {card} instead of a kinship penalty", { player: playerName(s, r.player), card: cardName(r.card) })
      : t("{player} pays a kinship penalty of {points}", { player: playerName(s, r.player), points: r.points });
    case "end": return t("End of the game");
    case "shorter": return t("{player} is the shorter player", { player: playerName(s, r.player) });
    default: return r.kind;
  }
}

export function winnerText(s) {
  if (s.ended_by === "abandoned") return t("Game abandoned: no result");
  if (!s.winner) return s.tied && s.tied.length ? t("Tied on every count: who is shorter?") : "";
  return t("{player} wins! ({reason})", { player: playerName(s, s.winner), reason: reasonName(s.reason) });
}

export function describeEvent(e, s) {
  switch (e.type) {
    case "player_added": return t("{player} sits down", { player: playerName(s, e.player) });
    case "performance": return t("{card} performed: {points}", { card: cardName(e.card), points: pointsText(s, e.points) });
    case "entertainer_awarded": return t("{card}: the card goes to {player}", { card: cardName(e.card), player: playerName(s, e.to) });
    case "entertainer_out": return t("{card}: the card leaves the game", { card: cardName(e.card) });
    case "penalty_paid": return t("{player} pays a kinship penalty of {points}", { player: playerName(s, e.player), points: e.points });
    case "entertainer_given_up": return t("{player} gives up {card} instead of a kinship penalty", { player: playerName(s, e.player), card: cardName(e.card) });
    case "entry_undone": return t("Undone: entry {n}", { n: e.entry });
    case "entry_corrected": return t("Entry {n} corrected: the scores after it recomputed", { n: e.entry });
    case "game_ended": return e.tied && e.tied.length ? t("The end: tied on every count, who is shorter?") : t("The end");
    case "game_won": return t("{player} wins!", { player: playerName(s, e.winner) });
    case "game_abandoned": return t("Game abandoned");
    default: return e.type;
  }
}
