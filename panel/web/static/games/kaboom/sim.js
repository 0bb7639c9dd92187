// Penguin Kaboom on the simulator: what each control is in the mission, written under it
// (a player's name under their colour, RECHARGE under the recharge button ...) from the
// state's own mapping, the mission and whose clock runs. The game's part of /sim (sim.js):
// caption(layout), show(s, sim), seconds().
import { $, el, t } from "/static/common.js";
import { Clocks, banner, fmtClock, missionTitle, outcomeTitle, playerName } from "/static/games/kaboom/common.js";

const clocks = new Clocks();
let shown = null; // the mission's state shown

// The title's words after the game's name: none (a mission plays the whole panel, either side).
export const caption = () => [];

function captions(s, sim) {
  document.querySelectorAll(".kcap").forEach((n) => n.remove());
  if (!s.panel) return;
  const p = s.panel;
  const caption = (id, text) => {
    const c = document.querySelector(`.ctl[data-control="${CSS.escape(id)}"]`);
    if (c && text) c.append(el("span", { class: "kcap", text }));
  };
  for (const [colour, id] of Object.entries(p.players)) {
    if ((s.players || []).some((x) => x.colour === colour)) caption(id, playerName(s, colour));
  }
  caption(p.recharge, t("recharge"));
  caption(p.mission, t("mission"));
  caption(p.alert_flipped, t("alert flipped"));
  caption(p.alert_deactivated, t("alert back"));
  caption(p.cover.control, t("protection: {position} lifts it", { position: sim.positionName(p.cover.open) }));
}

export function show(s, sim) {
  shown = s;
  clocks.update(s);
  captions(s, sim);
  const said = banner(s);
  $("#phase").textContent = s.finished ? outcomeTitle(s)
    : `${missionTitle(s)}${s.active ? ` · ${playerName(s, s.active)}` : ""}${said ? ` · ${said}` : ""}`;
}

export const seconds = () => (shown && shown.active && !shown.finished ? fmtClock(clocks.left(shown.active)) : "–");
