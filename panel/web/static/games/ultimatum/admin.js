// Penguin Ultimatum on the game master's page: the scorer's entry page, on a phone. The New
// match form seats the players (colour, name, performance card); during the game the page
// enters each performance, kinship penalty and player, undoes the last entry, corrects any
// earlier one, ends the game and asks who is shorter when the players tie on every count.
// Each entry is an action through the page's one action path (POST /api/admin/action).
// Which entries, values and players may be chosen is the state's `actions` (the engine's
// answer): the page keeps no rule. The game's part of /admin (admin.js): form(declared,
// page), word(), body(page), show(s, page), tick(s), describe(e, s), leave(page).
import { $, $$, el, t, tn } from "/static/common.js";
import { cardName, colourName, colours, entertainerColourName, animalName, entryText, formName, forms,
  describeEvent, kindName, paintPlayer, playerName, winnerText } from "/static/games/ultimatum/common.js";

let declared = null;
let built = false;
let state = null;
let page = null;
let correcting = null; // the number of the entry the forms correct, or null for a new entry
let tab = "performance";

// ---------------------------------------------------------------- the New match form
export function form(k, p) {
  page = p;
  if (declared || !k || !k.available) return;
  declared = k;
  const box = el("div", { class: "gamesetup useat", dataset: { game: "ultimatum" } },
    el("p", { class: "muted", id: "useathelp" }),
    ...k.colours.map((c) => paintPlayer(el("div", { class: "useatrow", dataset: { colour: c } },
      el("label", { class: "uplays" }, el("input", { type: "checkbox", class: "uplaying" }), el("span", { class: "ucolour" })),
      el("input", { type: "text", class: "uname", maxlength: 40 }),
      el("select", { class: "uform" }, ...k.forms.map((f) => el("option", { value: f })))), c)));
  $("#setupsubmit").before(box);
  // Each its own performance card to start with (the table deals them at random).
  $$(".useatrow", box).forEach((row, i) => { $(".uform", row).value = k.forms[i % k.forms.length]; });
  word();
}

export function word() {
  if (declared) {
    $("#useathelp").textContent = t("The players ({least} to {most}): their colour, name and performance card. More may sit down before the first performance.",
      { least: declared.least, most: declared.most });
    for (const row of $$(".useatrow")) {
      $(".ucolour", row).textContent = colourName(row.dataset.colour);
      $(".uplaying", row).setAttribute("aria-label", t("{colour} plays", { colour: colourName(row.dataset.colour) }));
      $(".uname", row).placeholder = t("name (optional)");
      $(".uname", row).setAttribute("aria-label", t("name"));
      $(".uform", row).setAttribute("aria-label", t("performance card"));
      for (const o of $(".uform", row).options) o.textContent = formName(o.value);
    }
  }
  if (built) wordSheet();
  if (state) show(state, page);
}

export function body() {
  return { players: $$(".useatrow").filter((r) => $(".uplaying", r).checked).map((r) => {
    const name = $(".uname", r).value.trim();
    return { player: r.dataset.colour, form: $(".uform", r).value, ...(name ? { name } : {}) };
  }) };
}

// ---------------------------------------------------------------- the sheet
const radios = (name, values) => el("div", { class: "uradios", role: "radiogroup" }, ...values.map((v) =>
  el("label", { class: "uradio", dataset: { value: v } }, el("input", { type: "radio", name, value: v }), el("span"))));
const picked = (name) => ($(`input[name="${name}"]:checked`) || {}).value;

