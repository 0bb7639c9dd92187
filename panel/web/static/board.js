// The TV scoreboard: the draining timer, counters, mistakes, cards, whose turn, roles,
// scores, round, and the result at the end. Never shows the card.
import { $, el, api, t, connect, liveBadge, Clock, fmtSeconds, describeEvent, hasMatch, pauseText }
  from "/static/common.js";

const clock = new Clock();
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
  const show = s.status !== "active" || s.finished || s.phase === "between_turns";
  $("#joinbox").classList.toggle("hidden", !show);
  const key = `${s.match_id}/${s.status}`; // a new match, or the end of one, brings another code
  if (!show || key === joinFor) return;
  joinFor = key;
  try {
    const j = await api("/api/join");
    $("#qr").innerHTML = j.qr_svg; // drawn by the server (segno): trusted markup
    $("#joincode").textContent = j.code;
  } catch (e) {
    // Asked again with the next state, unless this screen may not have the code (not a room
    // screen: pair it on /join); then again when the match changes.
    if (e.status !== 403) joinFor = null;
    $("#joinbox").classList.add("hidden");
  }
}

function show(s) {
  clock.update(s);
  shown = s;
  // The store cannot write (a full card): nothing pressed counts until it can, so the room is told.
  $("#saveerror").textContent = s.store_error
    ? t("The cockpit cannot save ({reason}): presses do not count until it can", { reason: s.store_error }) : "";
  $("#saveerror").classList.toggle("hidden", !s.store_error);
  showJoin(s);
  const noMatch = !hasMatch(s);
  $(".board").classList.toggle("nomatch", noMatch);
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

function tick() {
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
  event: (m) => { $("#ticker").textContent = describeEvent(m.event); },
});
requestAnimationFrame(tick);
