// Penguin Airlines on the TV scoreboard: the draining timer, counters, mistakes, cards, whose
// turn, roles, scores, round, and the result at the end. Never shows the card in play.
//
// A turn's end is a moment for the room: the turn's final state stays on screen (the second
// mistake, the fifth card, the timer at zero), then its result in large type, then at a
// round's end the round's summary, before the next turn's screen. Between turns the last
// turn's completed cards are shown for the other teams to check. The page keeps no rule:
// counts, points and bonuses are the engine's (the state and the events).
//
// The game's part of the board (board.js): update(s) when a state comes, show(s, board),
// describe(e), event(e, board), tick(s, board), leave(board).
import { $, el, api, t, tn, Clock, fmtSeconds, describeEvent, hasMatch, pauseText, turnResultText, endedText,
  matchEndText, possessive, challenger, challengedCard, linkLost, rulingUpheldText, language, stuckText }
  from "/static/common.js";

// How long each stage of a turn's end stays on screen (ms): long enough to read across a room.
const HOLD_MS = 1500;
const RESULT_MS = 4000;
const SUMMARY_MS = 6000;

const clock = new Clock();
let moment = null; // a turn's end being shown: { stage, final, turn, round, timer }
let joinFor = null; // the match (and its status) whose join code the QR code shows
let cardsFor = null; // the turn whose completed cards are drawn
window.boardMoments = []; // the stages shown: { stage, ... }

// ---------------------------------------------------------------- the join corner

// While no turn runs, the tower's QR code and join code in the corner: the match's, or
// with none in play the next match's (its tower joins before START sets it up).
async function showJoin(s) {
  const show = s.status !== "active" || s.finished || s.phase === "between_turns";
  $("#joinbox").classList.toggle("hidden", !show);
  const key = `${s.match_id}/${s.status}/${s.join}`; // a new match, its end, a new group: maybe another code
  if (!show || key === joinFor) return;
  joinFor = key;
  try {
    const j = await api("/api/join");
    $("#qr").innerHTML = j.qr_svg; // drawn by the server (segno): trusted markup
    $("#joincode").textContent = j.code;
    $("#joinwarn").classList.toggle("hidden", !j.loopback);
  } catch (e) {
    joinFor = null; // asked again with the next state
    $("#joinbox").classList.add("hidden");
  }
}

// ---------------------------------------------------------------- completed cards

// Between turns: the last turn's completed cards, numbered as the game master's challenge
// menu numbers them ("completed card 1").
async function showDoneCards(s) {
  const between = hasMatch(s) && !s.finished && s.phase === "between_turns" && s.last_turn;
  const box = $("#donecards");
  // Shown in the turn's place: between turns the timer and the turn's counts wait.
  const shown = (yes) => { box.classList.toggle("hidden", !yes); $(".board").classList.toggle("showcards", yes); };
  if (!between) { shown(false); cardsFor = null; return; }
  const key = `${s.match_id}/${Object.values(s.turns_played || {}).reduce((a, b) => a + b, 0)}`;
  if (key === cardsFor) { shown($("#donerow").children.length > 0); return; }
  cardsFor = key;
  try {
    const done = await api("/api/completed");
    if (!done.turn || !done.cards.length) { shown(false); return; }
    $("#donetitle").textContent = t("{whose} completed cards, round {round}: check them",
      { whose: possessive(done.turn.team), round: done.turn.round });
    $("#donerow").replaceChildren(...done.cards.map((c) => {
      const fig = el("figure", { class: "donecard", dataset: { index: c.index, number: c.number } },
        el("figcaption", { text: String(c.index) }));
      const pic = el("div", { class: "pic" });
      pic.innerHTML = c.svg || ""; // drawn by the server (panel/games/airlines/card_drawing.py): trusted markup
      fig.prepend(pic);
      return fig;
    }));
    shown(true);
  } catch (e) {
    cardsFor = null; // asked again with the next state
  }
}

