// The simulator: every control of the layout drawn as the panel looks, clickable or
// draggable, lit by the same LED frames as the real panel, and feeding the same input
// path as the hardware (POST /api/sim/input).
//
// What a game says on it (its title, who plays, its captions under the controls) is the
// game's part of /sim: /static/games/<game>/sim.js.
import { $, el, api, post, t, onLanguage, connect, liveBadge, colourCss, inkCss, hasMatch, showGame }
  from "/static/common.js";
import { gameOf, info, parts } from "/static/games/index.js";

const SVGNS = "http://www.w3.org/2000/svg";
const games = await parts("sim");
const tokens = {};   // id -> control dict
const positions = {}; // id -> position shown
const buttons = {};   // id -> control dict
window.simTokens = tokens; // read by the browser test and handy from the console

function svg(tag, attrs = {}, ...children) {
  const e = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  for (const c of children) e.append(c);
  return e;
}

function error(msg) {
  const e = $("#error");
  e.textContent = msg || "";
  e.classList.toggle("hidden", !msg);
}

async function send(control, value) {
  try {
    await post("/api/sim/input", { control, value });
    error("");
  } catch (e) {
    const name = (tokens[control] || buttons[control] || {}).plain || t("the panel");
    error(e.status === 404 ? t("The simulator is off: start the cockpit with --sim.") : `${name}: ${e.message}`);
  }
}

// ---------------------------------------------------------------- buttons
// Several buttons held at once with one mouse or a keyboard (a Kaboom mission is closed
// with every player's finger on their colour): a button pressed with Shift, or while the
// "Hold buttons" switch is on, stays down (latched) until it is pressed again; Escape, or
// the switch turned off, lets go of every latched button. Multi-touch needs none of this.
const latched = new Map(); // id -> its let-go function
let holding = false; // the "Hold buttons" switch
// The buttons held down: id -> the pointer holding it (undefined: a key), and each one's
// let-go on its latest drawing. Kept across a redraw of the panel (START sets a new match
// up under the finger that pressed it): the new drawing shows it held, and lets it go.
const held = new Map();
const releasers = new Map();

function letGoAll() {
  for (const letGo of [...latched.values()]) letGo();
}

function holdSwitch(node) {
  const show = () => {
    node.setAttribute("aria-pressed", holding ? "true" : "false");
    node.textContent = holding ? t("Hold buttons: on") : t("Hold buttons: off");
    node.title = t("A button pressed while this is on (or with Shift) stays down until pressed again: several at once");
  };
  node.addEventListener("click", () => { holding = !holding; if (!holding) letGoAll(); show(); });
  onLanguage(show);
  show();
}

function buttonEl(c) {
  buttons[c.id] = c;
  const cap = el("span", { class: "cap" });
  cap.style.background = colourCss(c.colour);
  cap.style.color = inkCss(c.colour);
  if (c.shape === "triangle") {
    const dir = ["up", "down", "left", "right"].includes(c.role) ? c.role : c.name;
    const rot = { up: 0, right: 90, down: 180, left: 270 }[dir] || 0;
    cap.append(svg("svg", { viewBox: "-25 -25 50 50", width: 46, height: 46 },
      svg("polygon", { points: "0,-20 17,10 -17,10", fill: colourCss(c.colour), stroke: "#333", "stroke-width": 2.5,
        "stroke-linejoin": "round", transform: `rotate(${rot})` })));
  } else {
    cap.textContent = c.label || "";
  }
  const b = el("button", {
    class: `ctl btn ${c.shape}`, dataset: { control: c.id, colour: c.colour }, type: "button",
    title: c.plain, "aria-label": c.plain,
  }, cap, el("span", { class: "led" }));
  const latch = (on) => {
    b.classList.toggle("latched", on);
    b.setAttribute("aria-pressed", on ? "true" : "false");
    if (on) latched.set(c.id, () => { latch(false); release(); });
    else latched.delete(c.id);
  };
  const press = (ev) => {
    if (latched.has(c.id)) { latched.get(c.id)(); return; } // pressed again: let go
    if (held.has(c.id)) return;
    held.set(c.id, ev.pointerId); b.classList.add("pressed");
    if (ev.pointerId !== undefined) b.setPointerCapture(ev.pointerId);
    send(c.id, true);
    if (ev.shiftKey || holding) latch(true);
  };
  const release = () => {
    if (!held.has(c.id) || latched.has(c.id)) return; // a latched button stays down when the pointer or key goes up
    held.delete(c.id); b.classList.remove("pressed");
    send(c.id, false);
  };
  releasers.set(c.id, release);
  b.setAttribute("aria-pressed", "false");
  if (held.has(c.id)) b.classList.add("pressed"); // held through the redraw
  if (latched.has(c.id)) latch(true);
  b.addEventListener("pointerdown", (ev) => { ev.preventDefault(); press(ev); });
  b.addEventListener("pointerup", release);
  b.addEventListener("pointercancel", release);
  b.addEventListener("keydown", (ev) => { if ((ev.key === " " || ev.key === "Enter") && !ev.repeat) { ev.preventDefault(); press(ev); } });
  b.addEventListener("keyup", (ev) => { if (ev.key === " " || ev.key === "Enter") { ev.preventDefault(); release(); } });
  b.addEventListener("contextmenu", (ev) => ev.preventDefault());
  return b;
}