function build() {
  if (built) return;
  built = true;
  const section = el("section", { id: "usheet", class: "card-box usheet", dataset: { game: "ultimatum" } },
    el("div", { id: "uscores", class: "uscores" }),
    el("div", { class: "utabs", role: "tablist" },
      ...["performance", "penalty", "add_player"].map((k) => el("button", { type: "button", class: "utab", dataset: { tab: k } }))),
    el("form", { id: "uperf", class: "uform", dataset: { kind: "performance" }, novalidate: true },
      el("h3", { class: "ulegend", id: "uperfhead" }),
      radios("ucolour", colours()), radios("uform", forms()),
      el("div", { id: "upoints", class: "upoints" }),
      el("button", { type: "submit", class: "primary big", id: "uperfgo" })),
    el("form", { id: "upen", class: "uform", dataset: { kind: "penalty" }, novalidate: true },
      el("h3", { class: "ulegend", id: "upenhead" }),
      el("div", { id: "upenwho", class: "uradios" }),
      el("label", { class: "uline" }, el("span", { id: "upenpointslabel" }),
        el("input", { id: "upenpoints", type: "number", inputmode: "numeric", min: 1, step: 1 })),
      el("label", { class: "uline" }, el("span", { id: "upencardlabel" }), el("select", { id: "upencard" })),
      el("button", { type: "submit", class: "primary big", id: "upengo" })),
    el("form", { id: "uadd", class: "uform", dataset: { kind: "add_player" }, novalidate: true },
      el("h3", { class: "ulegend", id: "uaddhead" }),
      el("label", { class: "uline" }, el("span", { id: "uaddcolourlabel" }), el("select", { id: "uaddcolour" })),
      el("label", { class: "uline" }, el("span", { id: "uaddnamelabel" }), el("input", { id: "uaddname", type: "text", maxlength: 40 })),
      el("label", { class: "uline" }, el("span", { id: "uaddformlabel" }), el("select", { id: "uaddform" })),
      el("button", { type: "submit", class: "primary big", id: "uaddgo" })),
    el("p", { id: "ucorrecting", class: "notice hidden" }, el("span"), el("button", { type: "button", id: "ucancel" })),
    el("p", { id: "umsg", class: "error hidden", role: "alert" }),
    el("div", { class: "ubar" }, el("button", { type: "button", id: "uundo", class: "big" }),
      el("button", { type: "button", id: "uend", class: "danger big" })),
    el("div", { id: "utie", class: "utie hidden" }, el("h3", { id: "utiehead" }), el("div", { id: "utiewho", class: "uradios" })),
    el("div", { id: "ufinal", class: "ufinal hidden" }, el("h3", { id: "ufinalhead" }), el("ul", { id: "ulines" })),
    el("h3", { id: "uentrieshead" }),
    el("ol", { id: "uentries", class: "uentries" }));
  $("#now").after(section);
  for (const b of $$(".utab", section)) b.addEventListener("click", () => { tab = b.dataset.tab; showTab(); });
  for (const r of $$("input[name=ucolour]", section)) r.addEventListener("change", offerForms);
  $("#uperf").addEventListener("submit", (ev) => { ev.preventDefault(); enterPerformance(); });
  $("#upen").addEventListener("submit", (ev) => { ev.preventDefault(); enterPenalty(); });
  $("#uadd").addEventListener("submit", (ev) => { ev.preventDefault(); enterPlayer(); });
  $("#upenpoints").addEventListener("input", () => { if ($("#upenpoints").value) $("#upencard").value = ""; });
  $("#upencard").addEventListener("change", () => { if ($("#upencard").value) $("#upenpoints").value = ""; });
  $("#uundo").addEventListener("click", () => send("undo"));
  $("#uend").addEventListener("click", () => {
    const lines = Object.values(state.lines_if_ended || {}).join("\n");
    const question = t("End the game and count the entertainer cards?");
    if (confirm(`${question}\n\n${lines}`)) send("end");
  });
  $("#ucancel").addEventListener("click", () => stopCorrecting());
  wordSheet();
}

function wordSheet() {
  const tabs = { performance: t("Performance"), penalty: t("Kinship penalty"), add_player: t("Player") };
  for (const b of $$(".utab")) b.textContent = tabs[b.dataset.tab];
  $("#uperfhead").textContent = t("The entertainer, and each player's points");
  for (const l of $$('#uperf .uradio')) {
    const v = l.dataset.value;
    $("span", l).textContent = l.closest(".uradios").querySelector("input").name === "ucolour"
      ? `${animalName(v)} (${entertainerColourName(v)})` : formName(v);
  }
  $("#upenhead").textContent = t("Who placed the penguin, and what they pay");
  $("#upenpointslabel").textContent = t("Points (the adjacent same-colour numbers added up)");
  $("#upencardlabel").textContent = t("or an entertainer card given up instead");
  $("#uaddhead").textContent = t("A player sits down (before the first performance)");
  $("#uaddcolourlabel").textContent = t("Colour");
  $("#uaddnamelabel").textContent = t("Name");
  $("#uaddformlabel").textContent = t("Performance card");
  $("#uend").textContent = t("End the game");
  $("#utiehead").textContent = t("Tied on every count: who is shorter?");
  $("#ufinalhead").textContent = t("The end, line by line");
  $("#uentrieshead").textContent = t("The score sheet");
  $("#ucancel").textContent = t("Cancel the correction");
}

function showTab() {
  const allowed = (state && state.actions) || {};
  for (const b of $$(".utab")) {
    b.classList.toggle("on", b.dataset.tab === tab);
    b.setAttribute("aria-selected", String(b.dataset.tab === tab));
    b.disabled = !(b.dataset.tab in allowed) && !(correcting && b.dataset.tab === correctingKind());
  }
  for (const f of $$(".usheet .uform")) f.classList.toggle("hidden", f.dataset.kind !== tab);
}

const correctingKind = () => (state.entries.find((r) => r.entry === correcting) || {}).kind;

