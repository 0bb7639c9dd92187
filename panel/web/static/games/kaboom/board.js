// Penguin Kaboom on the TV scoreboard: every player's clock in their colour, the running one
// large, the alert cards, what the players must do now, and the result (its own sounds).
// The game's part of the board (board.js): show(s, board), describe(e, s), tick(s, board).
import { $, el, t } from "/static/common.js";
import { Clocks, banner, describeEvent, fmtClock, legendItems, missionTitle, nextText, outcomeText, outcomeTitle,
  paint, playerName, sayRefused } from "/static/games/kaboom/common.js";

// The result box's look for each outcome: never mistaken for one another (colour, sign, words).
const OUTCOMES = ["success", "failed", "abandoned"];

const clocks = new Clocks();

export function show(s) {
  clocks.update(s);
  $("#round").textContent = missionTitle(s);
  const active = s.phase === "closing" || s.finished ? null : s.active;
  paint($("#kactive"), active);
  $("#kname").textContent = active ? playerName(s, active)
    : s.phase === "setup" ? t("Ready, penguins?") : s.phase === "closing" ? t("Mission confirmed") : "";
  $("#kplayers").replaceChildren(...(s.players || []).map((p) => {
    const tile = el("div", { class: `kplayer ${p.running ? "running" : ""} ${s.failed_colour === p.colour ? "out" : ""}`,
      dataset: { colour: p.colour } },
    el("div", { class: "kpname", text: playerName(s, p.colour) }),
    el("div", { class: "kptime", dataset: { colour: p.colour } }),
    el("div", { class: "kpfinger", text: s.phase === "closing" ? (p.held ? t("finger on ✓") : t("finger on your colour!")) : "" }));
    paint(tile, p.colour);
    return tile;
  }));
  const a = s.alerts || {};
  $("#kcards").replaceChildren(...Array.from({ length: a.total || 0 }, (_, i) =>
    el("span", { class: `kcard ${i < a.face_up ? "up" : ""} ${i === (a.total || 0) - 1 && i >= a.face_up ? "last" : ""}` })));
  $("#kalerttext").textContent = t("{down} face down · {up} face up", { down: a.remaining ?? 0, up: a.face_up ?? 0 });
  const text = banner(s);
  const node = $("#kbanner");
  node.textContent = text || "";
  node.className = `banner ${a.waiting && !s.finished ? "alert" : s.phase === "paused" ? "paused" : ""}`;
  node.classList.toggle("hidden", !text || s.finished);
  // How the players lift the mission button's protection now, and which button is which.
  $("#kprotection").textContent = s.protection || "";
  $("#kprotection").classList.toggle("off", s.cover_open === true);
  $("#kprotection").classList.toggle("hidden", !s.protection);
  $("#klegend").replaceChildren(...legendItems(s));
  $(".klegend").classList.toggle("hidden", !s.legend?.length || s.finished);
  $("#resultend").textContent = s.finished ? nextText(s) : "";
  const res = $("#result");
  res.classList.toggle("hidden", !s.finished);
  for (const o of OUTCOMES) res.classList.toggle(`kresult-${o}`, s.finished && (s.outcome || "abandoned") === o);
  if (s.finished) {
    $("#resulttitle").textContent = outcomeTitle(s);
    $("#resulttext").textContent = outcomeText(s);
  }
}

// The result box back as the other games show it.
export function leave() {
  for (const o of OUTCOMES) $("#result").classList.remove(`kresult-${o}`);
}

// A press the rules refused: said on the TV, in the players' words.
export function refused(r) {
  sayRefused($("#krefused"), r);
}

export const describe = (e, s) => describeEvent(e, s);

// The running clock; [its seconds left while played, the node that beats] for the last seconds' tick.
export function tick(s, board) {
  const active = s.phase === "closing" || s.finished ? null : s.active;
  const left = active ? clocks.left(active) : null;
  $("#ktimer").textContent = active ? fmtClock(left) : "";
  $("#kactive").classList.toggle("low", left !== null && left <= board.lastSeconds() && s.phase === "playing");
  for (const n of document.querySelectorAll(".kptime")) n.textContent = fmtClock(clocks.left(n.dataset.colour));
  return [s.phase === "playing" && left !== null ? left : null, $("#ktimer")];
}
