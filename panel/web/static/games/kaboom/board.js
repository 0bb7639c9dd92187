// Penguin Kaboom on the TV scoreboard: every player's clock in their colour, the running one
// large, the alert cards, what the players must do now, and the result (its own sounds).
// The game's part of the board (board.js): show(s, board), describe(e, s), tick(s, board).
import { $, el, t } from "/static/common.js";
import { Clocks, banner, describeEvent, fmtClock, missionTitle, outcomeText, outcomeTitle, paint, playerName }
  from "/static/games/kaboom/common.js";

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
  $("#resultend").textContent = "";
  const res = $("#result");
  res.classList.toggle("hidden", !s.finished);
  if (s.finished) {
    $("#resulttitle").textContent = outcomeTitle(s);
    $("#resulttext").textContent = outcomeText(s);
  }
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
