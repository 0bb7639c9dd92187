// Penguin Kaboom on the game master's page: the New match form's penguins, difficulty and
// mission (as the missions file and the layout declare them: /api/admin/status), the
// mission now (its phase, whose clock runs, the alert cards, every clock). The buttons are
// the page's (enabled exactly when the state's actions list them). The game's part of
// /admin (admin.js): form(declared, page), word(), body(page), show(s, page), tick(s),
// describe(e, s).
import { $, $$, el, t, tn } from "/static/common.js";
import { Clocks, banner, colourName, describeEvent, difficultyName, fmtClock, missionTitle, outcomeTitle, paint,
  playerName } from "/static/games/kaboom/common.js";

const clocks = new Clocks();
let declared = null; // the missions, penguins and limits this panel offers (built once)

function numbers(r) {
  // Each part worded on its own line: the catalog's extractor reads no call inside another's arguments
  // (so "may go above the start" stayed English in Spanish).
  const cap = r.recharge_above_start ? t("may go above the start") : t("never above the start");
  const cards = tn("{n} alert card ({up} face up)", "{n} alert cards ({up} face up)", r.alerts, { up: r.alerts_face_up });
  return t("{seconds} s each, an alert every {alert} s, recharge {recharge} s ({cap}), {cards}", {
    seconds: r.time_per_player, alert: r.alert_seconds, recharge: r.recharge_seconds, cap, cards });
}

// The form from the game's declaration, once: the penguins this panel has a button for, the
// difficulties, every mission's numbers, the custom mission's starting values and limits.
export function form(k) {
  if (declared || !k || !k.available) return;
  declared = k;
  $("#kpenguins").replaceChildren(...k.colours.map((c) => {
    const box = el("label", { class: "kpenguin", dataset: { colour: c } },
      el("input", { type: "checkbox", class: "kplays" }), el("span"), el("input", { type: "text", class: "kname" }));
    paint(box, c);
    return box;
  }));
  $("#kdifficulty").replaceChildren(...k.difficulties.map((d) => el("option", { value: d })));
  $("#kmission").replaceChildren(...k.missions.map((m) => el("option", { value: String(m.number) })),
    el("option", { value: "custom" }));
  // The custom mission's numbers: fields with the engine's limits, starting from the file's values.
  $("#kcustom").replaceChildren(...Object.entries(k.custom).filter(([name]) => name !== "name").map(([name, v]) => {
    const input = typeof v === "boolean"
      ? el("select", { id: `kc_${name}` }, el("option", { value: "false" }), el("option", { value: "true" }))
      : el("input", { id: `kc_${name}`, type: "number", min: k.limits[name][0], max: k.limits[name][1], step: 1 });
    input.value = String(v);
    input.addEventListener("input", preview);
    return el("label", { dataset: { custom: name } }, el("span"), input);
  }));
  const d = k.defaults || {};
  if (d.difficulty) $("#kdifficulty").value = d.difficulty;
  if (d.mission !== undefined) $("#kmission").value = String(d.mission);
  for (const sel of [$("#kdifficulty"), $("#kmission")]) sel.addEventListener("change", preview);
  word();
}

// The form's words in the page's language (again when it changes).
export function word() {
  if (!declared) return;
  for (const box of $$("#kpenguins .kpenguin")) {
    const c = box.dataset.colour;
    $(".kplays", box).setAttribute("aria-label", t("{colour} penguin plays", { colour: colourName(c) }));
    $("span", box).textContent = colourName(c);
    $(".kname", box).placeholder = t("name (optional)");
    $(".kname", box).setAttribute("aria-label", t("name"));
  }
  for (const o of $("#kdifficulty").options) o.textContent = difficultyName(o.value);
  for (const o of $("#kmission").options) {
    o.textContent = o.value === "custom" ? t("Custom mission") : t("Mission {number}", { number: o.value });
  }
  for (const label of $$("#kcustom label")) {
    label.title = t(declared.words[label.dataset.custom]);
    $("span", label).textContent = label.title;
    for (const o of $("select", label)?.options || []) o.textContent = o.value === "true" ? t("Yes") : t("No");
  }
  preview();
}

function custom() {
  const out = {};
  for (const [name, v] of Object.entries(declared.custom)) {
    if (name === "name") continue;
    const e = $(`#kc_${name}`);
    out[name] = typeof v === "boolean" ? e.value === "true" : Number(e.value);
  }
  return out;
}

function preview() {
  const mission = $("#kmission").value;
  $("#kcustom").classList.toggle("hidden", mission !== "custom");
  const m = declared.missions.find((x) => String(x.number) === mission);
  $("#kpreview").textContent = numbers(m ? m.rules[$("#kdifficulty").value] : custom());
}

// The New match form's answer: the penguins ticked (with their names), the difficulty, the mission.
export function body() {
  const players = $$("#kpenguins .kpenguin").filter((b) => $(".kplays", b).checked).map((b) => {
    const name = $(".kname", b).value.trim();
    return name ? { colour: b.dataset.colour, name } : b.dataset.colour;
  });
  const mission = $("#kmission").value;
  const out = { players, difficulty: $("#kdifficulty").value, mission: mission === "custom" ? "custom" : Number(mission) };
  if (mission === "custom") out.custom = custom();
  return out;
}

export function show(s) {
  clocks.update(s);
  $("#pause").textContent = t("Pause the clocks");
  $("#resume").textContent = t("Resume the clocks");
  const phase = { setup: t("waiting for the start"), playing: t("playing"), paused: t("paused"),
    closing: t("closing: every finger on its colour") }[s.phase] || s.phase;
  const said = banner(s);
  $("#phase").textContent = s.finished ? outcomeTitle(s) : `${phase}${said ? ` · ${said}` : ""}`;
  $("#whose").textContent = `· ${missionTitle(s)}${s.active && !s.finished ? ` · ${playerName(s, s.active)}` : ""}`;
  const a = s.alerts || {};
  const waiting = tn("{n} waiting", "{n} waiting", a.waiting ?? 0); // "1 pendiente", "2 pendientes"
  const cards = t("{down} face down, {up} face up, {waiting}", { down: a.remaining ?? 0, up: a.face_up ?? 0, waiting });
  $("#counts").textContent = t("Alert cards") + ": " + cards;
}

export function tick(s) {
  $("#left").textContent = s.active && !s.finished ? fmtClock(clocks.left(s.active)) : "";
  const each = (s.players || []).map((p) => `${playerName(s, p.colour)} ${fmtClock(clocks.left(p.colour))}`).join(" · ");
  const label = t("Clocks"); // outside the template: the catalog's extractor reads no call inside one
  $("#scoreline").textContent = each ? `${label}: ${each}` : "";
}

export const describe = (e, s) => describeEvent(e, s);