// ---------------------------------------------------------------- tokens
const DIALS = { round_lever: 120, knob: 300 };

function tokenSvg(c, pos) {
  const n = c.positions.length;
  const idx = Math.max(0, c.positions.indexOf(pos));
  const fill = colourCss(c.colour);
  const g = [];
  const k = c.token_kind;
  if (k === "switch" || k === "lever") {
    const w = k === "switch" ? 18 : 24;
    const top = ["up", "on", "1"].includes(pos);
    g.push(svg("rect", { x: -w / 2, y: -32, width: w, height: 64, rx: w / 2, fill: "#3a3d44" }));
    const hy = top ? -22 : 22;
    g.push(svg("line", { x1: 0, y1: 0, x2: 0, y2: hy, stroke: "#bbb", "stroke-width": 6 }));
    g.push(svg("circle", { cx: 0, cy: hy, r: k === "switch" ? 13 : 19, fill: k === "lever" ? fill : "#e9e9e9", stroke: "#222", "stroke-width": 2 }));
    return svg("svg", { viewBox: "-40 -40 80 80", width: 70, height: 70 }, ...g);
  }
  if (k === "click") {
    const on = ["on", "1", "down"].includes(pos);
    g.push(svg("rect", { x: -28, y: -28, width: 56, height: 56, rx: 9, fill: "#3a3d44" }));
    g.push(svg("circle", { cx: 0, cy: 0, r: on ? 18 : 23, fill, stroke: "#222", "stroke-width": 2 }));
    if (on) g.push(svg("circle", { cx: 0, cy: 0, r: 7, fill: "#fff8b0", stroke: "#333" }));
    return svg("svg", { viewBox: "-32 -32 64 64", width: 60, height: 60 }, ...g);
  }
  if (k === "slider") {
    g.push(svg("rect", { x: -4, y: -60, width: 8, height: 120, rx: 4, fill: "#3a3d44" }));
    c.positions.forEach((p, i) => {
      const y = 55 - (110 * i) / Math.max(1, n - 1);
      g.push(svg("line", { x1: -16, y1: y, x2: -8, y2: y, stroke: "#333", "stroke-width": 2 }));
      const label = svg("text", { x: -24, y: y + 4, "font-size": 11, "text-anchor": "middle", fill: "#222" });
      label.textContent = positionName(p); g.push(label);
    });
    const y = 55 - (110 * idx) / Math.max(1, n - 1);
    g.push(svg("rect", { x: -15, y: y - 8, width: 30, height: 16, rx: 4, fill, stroke: "#222", "stroke-width": 2 }));
    return svg("svg", { viewBox: "-34 -66 68 132", width: 56, height: 132, class: "slidersvg" }, ...g);
  }
  // round_lever and knob: a dial with labelled positions
  const spread = DIALS[k] || 300;
  const ang = (i) => (-spread / 2 + (spread * i) / Math.max(1, n - 1)) * Math.PI / 180;
  const r = k === "knob" ? 22 : 20;
  if (k === "knob") g.push(svg("circle", { cx: 0, cy: 0, r, fill, stroke: "#222", "stroke-width": 2 }));
  else g.push(svg("circle", { cx: 0, cy: 0, r: 9, fill: "#3a3d44" }));
  // The numbers beyond the handle's reach: the position it points at is never under its knob.
  const out = k === "knob" ? r + 13 : r + 16, reach = k === "knob" ? r + 2 : r - 2;
  c.positions.forEach((p, i) => {
    const label = svg("text", { x: Math.sin(ang(i)) * out, y: -Math.cos(ang(i)) * out + 4, "font-size": 11, "text-anchor": "middle", fill: "#222" });
    label.textContent = positionName(p); g.push(label);
  });
  const ex = Math.sin(ang(idx)) * reach, ey = -Math.cos(ang(idx)) * reach;
  if (k === "knob") g.push(svg("line", { x1: 0, y1: 0, x2: ex, y2: ey, stroke: "#fff", "stroke-width": 4, "stroke-linecap": "round" }));
  else {
    g.push(svg("line", { x1: 0, y1: 0, x2: ex, y2: ey, stroke: "#555", "stroke-width": 6, "stroke-linecap": "round" }));
    g.push(svg("circle", { cx: ex, cy: ey, r: 8, fill, stroke: "#222", "stroke-width": 2 }));
  }
  return svg("svg", { viewBox: "-45 -45 90 90", width: 80, height: 80, class: "dialsvg" }, ...g);
}

