// Pengo Jump on the game master's page: the New match form (the mode, the players in their
// order, each name optional) and the game now (whose turn, the bag, the penguins home, the
// tokens), with every report the panel's buttons make as a button here too (enabled exactly
// when the state's actions allow it). Its nodes are built here and marked data-game.
// The game's part of /admin (admin.js): form(declared, page), word(), body(page), show(s, page), tick(s), describe(e, s).
import { $, $$, el, t } from "/static/common.js";
import { GAME, KINDS, SIZES, describeEvent, kindName, modeAndTurn, modeName, outcomeTitle, playerName, sizeName, styles }
  from "/static/games/pengo-jump/common.js";

styles();
let declared = null;
let page = null;

// The reports, as buttons: [action, its parameters].
const REPORTS = [...KINDS.map((kind) => ["draw", { kind }]), ["home", {}], ["fell", {}],
  ...SIZES.map((size) => ["sea_lion", { size }]), ...SIZES.map((size) => ["token_fell", { size }]), ["end_turn", {}]];
const reports = el("div", { class: "pjactions", id: "pjreports", dataset: { game: GAME } },
  REPORTS.map(([name, params]) => el("button", { type: "button", class: "big", dataset: { pjaction: name, ...params },
    onclick: () => page && page.action(name, params) })));
$("#now .actions")?.after(reports);

function label(name, params) {
  switch (name) {
    case "draw": return t("Drew a {kind} chunk", { kind: kindName(params.kind) });
    case "home": return t("A penguin reached the iceberg");
    case "fell": return t("A penguin fell off");
    case "sea_lion": return t("Hopped onto a {size} sea lion", { size: sizeName(params.size) });
    case "token_fell": return t("A {size} sea lion token fell", { size: sizeName(params.size) });
    case "end_turn": return t("End of the turn");
    default: return name;
  }
}

// The form, once: the mode and as many players' names as chosen (1 to the game's most).
export function form(k, lent) {
  page = lent;
  if (declared || !k) return;
  declared = k;
  const box = el("div", { class: "gamesetup", dataset: { game: GAME } },
    el("div", { class: "row" },
      el("label", {}, el("span", { id: "pjmodelabel" }), " ", el("select", { id: "pjmode" },
        k.modes.map((m) => el("option", { value: m })))),
      el("label", {}, el("span", { id: "pjcountlabel" }), " ", el("input", { id: "pjcount", type: "number", min: 1,
        max: k.max_players, step: 1, value: 1 }))),
    el("p", { class: "muted", id: "pjorder" }),
    el("div", { id: "pjplayers", class: "pjplayers" }));
  $("#setupsubmit").before(box);
  const d = k.defaults || {};
  if (d.mode) $("#pjmode").value = d.mode;
  const names = Array.isArray(d.players) ? d.players : [];
  $("#pjcount").value = String(Array.isArray(d.players) ? d.players.length : d.players || 1);
  $("#pjcount").addEventListener("input", () => players());
  players(names);
  word();
}

function players(names = null) {
  const n = Math.max(1, Math.min(declared.max_players, Number($("#pjcount").value) || 1));
  const was = names || $$("#pjplayers input").map((i) => i.value);
  $("#pjplayers").replaceChildren(...Array.from({ length: n }, (_, i) =>
    el("input", { type: "text", class: "pjname", maxlength: 30, value: was[i] || "" })));
  word();
}

export function word() {
  for (const b of $$("#pjreports button")) b.textContent = label(b.dataset.pjaction, b.dataset);
  if (!declared) return;
  $("#pjmodelabel").textContent = t("Mode");
  $("#pjcountlabel").textContent = t("Players");
  $("#pjorder").textContent = t("In the order they play (the best penguin impression first); a name is optional");
  for (const o of $("#pjmode").options) o.textContent = modeName(o.value);
  $$("#pjplayers input").forEach((input, i) => {
    input.placeholder = t("Player {n}", { n: i + 1 });
    input.setAttribute("aria-label", t("Player {n}", { n: i + 1 }));
  });
}

export function body() {
  return { mode: $("#pjmode").value, players: $$("#pjplayers input").map((i) => i.value.trim()) };
}

export function show(s, lent) {
  page = lent || page;
  const allowed = s.actions || {};
  $("#phase").textContent = s.finished ? outcomeTitle(s) : modeAndTurn(s);
  $("#whose").textContent = s.finished ? "" : `· ${playerName(s, s.current)}`;
  $("#left").textContent = t("In the bag: {bag}", { bag: KINDS.map((k) => `${s.bag[k]} ${kindName(k)}`).join(", ") });
  $("#counts").textContent = ["", t("Penguins home: {home} of 4", { home: s.home }),
    s.tokens ? t("Sea lion tokens left: {small} small, {large} large", { small: s.tokens.small.free, large: s.tokens.large.free }) : null]
    .filter(Boolean).join(" · ");
  for (const b of $$("#pjreports button")) {
    const options = allowed[b.dataset.pjaction];
    const param = b.dataset.kind ? ["kind", b.dataset.kind] : b.dataset.size ? ["size", b.dataset.size] : null;
    const ok = !!options && (!param || (options[param[0]] || []).includes(param[1]));
    b.disabled = !ok;
    b.classList.toggle("hidden", !ok);
  }
}

export function tick() {}

export const describe = (e, s) => describeEvent(e, s);