// ---------------------------------------------------------------- the turn's end, a moment

function startMoment(e, board) {
  stopMoment();
  const before = board.live() || {};
  // The turn as it ended: the state just before, with the end's own counts.
  const final = { ...before, phase: "turn_over", completed: e.completed, mistakes: e.mistakes,
    counters_held: e.counters, time_left: e.time_left, team: e.team };
  moment = { stage: "hold", final, turn: e, round: null, game: false };
  window.boardMoments.push({ stage: "hold", mistakes: e.mistakes, completed: e.completed });
  moment.timer = setTimeout(() => nextStage("result", board), HOLD_MS);
  board.render();
}

function nextStage(stage, board) {
  if (!moment) return;
  if (stage === "summary" && !moment.round) stage = "done";
  if (stage === "done") { stopMoment(); board.render(); return; }
  moment.stage = stage;
  window.boardMoments.push({ stage, text: stage === "result" ? turnResultText(moment.turn) : `round ${moment.round}` });
  moment.timer = setTimeout(() => nextStage(stage === "result" ? "summary" : "done", board),
    stage === "result" ? RESULT_MS : SUMMARY_MS);
  board.render();
}

function stopMoment() {
  if (moment) clearTimeout(moment.timer);
  moment = null;
}

function showMoment(live) {
  const box = $("#moment");
  const stage = moment && moment.stage;
  box.classList.toggle("hidden", stage !== "result" && stage !== "summary");
  box.dataset.stage = stage || "";
  if (stage === "result") {
    const e = moment.turn;
    $("#momenttitle").textContent = t("Turn over: {why}", { why: endedText(e) });
    $("#momentline").textContent = turnResultText(e);
    $("#momentlist").replaceChildren();
  } else if (stage === "summary") {
    // Every team's turn of the round, as the engine kept them, then the scores.
    const turns = live.round_turns || [];
    $("#momenttitle").textContent = t("Round {round} is over", { round: moment.round });
    $("#momentline").textContent = Object.entries(live.scores || {}).map(([team, p]) => `${team} ${p}`).join(" · ");
    $("#momentlist").replaceChildren(...turns.map((turn) => el("li", { text: turnResultText(turn) })));
  }
}

// ---------------------------------------------------------------- the screen

// Where the tokens start (the layout's, in the page's language), fetched for each match and language.
let startWords = "";
let startsFor = null;
async function loadStarts(s, board) {
  const key = `${s.match_id}/${language()}`;
  if (key === startsFor) return;
  startsFor = key;
  try { startWords = (await api("/api/layout")).start_words || ""; board.render(); } catch (e) { startsFor = null; }
}

function rolesText(s) {
  if (s.mode === "cooperative") {
    const crew = (s.roles && s.roles.crew) || [];
    return t("Tower: {tower} · Crew: {crew}", { tower: s.roles?.tower || "–", crew: crew.join(", ") || "–" });
  }
  if (!s.roles || !s.roles.tower) {
    // Said while the team chooses (between turns), gone once the timer runs: the team is named above.
    return s.phase === "between_turns"
      ? t("Pick your tower: one player reads the card on the phone, the others are the crew.") : "";
  }
  return t("Tower: {tower} · Crew: {crew}", { tower: s.roles.tower, crew: s.roles.crew.join(", ") || "–" });
}