// A token's position as printed beside it: a word ("up", "on") in the page's language, a number as it is.
const positionName = (pos) => (/^[a-z]+$/.test(pos) ? t(pos) : pos);

function drawToken(id) {
  const c = tokens[id];
  const b = document.querySelector(`.ctl.tok[data-control="${CSS.escape(id)}"]`);
  if (!b) return;
  b.replaceChildren(tokenSvg(c, positions[id]), el("span", { class: "pos", text: positionName(positions[id]) }));
  b.dataset.position = positions[id];
  b.setAttribute("aria-label", t("{control}, at {position}", { control: c.plain, position: positionName(positions[id]) }));
}

function setPosition(id, pos) {
  if (positions[id] === pos) return;
  positions[id] = pos;
  drawToken(id);
  send(id, pos);
}

// The position under the pointer, for the tokens one drags.
function positionAt(c, b, ev) {
  const svgEl = b.querySelector("svg");
  const r = svgEl.getBoundingClientRect();
  const n = c.positions.length;
  if (c.token_kind === "slider") {
    const frac = 1 - (ev.clientY - r.top - r.height * (11 / 132)) / (r.height * (110 / 132));
    return c.positions[Math.max(0, Math.min(n - 1, Math.round(frac * (n - 1))))];
  }
  if (c.token_kind === "knob" || c.token_kind === "round_lever") {
    const dx = ev.clientX - (r.left + r.width / 2), dy = ev.clientY - (r.top + r.height / 2);
    if (Math.hypot(dx, dy) < 6) return null;
    const a = Math.atan2(dx, -dy) * 180 / Math.PI;
    const spread = DIALS[c.token_kind];
    let best = null, bestD = 1e9;
    c.positions.forEach((p, i) => {
      const pa = -spread / 2 + (spread * i) / Math.max(1, n - 1);
      const d = Math.abs(((a - pa + 540) % 360) - 180);
      if (d < bestD) { bestD = d; best = p; }
    });
    return best;
  }
  return null;
}

function stepPosition(c, delta) {
  const n = c.positions.length;
  const i = c.positions.indexOf(positions[c.id]);
  if (["switch", "click", "lever"].includes(c.token_kind) || n === 2) return c.positions[(i + 1) % n];
  return c.positions[(i + delta + n) % n];
}

