// The TV scoreboard: the draining timer, counters, mistakes, cards, whose turn, roles,
// scores, round, and the result at the end. Never shows the card. A Penguin Kaboom
// mission instead: every player's clock in their colour, the running one large, the alert
// cards, what the players must do now, and the result.
import { $, el, api, t, connect, liveBadge, Clock, fmtSeconds, describeEvent, hasMatch, pauseText }
  from "/static/common.js";
import { PENGUIN_CSS, PENGUIN_INK, KaboomClocks, describeKaboomEvent, fmtClock, isKaboom, kaboomBanner,
  missionTitle, outcomeText, outcomeTitle, playerName } from "/static/kaboom.js";

const clock = new Clock();
const clocks = new KaboomClocks();
let shown = null; // the last state: the timer shows nothing without a match, the full turn between turns
let joinFor = null; // the match (and its status) whose join code the QR code shows

function pips(node, n, total, cls) {
  node.replaceChildren(...Array.from({ length: Math.max(total, n) }, (_, i) =>
    el("span", { class: `pip ${cls} ${i < n ? "on" : ""}` })));
  node.setAttribute("aria-label", `${n} of ${total}`);
  node.dataset.count = String(n);
}

// While no turn runs, the tower's QR code and join code in the corner: the match's, or
// with none in play the next match's (its tower joins before START sets it up).
async function showJoin(s) {
  const show = !isKaboom(s) && (s.status !== "active" || s.finished || s.phase === "between_turns");
  $("#joinbox").classList.toggle("hidden", !show);
  const key = `${s.match_id}/${s.status}`; // a new match, or the end of one, brings another code
  if (!show || key === joinFor) return;
  joinFor = key;
  try {
    const j = await api("/api/join");
    $("#qr").innerHTML = j.qr_svg; // drawn by the server (segno): trusted markup
    $("#joincode").textContent = j.code;
  } catch (e) {
    joinFor = null; // asked again with the next state
    $("#joinbox").classList.add("hidden");
  }
}

function show(s) {
  clock.update(s);
  shown = s;
  showJoin(s);
  const noMatch = !hasMatch(s);
  $(".board").classList.toggle("nomatch", noMatch);
  $(".board").classList.toggle("kaboom", !noMatch && isKaboom(s));
  $("h1").textContent = !noMatch && isKaboom(s) ? "Penguin Kaboom" : "Penguin Airlines";
  if (!noMatch && isKaboom(s)) { showKaboom(s); return; }
  if (noMatch) {
    $("#team").textContent = t("Press START to play");
    $("#round").textContent = t("No match yet");
    $("#roles").textContent = t("Named teams and other rules: the game master's page (/admin).");
    $("#banner").classList.add("hidden");
    $("#result").classList.add("hidden");
    return;
  }
  const coop = s.mode === "cooperative";
  $("#round").textContent = coop && s.rounds ? `Round ${s.round} of ${s.rounds}` : `Round ${s.round}`;
  $("#team").textContent = coop ? "Cooperative flight" : `Turn: ${s.team}`;
  const crew = (s.roles && s.roles.crew) || [];
  $("#roles").textContent = s.roles ? `Tower: ${s.roles.tower || "–"} · Crew: ${crew.join(", ") || "–"}` : "";
  pips($("#done"), s.completed || 0, s.cards_per_turn, "done");
  pips($("#mistakes"), s.mistakes || 0, s.mistakes_per_turn, "mistake");
  pips($("#counters"), s.counters_held || 0, s.time_counters || 4, "");
  $("#pool").textContent = `held · ${s.counters_pool ?? 0} in the pool`;
  $("#stuck").textContent = s.stuck ? `stuck: ${s.stuck_name}` : "";

  const banner = $("#banner");
  let text = "", cls = "";
  if (s.phase === "paused") {
    const why = pauseText(s);
    cls = why && why.startsWith("Panel link") ? "lost" : "paused";
    text = why || `Challenge by ${s.challenge.team}: the game master rules`;
  } else if (s.phase === "between_turns" && !s.finished) {
    cls = "paused";
    text = t("Next: {team} — crew, reset the tokens, then press START", { team: s.team });
  }
  banner.textContent = text;
  banner.className = `banner ${cls}`;
  banner.classList.toggle("hidden", !text);

  const tbody = $("#scores");
  tbody.replaceChildren(...Object.entries(s.scores || {}).map(([team, pts]) =>
    el("tr", { class: team === s.team && !s.finished ? "active" : "", dataset: { team } },
      el("td", { text: team }), el("td", { class: "pts", text: String(pts) }))));
  $("#target").textContent = coop ? "" : `First to ${s.target_points} point${s.target_points === 1 ? "" : "s"} ends the game at the round's end.`;

  const res = $("#result");
  if (s.finished) {
    res.classList.remove("hidden");
    if (s.ended_by === "abandoned") {
      $("#resulttitle").textContent = "Match abandoned";
      $("#resulttext").textContent = "No result: the game master abandoned this match.";
    } else if (coop) {
      // The engine's tier and landing text are English; the catalog has them (panel/engine/cooperative.py).
      $("#resulttitle").textContent = s.tier ? t("{tier}!", { tier: t(s.tier) }) : t("Landed");
      $("#resulttext").textContent = s.outcome ? t(s.outcome) : "";
    } else {
      const w = Array.isArray(s.winner) ? s.winner : (s.winner ? [s.winner] : []);
      $("#resulttitle").textContent = w.length > 1 ? `Shared win: ${w.join(" & ")}` : w.length ? `${w[0]} wins!` : "Game over";
      $("#resulttext").textContent = Object.entries(s.scores || {}).map(([t, p]) => `${t}: ${p}`).join(" · ");
    }
  } else {
    res.classList.add("hidden");
  }
}