// The forms a correction may choose from: any card, colour or form (the engine answers).
function offerForms() {
  const allowed = (state && state.actions) || {};
  const remaining = new Set((allowed.performance || {}).card || []);
  const colour = picked("ucolour");
  const editing = correcting && correctingKind() === "performance" ? state.entries.find((r) => r.entry === correcting).card : null;
  for (const input of $$("input[name=uform]")) {
    const card = colour ? `${colour}-${input.value}` : null;
    input.disabled = !!card && !remaining.has(card) && card !== editing;
    if (input.disabled && input.checked) input.checked = false;
  }
}

function showScores(s) {
  $("#uscores").replaceChildren(...(s.players || []).map((p) => paintPlayer(el("div", { class: "uscore" },
    el("span", { class: "usname", text: playerName(s, p.player) }),
    el("span", { class: "uspoints", text: String(p.score) }),
    el("span", { class: "uscards", text: p.cards.length ? tn("{n} card", "{n} cards", p.cards.length, { n: p.cards.length }) : "" })), p.player)));
}

function showPoints(s) {
  const keep = {};
  for (const i of $$("#upoints input")) keep[i.dataset.player] = i.value;
  $("#upoints").replaceChildren(...(s.players || []).map((p) => paintPlayer(el("label", { class: "upoint" },
    el("span", { text: playerName(s, p.player) }),
    el("input", { type: "number", inputmode: "numeric", min: 0, step: 1, value: keep[p.player] ?? "", placeholder: "0",
      dataset: { player: p.player } })), p.player)));
}

function showPenalty(s) {
  const allowed = (s.actions || {}).penalty || { player: [], card: [] };
  const who = picked("upenplayer");
  $("#upenwho").replaceChildren(...(s.players || []).map((p) => paintPlayer(el("label", { class: "uradio", dataset: { value: p.player } },
    el("input", { type: "radio", name: "upenplayer", value: p.player, checked: p.player === who,
      onchange: () => showPenaltyCards(s) }), el("span", { text: playerName(s, p.player) })), p.player)));
  showPenaltyCards(s);
}

function showPenaltyCards(s) {
  const who = picked("upenplayer");
  const p = (s.players || []).find((x) => x.player === who);
  const keep = $("#upencard").value;
  $("#upencard").replaceChildren(el("option", { value: "", text: t("no card: pay the points") }),
    ...((p && p.cards) || []).map((c) => el("option", { value: c, text: cardName(c) })));
  if ([...$("#upencard").options].some((o) => o.value === keep)) $("#upencard").value = keep;
}

function showAdd(s) {
  const a = (s.actions || {}).add_player || { player: [], form: [] };
  const fill = (sel, values, name) => {
    const keep = sel.value;
    sel.replaceChildren(...values.map((v) => el("option", { value: v, text: name(v) })));
    if (values.includes(keep)) sel.value = keep;
  };
  fill($("#uaddcolour"), a.player, colourName);
  fill($("#uaddform"), a.form, formName);
}

function showEntries(s) {
  const correctable = new Set(((s.actions || {}).correct || {}).entry || []);
  $("#uentries").replaceChildren(...[...(s.entries || [])].reverse().map((r) => el("li", { class: "uentry", value: r.entry, dataset: { entry: r.entry, kind: r.kind } },
    el("span", { class: "uentrytext", text: r.kind === "end" ? entryText(r, s) : `${kindName(r.kind)} · ${entryText(r, s)}` }),
    correctable.has(r.entry) ? el("button", { type: "button", class: "ufix", text: t("Correct"), onclick: () => startCorrecting(r) }) : null)));
}

function showEnd(s) {
  const tie = (s.actions || {}).shorter;
  $("#utie").classList.toggle("hidden", !tie);
  $("#utiewho").replaceChildren(...((tie && tie.player) || []).map((p) => paintPlayer(el("button", { type: "button", class: "big ushorter",
    text: playerName(s, p), onclick: () => send("shorter", { player: p }) }), p)));
  $("#ufinal").classList.toggle("hidden", !s.final);
  $("#ulines").replaceChildren(...Object.values(s.lines || {}).map((line) => el("li", { text: line })));
  const undo = s.undo;
  $("#uundo").textContent = undo ? (undo.undid === "correction" ? t("Undo the correction of entry {n}", { n: undo.entry })
    : t("Undo entry {n} ({kind})", { n: undo.entry, kind: kindName(undo.undid) })) : t("Undo");
  $("#uundo").disabled = !("undo" in (s.actions || {}));
  $("#uend").disabled = !("end" in (s.actions || {}));
}