function tokenEl(c) {
  tokens[c.id] = c;
  positions[c.id] = c.start;
  const b = el("button", { class: `ctl tok ${c.token_kind}`, type: "button", dataset: { control: c.id, kind: c.token_kind },
    title: ["slider", "knob", "round_lever"].includes(c.token_kind) ? t("{control}: drag, or click to step", { control: c.plain })
      : t("{control}: click to toggle", { control: c.plain }) });
  let drag = null;
  b.addEventListener("pointerdown", (ev) => {
    ev.preventDefault();
    b.setPointerCapture(ev.pointerId);
    drag = { x: ev.clientX, y: ev.clientY, moved: false };
  });
  b.addEventListener("pointermove", (ev) => {
    if (!drag) return;
    if (Math.hypot(ev.clientX - drag.x, ev.clientY - drag.y) > 6) drag.moved = true;
    if (drag.moved) { const p = positionAt(c, b, ev); if (p) setPosition(c.id, p); }
  });
  b.addEventListener("pointerup", (ev) => {
    if (!drag) return;
    const moved = drag.moved;
    drag = null;
    if (moved) return;
    if (c.token_kind === "slider") { const p = positionAt(c, b, ev); if (p && p !== positions[c.id]) { setPosition(c.id, p); return; } }
    setPosition(c.id, stepPosition(c, +1));
  });
  b.addEventListener("pointercancel", () => { drag = null; });
  b.addEventListener("keydown", (ev) => {
    const keys = { ArrowUp: +1, ArrowRight: +1, ArrowDown: -1, ArrowLeft: -1, " ": +1, Enter: +1 };
    if (!(ev.key in keys)) return;
    ev.preventDefault();
    const n = c.positions.length, i = c.positions.indexOf(positions[c.id]);
    const next = ["slider", "knob", "round_lever"].includes(c.token_kind) && ev.key.startsWith("Arrow")
      ? c.positions[Math.max(0, Math.min(n - 1, i + keys[ev.key]))] : stepPosition(c, keys[ev.key]);
    setPosition(c.id, next);
  });
  b.addEventListener("click", (ev) => ev.preventDefault());
  return b;
}

// ---------------------------------------------------------------- the panel
function build(layout, state) {
  letGoAll(); // no button left down on the service by a drawing that goes away
  // Drawn again for each match: its side changes the colours, the expansion the modules.
  $("#panel").replaceChildren();
  $("#cockpit").querySelectorAll(".ctl").forEach((n) => n.remove());
  for (const id of Object.keys(tokens)) delete tokens[id];
  // The game played, then what its part says of the panel (a side where the game has one).
  const caption = games.of(state)?.caption(layout) || [];
  $("#title").textContent = [info(gameOf(state)).title || layout.name, ...caption].filter(Boolean).join(" · ");
  const panel = $("#panel");
  panel.classList.toggle("gray", layout.side === "gray");
  const byId = Object.fromEntries(layout.controls.map((c) => [c.id, c]));
  const sections = Object.fromEntries(layout.sections.map((s) => [s.id, s]));
  // The modules in the panel's reading order (row by row), flowing into as many columns as
  // the screen holds: a phone scrolls down through them, never sideways.
  const modules = [...layout.modules].sort((a, b) => a.at[1] - b.at[1] || a.at[0] - b.at[0]);
  for (const m of modules) {
    const ctls = m.sections.flatMap((sid) => sections[sid].controls.map((id) => byId[id]));
    const cols = Math.max(...ctls.map((c) => c.at[0])) + 1;
    const grid = el("div", { class: "mgrid" });
    grid.style.gridTemplateColumns = `repeat(${cols}, auto)`;
    for (const c of ctls) {
      const node = c.kind === "token" ? tokenEl(c) : buttonEl(c);
      node.style.gridColumn = String(c.at[0] + 1);
      node.style.gridRow = String(c.at[1] + 1);
      grid.append(node);
    }
    const mod = el("section", { class: `module ${m.expansion ? "exp" : ""}`, dataset: { module: m.id },
      "aria-label": m.name }, el("h3", { text: m.name }), grid);
    panel.append(mod);
  }
  for (const c of layout.controls.filter((c) => c.section === "cockpit")) $("#cockpit").insertBefore(buttonEl(c), $("#pixels"));
  for (const id of Object.keys(tokens)) drawToken(id);
  fitPanel();
}

