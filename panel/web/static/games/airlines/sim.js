// Penguin Airlines on the simulator: the turn's cards and mistakes, who plays, the stuck
// finger, the turn's seconds. The game's part of /sim (sim.js): caption(layout), show(s, sim),
// seconds().
import { $, el, t, Clock, fmtSeconds, pauseText, nextTurnText, stuckText } from "/static/common.js";

const clock = new Clock();

// The title's words after the game's name: the panel's side, and the expansion when fitted.
export const caption = (layout) => [t("{side} side", { side: t(layout.side) }), layout.expansion ? t("expansion ★") : null];

function pips(node, n, total, cls) {
  node.replaceChildren(...Array.from({ length: total }, (_, i) => el("span", { class: `pip ${cls} ${i < n ? "on" : ""}` })));
}

export function show(s) {
  clock.update(s);
  pips($("#done"), s.completed || 0, s.cards_per_turn, "done");
  pips($("#mistakes"), s.mistakes || 0, s.mistakes_per_turn, "mistake");
  const why = pauseText(s);
  $("#phase").textContent = s.finished ? t("The game is over: press START to play again.")
    : s.phase === "between_turns" ? nextTurnText(s)
    : why ? t("Paused: {why}", { why }) : s.phase === "paused" ? t("Paused for the challenge") : t("{team} is playing", { team: s.team });
  $("#stuck").textContent = stuckText(s);
  document.querySelectorAll(".ctl.stuck").forEach((e) => { if (e.dataset.control !== s.stuck) e.classList.remove("stuck"); });
  if (s.stuck) document.querySelector(`.ctl[data-control="${CSS.escape(s.stuck)}"]`)?.classList.add("stuck");
}

export const seconds = () => fmtSeconds(clock.now());
