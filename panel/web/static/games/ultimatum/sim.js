// Penguin Ultimatum on the simulator: the scorekeeper uses no control of the panel, so the
// page only says what is being scored. The game's part of /sim (sim.js): caption(layout),
// show(s, sim), seconds().
import { $, t } from "/static/common.js";
import { info } from "/static/games/index.js";
import { GAME, winnerText } from "/static/games/ultimatum/common.js";

export const caption = () => [];

export function show(s) {
  $("#phase").textContent = s.finished ? winnerText(s)
    : t("{game}: scored on the game master's page", { game: info(GAME).title || "" });
}

export const seconds = () => "–";
