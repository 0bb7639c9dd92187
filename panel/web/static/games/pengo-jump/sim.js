// Pengo Jump on the simulator: what each button reports in the game, written under it ("drew
// a snowy chunk" under the white beacon ...) from the state's own mapping, and what the
// table is asked to do now. The game's part of /sim (sim.js): caption(layout), show(s, sim), seconds().
import { $, el } from "/static/common.js";
import { banner, caption as captionOf, sayRefused, styles } from "/static/games/pengo-jump/common.js";

styles();
let shown = null;

// The title's words after the game's name: none (the game uses a few buttons, either side).
export const caption = () => [];

function captions(s) {
  document.querySelectorAll(".pcap").forEach((n) => n.remove());
  const allowed = s.actions || {};
  for (const [role, id] of Object.entries(s.panel || {})) {
    if (!s.tokens && /^(small|large)_/.test(role)) continue; // Happy Penguins: no sea lion reports
    if (role === "start" && !s.finished) continue;
    const c = document.querySelector(`.ctl[data-control="${CSS.escape(id)}"]`);
    if (c) c.append(el("span", { class: "pcap", dataset: { role, allowed: String(role in allowed) }, text: captionOf(role) }));
  }
}

export function show(s) {
  shown = s;
  captions(s);
  $("#phase").textContent = banner(s);
}

// The status line's "Time": the chunks left in the bag (the game's only clock is the daylight).
export const seconds = () => (shown ? `${shown.left} / ${shown.in_bag}` : "–");

// A press the rules refused: said under the status line.
export const refused = (r) => sayRefused($("#refused"), r);