export function show(s, p) {
  page = p || page;
  state = s;
  build();
  $("#phase").textContent = s.finished ? winnerText(s) || t("Game over")
    : s.phase === "tie" ? t("Tied on every count: who is shorter?") : s.phase === "setup" ? t("Players sitting down") : t("Scoring");
  $("#whose").textContent = "";
  $("#counts").textContent = t("{n} entertainers yet to perform · {out} out of the game", { n: (s.pile || []).length, out: (s.out || []).length });
  const allowed = s.actions || {};
  if (!(tab in allowed) && !correcting) tab = ["performance", "add_player", "penalty"].find((k) => k in allowed) || tab;
  // Once the end is entered, no more entries; undo stays while the page asks who is shorter.
  for (const n of [".utabs", "#uperf", "#upen", "#uadd"]) $(n).classList.toggle("othergame", !!s.final || s.finished);
  $(".ubar").classList.toggle("othergame", s.finished);
  showScores(s);
  showPoints(s);
  showPenalty(s);
  showAdd(s);
  showEntries(s);
  showEnd(s);
  showTab();
  offerForms();
  wordGo();
}

function wordGo() {
  const c = correcting;
  $("#ucorrecting").classList.toggle("hidden", !c);
  $("#ucorrecting span").textContent = c ? t("Correcting entry {n}: change it and save; the scores after it are recomputed.", { n: c }) : "";
  $("#uperfgo").textContent = c ? t("Save the correction") : t("Enter the performance");
  $("#upengo").textContent = c ? t("Save the correction") : t("Enter the penalty");
  $("#uaddgo").textContent = c ? t("Save the correction") : t("Add the player");
}

// ---------------------------------------------------------------- entering
function message(text) {
  $("#umsg").textContent = text || "";
  $("#umsg").classList.toggle("hidden", !text);
}

async function send(name, params = {}) {
  message("");
  const entry = correcting;
  const r = correcting ? await page.action("correct", { entry, ...params }) : await page.action(name, params);
  if (!r) { message($("#error").textContent); return false; }
  stopCorrecting();
  return true;
}

async function enterPerformance() {
  const colour = picked("ucolour"), form = picked("uform");
  if (!colour || !form) { message(t("Choose the entertainer's colour and form.")); return; }
  const points = {};
  for (const i of $$("#upoints input")) {
    const v = i.value.trim();
    if (v && !/^\d+$/.test(v)) { message(t("Points are whole numbers, 0 or more.")); return; }
    points[i.dataset.player] = v ? Number(v) : 0;
  }
  if (await send("performance", { colour, form, points })) {
    for (const i of $$("#upoints input")) i.value = "";
    for (const i of $$("#uperf input[type=radio]")) i.checked = false;
  }
}

async function enterPenalty() {
  const player = picked("upenplayer");
  if (!player) { message(t("Choose who placed the penguin.")); return; }
  const card = $("#upencard").value, points = $("#upenpoints").value.trim();
  if (!card && !/^\d+$/.test(points)) { message(t("Enter the penalty's points, or choose a card to give up.")); return; }
  if (await send("penalty", card ? { player, card } : { player, points: Number(points) })) {
    $("#upenpoints").value = "";
    $("#upencard").value = "";
  }
}

async function enterPlayer() {
  const name = $("#uaddname").value.trim();
  if (await send("add_player", { player: $("#uaddcolour").value, form: $("#uaddform").value, ...(name ? { name } : {}) })) {
    $("#uaddname").value = "";
  }
}

// A correction: the entry's form, filled with what it says, saved as a correction.
function startCorrecting(r) {
  correcting = r.entry;
  tab = r.kind;
  if (r.kind === "performance") {
    for (const i of $$("input[name=ucolour]")) i.checked = i.value === r.colour;
    for (const i of $$("input[name=uform]")) i.checked = i.value === r.form;
    for (const i of $$("#upoints input")) i.value = String((r.points || {})[i.dataset.player] ?? "");
  } else if (r.kind === "penalty") {
    for (const i of $$("input[name=upenplayer]")) i.checked = i.value === r.player;
    showPenaltyCards(state);
    $("#upencard").value = r.card || "";
    $("#upenpoints").value = r.points ?? "";
  } else {
    const colour = $("#uaddcolour"), formSel = $("#uaddform");
    colour.replaceChildren(el("option", { value: r.player, text: colourName(r.player) }));
    formSel.replaceChildren(...forms().map((f) => el("option", { value: f, text: formName(f) })));
    formSel.value = r.form;
    $("#uaddname").value = r.name || "";
  }
  showTab();
  offerForms();
  wordGo();
  $("#usheet").scrollIntoView({ block: "start" });
}

function stopCorrecting() {
  if (!correcting) return;
  correcting = null;
  if (state) show(state, page);
}

export function tick() {}

export const describe = (e, s) => describeEvent(e, s);

export function leave() {
  correcting = null;
}
