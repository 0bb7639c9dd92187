// Pengo Jump on the pages: the names of its ids (the service's, GET /api/games), what a
// game's events and results say, and the bits every page of it draws (the bag by kind, the
// players' order). Every rule is the engine's (the state's `actions`, `bag`, `home`,
// `tokens`); this only words and draws it. Shared by the game's parts of each page, which
// build their own nodes (marked data-game) so the shared pages hold none of this game.
import { el, t, tn } from "/static/common.js";
import { info } from "/static/games/index.js";

export const GAME = "pengo-jump";
export const KINDS = ["snowy", "sea_lion", "frosty"];
export const SIZES = ["small", "large"];
const names = (kind) => (info(GAME).names || {})[kind] || {};

export const kindName = (kind) => names("kind")[kind] || kind;
export const sizeName = (size) => names("size")[size] || size;
export const modeName = (mode) => names("mode")[mode] || mode;
export const outcomeName = (outcome) => names("outcome")[outcome] || null;
export const roleWord = (role) => names("role")[role] || role;
export const caption = (role) => names("caption")[role] || kindName(role);

// The game's own styles, once per page.
export function styles() {
  if (document.getElementById("pengo-style")) return;
  document.head.append(el("link", { id: "pengo-style", rel: "stylesheet", href: `/static/games/${GAME}/style.css` }));
}

// A player by their place in the order: the name the game master gave, else "Player 2".
export function playerName(s, index) {
  const p = ((s && s.players) || [])[index];
  return (p && p.name) || t("Player {n}", { n: (index ?? 0) + 1 });
}

// What the table is asked to do now, in one line.
export function banner(s) {
  if (s.finished) return outcomeTitle(s);
  const who = playerName(s, s.current);
  const key = (role) => (s.buttons && s.buttons[role] ? s.buttons[role].name : roleWord(role));
  if (s.phase === "draw") return t("{player}: draw an ice chunk, then press its button", { player: who });
  if (s.falls && s.last_turn) return t("A penguin fell on the last turn: the night has come");
  if (s.falls) return t("A penguin fell: {player}'s turn is over. {next}: draw an ice chunk", { player: who, next: playerName(s, s.next) });
  if (s.last_turn) return t("The bag is empty: {player} plays the last turn, then presses {end}", { player: who, end: key("end_turn") });
  return t("{player}: slide the chunk in, move one penguin if you like, then press {end}", { player: who, end: key("end_turn") });
}

export function outcomeTitle(s) {
  if (s.outcome === "won") return t("Every penguin is home before dark!");
  if (s.outcome === "lost") return t("Night fell on the ice");
  if (s.outcome === "abandoned") return t("Game abandoned");
  return t("In play");
}

export function outcomeText(s) {
  const out = (s.penguins ?? 4) - (s.home ?? 0);
  if (s.outcome === "won") return tn("You won with {n} chunk left in the bag.", "You won with {n} chunks left in the bag.", s.left ?? 0);
  if (s.outcome === "lost") return tn("The bag is empty and {n} penguin is still on the ice: you lost this time.",
    "The bag is empty and {n} penguins are still on the ice: you lost this time.", out);
  if (s.outcome === "abandoned") return t("No result: the game master abandoned this game.");
  return "";
}

// The mode and the turn, in one line (outside a template: the catalog's extractor reads no call inside one).
export function modeAndTurn(s) {
  const turn = t("Turn {n}", { n: s.turn });
  return [modeName(s.mode), turn].join(" · ");
}

export const stageName = (stage) => ({ day: t("Daylight"), evening: t("Evening"), dusk: t("Dusk"), night: t("Night") })[stage] || stage;

export function describeEvent(e, s) {
  const who = (i) => playerName(s, i);
  switch (e.type) {
    case "chunk_drawn": return tn("{player} drew a {kind} chunk · {n} left in the bag", "{player} drew a {kind} chunk · {n} left in the bag",
      e.left, { player: who(e.by), kind: kindName(e.kind) });
    case "daylight": return { evening: t("The sun is going down: evening"), dusk: t("Dusk: the sun touches the sea"),
      night: t("The last chunk is out: night is falling") }[e.stage] || e.stage;
    case "penguin_home": return t("A penguin reached the iceberg! {home} of 4 home", { home: e.home });
    case "penguin_fell": return t("A penguin fell off the sea board: {player}'s turn is over", { player: who(e.by) });
    case "sea_lion_token": return e.token
      ? t("A {size} sea lion token slides in", { size: sizeName(e.size) })
      : t("No {size} sea lion token is free: none slides in", { size: sizeName(e.size) });
    case "tokens_collected": return tn("{n} fallen {size} sea lion token collected back", "{n} fallen {size} sea lion tokens collected back",
      e.count, { size: sizeName(e.size) });
    case "token_fell": return t("A {size} sea lion token fell off the board", { size: sizeName(e.size) });
    case "turn_over": return t("{player}'s turn", { player: who(e.to) });
    case "all_home": return t("All four penguins home before dark: you won!");
    case "night_fell": return tn("Night fell with {n} penguin still on the ice", "Night fell with {n} penguins still on the ice", e.out);
    case "game_abandoned": return t("Game abandoned");
    default: return e.type;
  }
}

// The bag by kind: each kind's chunks left, a bar of its share and the odds of drawing it next.
export function bagRows(s) {
  const box = info(GAME).box || { chunks: {}, on_board: {} };
  const most = Math.max(1, ...KINDS.map((k) => (box.chunks[k] || 0) - (box.on_board[k] || 0)));
  return KINDS.map((k) => {
    const n = (s.bag || {})[k] ?? 0;
    const odds = Math.round(((s.odds || {})[k] || 0) * 100);
    return el("div", { class: `pkind kind-${k}`, dataset: { kind: k, count: n } },
      el("span", { class: "pkname", text: kindName(k) }),
      el("span", { class: "pkbar", "aria-hidden": "true" }, el("span", { style: `width:${(n / most) * 100}%` })),
      el("span", { class: "pkcount", text: String(n) }),
      el("span", { class: "pkodds", text: `${odds}%` }));
  });
}

// The players in their order, the one whose turn it is marked.
export function orderRow(s) {
  return (s.players || []).map((p, i) => el("li", { class: i === s.current ? "pnow" : "", dataset: { index: i },
    "aria-current": i === s.current ? "true" : null, text: playerName(s, i) }));
}

// The key of the panel's buttons: each named by what it is on this panel, and what it reports.
export function keyRows(s, roles) {
  const b = s.buttons || {};
  return roles.filter((r) => b[r]).map((r) => el("li", { dataset: { role: r } },
    el("span", { class: `pswatch c-${b[r].colour}`, "aria-hidden": "true" }),
    el("b", { text: b[r].name }), " ", el("span", { text: roleWord(r) })));
}

// A press the rules refused, said for a while on `node`: the reason and the button pressed.
const SAID_MS = 6000;
export function sayRefused(node, r) {
  node.textContent = r.plain ? t("{reason} ({control} pressed)", { reason: r.reason, control: r.plain }) : r.reason;
  node.classList.remove("hidden");
  clearTimeout(node.hideTimer);
  node.hideTimer = setTimeout(() => node.classList.add("hidden"), SAID_MS);
}
