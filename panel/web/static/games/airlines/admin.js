// Penguin Airlines on the game master's page: the turn now (whose, the counts, the timer),
// the challenge and its ruling, the end of the match, the turn's completed cards. The
// buttons are the page's (enabled exactly when the state's actions list them). The game's
// part of /admin (admin.js): form(declared, page), word(), body(page), show(s, page),
// tick(s), describe(e, s), leave(page), endChoices(s).
import { $, el, api, t, tn, Clock, fmtSeconds, describeEvent, hasMatch, pauseText, cardsText, matchEndText,
  possessive, challenger, challengedCard } from "/static/common.js";

const clock = new Clock();

// The New match form is the settings' declaration's (the page builds it for every game that
// declares settings: /api/admin/status), so there is nothing of its own to build or word.
export function form() {}
export function word() {}
export const body = (page) => page.declaredBody();

function phaseText(s) {
  if (!hasMatch(s)) return t("No match");
  if (s.finished) return s.ended_by === "abandoned" ? t("Abandoned") : s.ended_by === "ended" ? t("Ended by the game master") : t("Finished");
  const why = pauseText(s);
  if (s.phase === "paused") return why || t("Paused for the challenge");
  return s.phase === "in_turn" ? t("Turn in progress") : t("Between turns");
}

function whoseText(s) {
  if (!hasMatch(s) || s.finished) return "";
  const tower = s.roles && s.roles.tower ? t("tower {name}", { name: s.roles.tower }) : t("the team picks its tower");
  const whose = s.phase === "between_turns" ? t("next: {team}", { team: s.team }) : t("{whose} turn", { whose: possessive(s.team) });
  return ["", whose, tower, t("round {round}", { round: s.round })].join(" · ").trim();
}

// What "End the match…" offers now: the engine's choices (`actions.end.when`), each saying
// what it does to the turn in progress.
export function endChoices(s) {
  const when = ((s.actions || {}).end || {}).when || [];
  const inTurn = s.phase === "in_turn" || s.phase === "paused";
  const played = Object.entries(s.turns_played || {});
  const unequal = new Set(played.map(([, n]) => n)).size > 1
    ? " " + t("Turns played: {turns}.", { turns: played.map(([team, n]) => team + " " + n).join(", ") }) : "";
  $("#endround").classList.toggle("hidden", !when.includes("round"));
  $("#endnow").classList.toggle("hidden", !when.includes("now"));
  const left = s.round_left || [];
  $("#end_round").textContent = inTurn ? t("Finish the round, then end (the turn in progress counts)")
    : t("Finish the round, then end (the teams still to play this round play)");
  const vars = { round: s.round, teams: left.join(", ") };
  $("#endround_text").textContent = inTurn
    ? tn("The match ends when round {round} does: {teams} still plays this round, the turn in progress included. Then it is scored, every team having played as many turns.",
      "The match ends when round {round} does: {teams} still play this round, the turn in progress included. Then it is scored, every team having played as many turns.",
      left.length, vars)
    : tn("The match ends when round {round} does: {teams} still plays this round. Then it is scored, every team having played as many turns.",
      "The match ends when round {round} does: {teams} still play this round. Then it is scored, every team having played as many turns.",
      left.length, vars);
  $("#end_now").textContent = inTurn ? t("End now (the turn in progress is not scored)") : t("End now and score the match");
  $("#endnow_text").textContent = (inTurn
    ? t("{whose} turn in progress ({cards} so far) is not scored: the result is the scores as they stand.",
      { whose: possessive(s.team), cards: cardsText(s.completed) })
    : t("The result is the scores as they stand.")) + unequal;
}

// The completed cards of the turn (the last turn's between turns), drawn, numbered as the
// challenge menu numbers them.
let doneFor = null;
async function showDoneCards(s) {
  const box = $("#donebox");
  const key = hasMatch(s) ? `${s.match_id}/${s.phase}/${(s.completed_cards || []).length}/`
    + `${Object.values(s.turns_played || {}).reduce((a, b) => a + b, 0)}` : null;
  if (key === doneFor) return;
  doneFor = key;
  if (!key) { box.classList.add("hidden"); return; }
  try {
    const done = await api("/api/completed");
    box.classList.toggle("hidden", !done.turn || !done.cards.length);
    if (!done.turn) return;
    $("#donetitle").textContent = done.turn.in_progress
      ? t("Completed cards of {whose} turn", { whose: possessive(done.turn.team) })
      : t("Completed cards of {whose} last turn (round {round})", { whose: possessive(done.turn.team), round: done.turn.round });
    $("#donerow").replaceChildren(...done.cards.map((c) => {
      const pic = el("div", { class: "pic" });
      pic.innerHTML = c.svg || ""; // drawn by the server (panel/games/airlines/card_drawing.py): trusted markup
      return el("figure", { class: "donecard", dataset: { index: c.index, number: c.number } }, pic,
        el("figcaption", { text: t("Completed card {number}", { number: c.index }) }));
    }));
  } catch (e) {
    doneFor = null; // asked again with the next state
  }
}

