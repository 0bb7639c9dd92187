// The games on the pages: what the service says of each (GET /api/games: its title, the
// names of the ids its states carry, its colours, in the pages' language) and each game's
// part of a page: /static/games/<game>/<page>.js, one module per game and page, with the
// same exports for every game. A page looks its part up by the game a state, a debrief or a
// stored match names, and never asks which game it is: the games are the service's
// (panel/games/registry.py), so a new game is its package there and its folder here.
//
// Each game's part of a page exports (the `board`, `sim` and `page` arguments: what the page
// lends its parts, ? an export a game may leave out):
//   board.js    update?(s), show(s, board), describe(e, s), event?(e, board),
//               tick(s, board) -> [seconds left of a running clock or null, the node that beats], leave?(board),
//               refused?(r, board) (a press the rules refused: r.reason in the pages' words, r.control, r.plain)
//   sim.js      caption(layout) -> [the title's words after the game's name], show(s, sim), seconds() -> text,
//               refused?(r, sim)
//   admin.js    form(declared, page), word(), body(page) -> the New match body, show(s, page), tick(s),
//               describe(e, s), leave?(page), endChoices?(s) (a game with an "end" action)
//   debrief.js  show(d, page), listing(m, page) -> [the picker's words for a stored match]
import { api, language, onLanguage } from "/static/common.js";

export const served = { default: null, games: {} };

async function load() {
  try {
    Object.assign(served, await api(`/api/games?lang=${encodeURIComponent(language())}`));
  } catch (e) { /* the words it has: the page shows what it can, the live badge says the cockpit is out of reach */ }
}
await load();
onLanguage(load); // awaited before the page's own listeners word it again

// A game's words (title, names, colours, debrief tables); {} for a game this cockpit has not.
export const info = (game) => served.games[game] || {};

// The game a state, a debrief or a stored match is of; with no match set up, the game the
// cockpit plays by default.
export const gameOf = (d) => (d && d.game) || served.default;

// Every served game's part of `page` ("board", "sim", "admin", "debrief"), by its game;
// `of(d)` is the part of d's game (undefined for a game this page cannot show).
export async function parts(page) {
  const loaded = {};
  for (const game of Object.keys(served.games)) {
    try {
      loaded[game] = await import(`/static/games/${game}/${page}.js`);
    } catch (e) {
      console.error(`no ${page} part for ${game}: ${e.message}`); // the other games still show
    }
  }
  return { all: loaded, of: (d) => loaded[gameOf(d)] };
}