// ---------------------------------------------------------------- Penguin Kaboom
function paint(node, colour) {
  node.style.background = PENGUIN_CSS[colour] || "transparent";
  node.style.color = PENGUIN_INK[colour] || "#fff";
  node.className = node.className.replace(/\bpenguin-\w+/g, "").trim() + (colour ? ` penguin-${colour}` : "");
}

function showKaboom(s) {
  clocks.update(s);
  $("#round").textContent = missionTitle(s);
  const active = s.phase === "closing" || s.finished ? null : s.active;
  const big = $("#kactive");
  paint(big, active);
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
  const text = kaboomBanner(s);
  const banner = $("#kbanner");
  banner.textContent = text || "";
  banner.className = `banner ${a.waiting && !s.finished ? "alert" : s.phase === "paused" ? "paused" : ""}`;
  banner.classList.toggle("hidden", !text || s.finished);

  const res = $("#result");
  res.classList.toggle("hidden", !s.finished);
  if (s.finished) {
    $("#resulttitle").textContent = outcomeTitle(s);
    $("#resulttext").textContent = outcomeText(s);
  }
}

function tickKaboom() {
  const s = shown;
  const active = s.phase === "closing" || s.finished ? null : s.active;
  const left = active ? clocks.left(active) : null;
  $("#ktimer").textContent = active ? fmtClock(left) : "";
  $("#kactive").classList.toggle("low", left !== null && left <= 10 && s.phase === "playing");
  for (const n of document.querySelectorAll(".kptime")) n.textContent = fmtClock(clocks.left(n.dataset.colour));
}

function tick() {
  if (hasMatch(shown) && isKaboom(shown)) {
    tickKaboom();
    requestAnimationFrame(tick);
    return;
  }
  let left = clock.now();
  const timer = $("#timer");
  // Between turns the hourglass is full (the turn's seconds, dimmed); with no match, empty.
  const idle = !hasMatch(shown) || shown.finished;
  const waiting = !idle && (left === null || left === undefined);
  if (waiting) left = shown.turn_seconds;
  timer.textContent = idle ? "" : waiting ? String(left) : fmtSeconds(left);
  timer.classList.toggle("waiting", waiting);
  const low = left !== null && left <= 5 && clock.running;
  timer.classList.toggle("low", low);
  $("#bar").classList.toggle("low", low);
  $("#bar > div").style.transform = `scaleX(${left === null || waiting || idle ? 0 : Math.min(1, left / (clock.total || 30))})`;
  requestAnimationFrame(tick);
}

connect("board", {}, {
  status: liveBadge(),
  state: (m) => show(m.state),
  event: (m) => {
    $("#ticker").textContent = isKaboom(shown) ? describeKaboomEvent(m.event, shown) : describeEvent(m.event);
  },
});
requestAnimationFrame(tick);
