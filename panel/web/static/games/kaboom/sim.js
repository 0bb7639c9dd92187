// Penguin Kaboom on the simulator: what each control is in the mission, written under it
// (a player's name under their colour, RECHARGE under the recharge button ...) from the
// state's own mapping, the mission and whose clock runs. The game's part of /sim (sim.js):
// caption(layout), show(s, sim), seconds().
import { $, el, t } from "/static/common.js";
import { Clocks, banner, colourName, fmtClock, missionTitle, outcomeTitle, playerName, sayRefused }
  from "/static/games/kaboom/common.js";

const clocks = new Clocks();
let shown = null; // the mission's state shown

// The title's words after the game's name: none (a mission plays the whole panel, either side).
export const caption = () => [];

function captions(s, sim) {
  document.querySelectorAll(".kcap").forEach((n) => n.remove());
  if (!s.panel) return;
  const p = s.panel;
  // Written on the control itself, never over its neighbours (the direction cross is tight).
  const caption = (id, text, title) => {
    const c = document.querySelector(`.ctl[data-control="${CSS.escape(id)}"]`);
    if (c && text) c.append(el("span", { class: "kcap", text, ...(title ? { title } : {}) }));
  };
  for (const [colour, id] of Object.entries(p.players)) {
    const player = (s.players || []).find((x) => x.colour === colour);
    if (player) caption(id, player.name || colourName(colour), playerName(s, colour));
  }
  caption(p.recharge, t("recharge"));
  caption(p.mission, t("mission"));
  caption(p.alert_flipped, t("alert"));
  caption(p.alert_deactivated, t("alert back"));
  caption(p.cover.control, protectionCaption(s, sim), s.protection);
}

// The protection, in a few words on the lever itself (the whole sentence is its title): off,
// or where to move it now to lift it (Kaboom rule 9: a lever already at its lifting position
// at the start goes away and back).
function protectionCaption(s, sim) {
  const cover = s.panel.cover;
  const open = sim.positionName(cover.open);
  if (s.cover_open) return t("protection off");
  if ((s.positions || {})[cover.control] !== cover.open) return t("protection: {position} lifts it", { position: open });
  const away = sim.positionName(cover.positions.find((x) => x !== cover.open));
  return t("protection: {away}, then {open}", { away, open });
}

// A press the rules refused: said under the status line, in the players' words.
export function refused(r) {
  sayRefused($("#refused"), r);
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