// On a tablet or a wider screen the whole panel is in sight, its bottom row too: drawn smaller
// (CSS zoom: the pointer's coordinates and the boxes stay in step) until the page fits the
// screen, never below 60 %. A phone scrolls down through the modules at full size instead.
const FIT_FROM = 900; // px wide: a tablet held sideways and anything wider
function fitPanel() {
  const panel = $("#panel");
  panel.style.zoom = "";
  if (window.innerWidth < FIT_FROM) return;
  const over = () => document.documentElement.scrollHeight > window.innerHeight;
  for (let zoom = 0.95; over() && zoom >= 0.6; zoom -= 0.05) panel.style.zoom = zoom.toFixed(2);
  panel.dataset.zoom = panel.style.zoom || "1";
}
window.addEventListener("resize", fitPanel);
new ResizeObserver(fitPanel).observe($(".statusline")); // a longer status line takes room from the panel

let lastLeds = null; // the latest lights, shown again on a panel drawn anew
function leds(msg) {
  lastLeds = msg;
  for (const b of document.querySelectorAll(".ctl.btn")) {
    const rgb = msg.buttons && msg.buttons[b.dataset.control];
    const led = b.querySelector(".led");
    const lit = rgb && (rgb[0] || rgb[1] || rgb[2]);
    led.style.boxShadow = lit ? `0 0 0 4px rgb(${rgb.join(",")}), 0 0 16px 6px rgb(${rgb.join(",")})` : "none";
    b.dataset.led = lit ? rgb.join(",") : "";
  }
  const px = $("#pixels");
  const pixels = msg.pixels || [];
  if (px.children.length !== pixels.length) px.replaceChildren(...pixels.map(() => el("span", { class: "pixel" })));
  pixels.forEach((rgb, i) => { px.children[i].style.background = `rgb(${rgb.join(",")})`; });
}

let builtFor;    // the match id the panel is drawn for ("none" before any match)
let building = null;

async function rebuild(matchId, state) {
  builtFor = matchId;
  try {
    build(await api("/api/layout"), state);
    if (lastLeds) leds(lastLeds);
  } catch (e) {
    error(t("Cannot read the layout: {why}", { why: e.message }));
  }
}

let lastState = null;
function show(s) {
  lastState = s;
  const matchId = String(s.match_id ?? "none");
  if (matchId !== builtFor && !building) {
    building = rebuild(matchId, s).finally(() => { building = null; show(s); });
    return;
  }
  // The service's view of the tokens wins (another page or the hardware may move them).
  for (const [id, pos] of Object.entries(s.positions || {})) {
    if (tokens[id] && positions[id] !== pos) { positions[id] = pos; drawToken(id); }
  }
  showGame($(".sim"), gameOf(s));
  $(".sim").dataset.phase = hasMatch(s) ? (s.finished ? "ended" : s.phase) : "idle";
  if (!hasMatch(s)) { $("#phase").textContent = t("No match: the panel is live, nothing is judged. Press START to play."); return; }
  games.of(s)?.show(s, { positionName });
}

function tick() {
  const part = lastState && hasMatch(lastState) ? games.of(lastState) : null;
  $("#secs").textContent = part ? part.seconds() : "–";
  requestAnimationFrame(tick);
}

// Draw the panel at once, for the match in play (drawn again only when the match changes).
try {
  const first = await api("/api/state");
  await rebuild(String(first.match_id ?? "none"), first);
} catch (e) {
  error(t("Cannot read the cockpit's state: {why}", { why: e.message }));
}
// Another language: the panel is drawn again in its words (the server's names of the controls too).
onLanguage(() => {
  if (building || builtFor === undefined) return;
  building = rebuild(builtFor, lastState).finally(() => { building = null; if (lastState) show(lastState); });
});
holdSwitch($("#hold"));
// A pointer let go off its button's drawing (the panel was drawn again under it, and the
// capture went with the old one): the button it held lets go all the same.
for (const type of ["pointerup", "pointercancel"]) {
  document.addEventListener(type, (ev) => {
    for (const [id, pointer] of [...held]) if (pointer === ev.pointerId && !latched.has(id)) releasers.get(id)?.();
  });
}
document.addEventListener("keydown", (ev) => { if (ev.key === "Escape") letGoAll(); });
connect("sim", {}, { status: liveBadge(), state: (m) => show(m.state), leds,
  refused: (m) => games.of(lastState)?.refused?.(m.refused, { positionName }) }); // a press refused: the game says why
requestAnimationFrame(tick);