function showTurn(s, board) {
  const coop = s.mode === "cooperative";
  const between = s.phase === "between_turns" && !s.finished;
  const round = coop && s.rounds ? t("Round {round} of {rounds}", { round: s.round, rounds: s.rounds })
    : t("Round {round}", { round: s.round });
  // Between rounds the board still shows the last round's cards: the header says both rounds.
  const doneRound = between && s.last_turn ? s.last_turn.round : s.round;
  $("#round").textContent = doneRound !== s.round ? t("Round {done} is over · round {round} next", { done: doneRound, round: s.round }) : round;
  $("#team").textContent = coop ? t("Cooperative flight") : between ? t("Next: {team}", { team: s.team }) : t("Turn: {team}", { team: s.team });
  $("#roles").textContent = rolesText(s);
  board.pips($("#done"), s.completed || 0, s.cards_per_turn, "done");
  board.pips($("#mistakes"), s.mistakes || 0, s.mistakes_per_turn, "mistake");
  board.pips($("#counters"), s.counters_held || 0, s.time_counters || 0, "");
  $("#pool").textContent = t("{held} held · {pool} in the pool", { held: s.counters_held || 0, pool: s.counters_pool ?? 0 });
  $("#stuck").textContent = stuckText(s);

  const banner = $("#banner");
  let text = "", cls = "";
  if (s.phase === "turn_over") {
    cls = "over";
    text = t("Turn over: {why}", { why: endedText(moment.turn) });
  } else if (s.phase === "paused") {
    const why = pauseText(s);
    cls = linkLost(s) ? "lost" : "paused";
    // Which card is challenged: the room checks it against the tower's words.
    text = why || t("Challenge by {team} on {card} (card number {number}): the game master rules",
      { team: challenger(s.challenge.team), card: challengedCard(s.challenge.card), number: s.challenge.number });
  } else if (between) {
    cls = "paused between";
    // The team is named once, above; the crew is told where each token goes.
    text = startWords ? t("Crew: put the tokens back ({starts}), then press START", { starts: startWords })
      : t("Crew: put the tokens back, then press START");
  } else if (ruled && performance.now() < ruled.until && s.phase === "in_turn") {
    cls = "paused"; // the ruling stays a few seconds: the new card's words follow at once in the ticker
    text = ruled.text;
  }
  banner.textContent = text;
  banner.className = `banner ${cls}`;
  banner.classList.toggle("hidden", !text);
}

function showScores(s) {
  const coop = s.mode === "cooperative";
  $("#scores").replaceChildren(...Object.entries(s.scores || {}).map(([team, pts]) =>
    el("tr", { class: team === s.team && !s.finished ? "active" : "", dataset: { team } },
      el("td", { text: team }), el("td", { class: "pts", text: String(pts) }))));
  const ending = !s.ending || s.finished ? null : s.round_left?.length
    ? t("The game master ends the match at the end of this round: {teams} still to play.", { teams: s.round_left.join(", ") })
    : t("The game master ends the match at the end of this round.");
  const target = coop ? null
    : tn("First to {n} point ends the game at the round's end.", "First to {n} points ends the game at the round's end.", s.target_points);
  $("#target").textContent = [target, ending].filter(Boolean).join(" ");
  const last = s.last_turn && s.phase === "between_turns" && !s.finished;
  $("#lastturn").textContent = last ? t("Last turn: {result} ({why}).", { result: turnResultText(s.last_turn), why: endedText(s.last_turn) }) : "";
}

function showResult(s) {
  const res = $("#result");
  if (!s.finished || moment) { res.classList.add("hidden"); return; }
  res.classList.remove("hidden");
  const coop = s.mode === "cooperative";
  if (s.ended_by === "abandoned") {
    $("#resulttitle").textContent = t("Match abandoned");
    $("#resulttext").textContent = "";
  } else if (coop) {
    // The engine's tier and landing text are English; the catalog has them (panel/games/airlines/engine/cooperative.py).
    $("#resulttitle").textContent = s.tier ? t("{tier}!", { tier: t(s.tier) }) : t("Landed");
    $("#resulttext").textContent = s.outcome ? t(s.outcome) : "";
  } else {
    const w = Array.isArray(s.winner) ? s.winner : (s.winner ? [s.winner] : []);
    $("#resulttitle").textContent = w.length > 1 ? t("Shared win: {teams}", { teams: w.join(" & ") })
      : w.length ? t("Winner: {team}", { team: w[0] }) : s.ended_by === "ended" ? t("No winner") : t("Game over");
    $("#resulttext").textContent = Object.entries(s.scores || {}).map(([team, p]) => `${team}: ${p}`).join(" · ");
  }
  $("#resultend").textContent = [matchEndText(s), s.walk_up_problem].filter(Boolean).join(" ");
}