export function show(s, page) {
  clock.update(s);
  const has = hasMatch(s);
  $("#pause").textContent = t("Pause the timer");
  $("#resume").textContent = t("Resume the timer");
  $("#phase").textContent = phaseText(s);
  $("#whose").textContent = whoseText(s);
  $("#counts").textContent = has && !s.finished
    ? [tn("{done} of {n} card", "{done} of {n} cards", s.cards_per_turn, { done: s.completed }),
      tn("{done} of {n} mistake", "{done} of {n} mistakes", s.mistakes_per_turn, { done: s.mistakes }),
      tn("{n} time counter held", "{n} time counters held", s.counters_held),
      s.stuck_name ? t("stuck finger: {name}", { name: s.stuck_name }) : null].filter(Boolean).join(" · ")
    : has ? Object.entries(s.scores || {}).map(([team, p]) => `${team} ${p}`).join(" · ") : "";

  // Challenge: the teams that may call it and the cards it may be called on, as the engine lists them.
  const allowed = s.actions || {};
  const ch = allowed.challenge || { teams: [], cards: [] };
  page.offer($("#chteam"), ch.teams, challenger);
  page.offer($("#chcard"), ch.cards, challengedCard);
  $("#challengebox").classList.toggle("hidden", !allowed.challenge);
  const c = s.challenge;
  $("#chinfo").textContent = !c ? t("No challenge open.") : c.number != null
    ? t("Open challenge by {team} on {card} (card number {number}): rule on it.",
      { team: challenger(c.team), card: challengedCard(c.card), number: c.number })
    : t("Open challenge by {team} on {card}: rule on it.", { team: challenger(c.team), card: challengedCard(c.card) });
  $("#chinfo").classList.toggle("hidden", !has || s.finished);
  wordRuling(c);
  const endNote = s.ending && !s.finished
    ? (s.round_left?.length ? t("The match ends at the end of round {round}: {teams} still to play.", { round: s.round, teams: s.round_left.join(", ") })
      : t("The match ends at the end of round {round}.", { round: s.round }))
    : s.finished ? matchEndText(s) : null;
  $("#endinfo").textContent = endNote || "";
  $("#endinfo").classList.toggle("hidden", !endNote);
  if ($("#enddialog").open) endChoices(s);
  showDoneCards(s);
}

// The ruling's two buttons say what each does to the cards of this challenge (rules 20, 21):
// upheld, the challenged card and the card in play are discarded; rejected, the card in play
// counts as completed (a completed card challenged stands as it was).
function wordRuling(c) {
  const done = c && c.card !== "current" ? { card: challengedCard(c.card) } : null;
  $("#upheld").textContent = done ? t("Uphold: {card} and the card in play are discarded", done)
    : t("Uphold: the card in play is discarded");
  $("#rejected").textContent = done ? t("Reject: {card} stands and the card in play counts", done)
    : t("Reject: the card in play counts");
}

// Another game's match on the page: no challenge is offered.
export function leave(page) {
  page.offer($("#chteam"), [], challenger);
  page.offer($("#chcard"), [], challengedCard);
}

export function tick(s) {
  const left = clock.now();
  $("#left").textContent = !hasMatch(s) || s.finished ? ""
    : left === null || left === undefined ? t("Turns of {seconds} s.", { seconds: s.turn_seconds })
    : s.phase === "paused" ? t("{left} s left of {seconds} s (stopped).", { left: fmtSeconds(left), seconds: s.turn_seconds })
    : t("{left} s left of {seconds} s.", { left: fmtSeconds(left), seconds: s.turn_seconds });
}

export const describe = (e) => describeEvent(e);