function showNoMatch(s) {
  // START pressed with no match in play, and nothing could be set up: said, not silent.
  const problem = s.walk_up_problem;
  $("#team").textContent = t("Press START to play");
  $("#round").textContent = t("No match yet");
  $("#roles").textContent = t("Named teams and other rules: the game master's page (/admin).");
  $("#banner").textContent = problem || "";
  $("#banner").className = `banner over${problem ? "" : " hidden"}`;
  $("#result").classList.add("hidden");
  showDoneCards(s); // none: no match
  $("#target").textContent = "";
  $("#lastturn").textContent = "";
  $("#scores").replaceChildren();
}

// ---------------------------------------------------------------- the board's calls

export function update(s) {
  if (moment && (s.phase === "in_turn" || s.phase === "paused" || s.match_id !== moment.final.match_id)) {
    stopMoment(); // a new turn (START pressed at once) or a new match: the room looks at that
  }
  clock.update(s);
}

export function show(s, board) {
  $(".board").dataset.moment = moment ? moment.stage : "";
  showJoin(s);
  showMoment(s);
  if (!hasMatch(s)) { showNoMatch(s); return; }
  loadStarts(s, board);
  // While a turn's end is on screen, its final state stands in for the live one.
  showTurn(moment && moment.stage === "hold" ? moment.final : s, board);
  showScores(moment && moment.stage === "hold" ? moment.final : s);
  showDoneCards(moment ? {} : s);
  showResult(s);
}

// Another game on the board: nothing of a turn's end stays.
export function leave() {
  stopMoment();
  showDoneCards({});
  $(".board").dataset.moment = "";
}

export const describe = (e) => describeEvent(e);

// The last upheld ruling, said in the banner for RULING_MS: which cards went, which counters stay.
const RULING_MS = 8000;
let ruled = null;

export function event(e, board) {
  if (e.type === "challenge_ruled") ruled = e.upheld ? { text: rulingUpheldText(e), until: performance.now() + RULING_MS } : null;
  else if (e.type === "turn_started" || e.type === "turn_ended") ruled = null;
  if (e.type === "mistake") board.flash("mistake");
  else if (e.type === "card_completed") board.flash("card");
  else if (e.type === "challenge") board.flash("challenge");
  else if (e.type === "turn_started") { stopMoment(); board.flash("start"); }
  else if (e.type === "turn_ended") startMoment(e, board);
  else if (e.type === "round_ended" && moment) moment.round = e.round;
  else if (e.type === "game_ended") board.flash("end");
}

// The hourglass now; [seconds left of a running clock, the node that beats] for the last seconds' tick.
export function tick(live, board) {
  const holding = moment && moment.stage === "hold";
  let left = holding ? moment.final.time_left : clock.now();
  const timer = $("#timer");
  // Between turns the hourglass is full (the turn's seconds, dimmed); with no match, empty.
  const idle = !hasMatch(live) || live.finished;
  const waiting = !idle && !holding && (left === null || left === undefined);
  if (waiting) left = live.turn_seconds;
  timer.textContent = idle ? "" : waiting ? String(left) : fmtSeconds(left);
  timer.classList.toggle("waiting", waiting);
  const low = left !== null && left <= board.lastSeconds() && (clock.running || holding);
  timer.classList.toggle("low", low);
  $("#bar").classList.toggle("low", low);
  const total = clock.total || live?.turn_seconds || 30;
  $("#bar > div").style.transform = `scaleX(${left === null || waiting || idle ? 0 : Math.min(1, left / total)})`;
  return [clock.running ? left : null, timer];
}
