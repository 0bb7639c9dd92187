// The venue board for a TV: every cockpit's match side by side, and the leaderboard of the
// day, the week and all time (taking turns, or the one in ?period=day|week|all).
import { $, el, t, tn, connect, liveBadge, Clock, describeEvent, pauseText } from "/static/common.js";

const PERIODS = ["day", "week", "all"];
const PERIOD_TITLES = () => ({ day: t("Today"), week: t("This week"), all: t("All time") });
const ROTATE_MS = 20000;
const pinned = new URLSearchParams(location.search).get("period");
let period = PERIODS.includes(pinned) ? pinned : "day";
let board = { cockpits: new Map(), leaderboard: null };
const clocks = new Map();

// ---------------------------------------------------------------- one cockpit's tile
function whatNow(s) {
  if (!s || s.phase === "idle" || !s.match) return t("Waiting for players: press START");
  const coop = s.match.mode === "cooperative";
  if (s.phase === "finished") {
    if (coop) return s.tier ? t("Landed: {tier}", { tier: t(s.tier) }) : t("Landed");
    const w = s.winner || [];
    return w.length > 1 ? t("Shared win: {teams}", { teams: w.join(" & ") }) : w.length ? t("{team} wins!", { team: w[0] })
      : s.match.status === "ended" ? t("No winner") : t("Game over");
  }
  if (s.phase === "paused") {
    const why = pauseText({ ...s, challenge: s.paused_for.includes("challenge") ? {} : null });
    return why || t("Paused for a challenge");
  }
  const who = coop ? t("the crew") : s.team;
  return s.phase === "between_turns" ? t("Next: {team}", { team: who }) : t("Turn: {team}", { team: who });
}

function tile(c) {
  const s = c.state;
  const live = c.online && s && (s.phase === "in_turn" || s.phase === "paused");
  const node = el("article", { class: `cockpit${c.online ? "" : " offline"}${live ? " playing" : ""}`,
                               dataset: { cockpit: c.id }, "aria-label": c.name },
    el("h2", {}, el("span", { class: "name", text: c.name }),
      el("span", { class: "badge", text: c.online ? t("online")
        : t("offline since {time}", { time: new Date(c.seen * 1000).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" }) }) })),
    el("div", { class: "what", text: whatNow(s) }),
    el("div", { class: "secs idle", "aria-label": t("seconds left") }),
    el("div", { class: "facts", text: facts(s) }),
    scores(s));
  return node;
}

function facts(s) {
  if (!s || !s.match || s.phase === "idle") return "";
  const parts = [s.rounds ? t("Round {round} of {rounds}", { round: s.round, rounds: s.rounds }) : t("Round {round}", { round: s.round })];
  if (s.phase === "in_turn" || s.phase === "paused") {
    parts.push(tn("{n} card", "{n} cards", s.completed), tn("{n} mistake", "{n} mistakes", s.mistakes),
      tn("{n} time counter held", "{n} time counters held", s.counters_held));
  }
  if (!s.link.connected) parts.push(t("panel link lost"));
  return parts.join(" · ");
}

function scores(s) {
  const rows = Object.entries((s && s.match && s.scores) || {});
  return el("table", { "aria-label": t("scores") }, el("tbody", {}, rows.map(([team, pts]) =>
    el("tr", { class: team === s.team && s.phase !== "finished" ? "active" : "", dataset: { team } },
      el("td", { text: team }), el("td", { class: "pts", text: String(pts) })))));
}

// All the tiles, in name order: when a cockpit comes or goes. A cockpit's news replaces
// its own tile only (a hundred cockpits tick once a second each).
function showCockpits() {
  const list = [...board.cockpits.values()].sort((a, b) => a.name.localeCompare(b.name));
  $("#nocockpits").classList.toggle("hidden", list.length > 0);
  const box = $("#cockpits");
  for (const old of [...box.querySelectorAll(".cockpit")]) old.remove();
  box.append(...list.map(tile));
  showCount();
  tick();
}

function showCount() {
  const list = [...board.cockpits.values()];
  const online = list.filter((c) => c.online).length;
  $("#count").textContent = list.length ? tn("{n} cockpit online of {total}", "{n} cockpits online of {total}", online, { total: list.length }) : "";
}

function updateCockpit(c) {
  const known = board.cockpits.get(c.id);
  putCockpit(c);
  const node = $(`.venue .cockpit[data-cockpit="${CSS.escape(c.id)}"]`);
  if (!known || !node || known.name !== c.name) { showCockpits(); return; }
  node.replaceWith(tile(c));
  showCount();
  tick();
}

function putCockpit(c) {
  board.cockpits.set(c.id, c);
  const clock = clocks.get(c.id) || new Clock();
  clock.update(c.state || { time_left: null, phase: "idle" });
  clocks.set(c.id, clock);
}

function tick() {
  for (const node of document.querySelectorAll(".venue .cockpit")) {
    const c = board.cockpits.get(node.dataset.cockpit);
    const secs = node.querySelector(".secs");
    const s = c && c.state;
    const show = s && c.online && (s.phase === "in_turn" || s.phase === "paused") && s.time_left !== null;
    secs.classList.toggle("idle", !show);
    if (show) {
      const left = Math.max(0, Math.ceil(clocks.get(c.id).now() ?? 0));
      secs.textContent = String(left);
      secs.classList.toggle("low", left <= 5);
    }
  }
}

// ---------------------------------------------------------------- the leaderboard
// "9 points — Gulls on By the window: 5 cards + 4 time counters in 23.4 s"
function turnLine(turn, lead) {
  const cards = turn.five && turn.counters > 0
    ? tn("{cards} + {n} time counter", "{cards} + {n} time counters", turn.counters, { cards: tn("{n} card", "{n} cards", turn.cards) })
    : tn("{n} card", "{n} cards", turn.cards);
  const where = { team: turn.team, cockpit: turn.name, cards, seconds: turn.seconds.toFixed(1) };
  if (lead === "seconds") {
    return el("li", {}, el("strong", { text: t("{seconds} s", where) }), " — ",
      tn("{team} on {cockpit}: {cards} = {n} point", "{team} on {cockpit}: {cards} = {n} points", turn.points, where));
  }
  return el("li", {}, el("strong", { text: tn("{n} point", "{n} points", turn.points) }), " — ",
    t("{team} on {cockpit}: {cards} in {seconds} s", where));
}

// A walk-up team (its cockpit's default name) is a team of one match: where and when it played.
const walkUpPlace = (x) => t("{cockpit}, {time}", { cockpit: x.name,
  time: new Date(x.at * 1000).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" }) });

function showLeaderboard() {
  const lb = board.leaderboard && board.leaderboard[period];
  $("#lbtitle").textContent = t("Leaderboard: {period}", { period: PERIOD_TITLES()[period] });
  if (!lb) return;
  $("#lbmatches").textContent = lb.matches ? tn("{n} match played", "{n} matches played", lb.matches) : t("No match played yet");
  $("#teams").replaceChildren(...(lb.teams.length ? lb.teams.map((x) => el("tr", { dataset: { team: x.team } },
    el("td", {}, x.team, ...(x.walk_up ? [el("span", { class: "where", text: walkUpPlace(x) })] : [])),
    el("td", { class: "num", text: String(x.played) }),
    el("td", { class: "num", text: String(x.wins) }), el("td", { class: "num", text: String(x.points) })))
    : [el("tr", {}, el("td", { colspan: 4, class: "muted", text: t("No team match yet") }))]));
  const none = (text) => [el("li", { class: "muted", text })];
  $("#best").replaceChildren(...(lb.best_turns.length ? lb.best_turns.map((x) => turnLine(x, "points")) : none(t("No turn yet"))));
  $("#fastest").replaceChildren(...(lb.fastest_five.length ? lb.fastest_five.map((x) => turnLine(x, "seconds"))
    : none(t("Nobody has done five cards in a turn yet"))));
  $("#lbunreadable").classList.toggle("hidden", !(lb.unreadable || []).length);
  $("#tiers").replaceChildren(...lb.tiers.map((x) => el("li", { text: `${t(x.tier)}: ${x.landings}` })));
  $("#crews").replaceChildren(...(lb.crews.length ? lb.crews.map((c) => el("li", {},
    el("strong", { text: tn("{n} point", "{n} points", c.points) }), " — ",
    tn("{crew} ({n} player) on {cockpit}: {tier}", "{crew} ({n} players) on {cockpit}: {tier}", c.players,
      { crew: c.crew, cockpit: c.name, tier: t(c.tier) })))
    : none(t("No cooperative flight yet"))));
}

function ticker(text) {
  $("#ticker").textContent = text;
}

// ---------------------------------------------------------------- live
const badge = liveBadge();
connect("venue", {}, {
  status: badge,
  venue(msg) {
    board = { cockpits: new Map(), leaderboard: msg.leaderboard };
    clocks.clear();
    msg.cockpits.forEach(putCockpit);
    $("#brokerlost").classList.toggle("hidden", msg.broker);
    showCockpits();
    showLeaderboard();
  },
  cockpit(msg) { updateCockpit(msg.cockpit); },
  forget(msg) { board.cockpits.delete(msg.cockpit); clocks.delete(msg.cockpit); showCockpits(); },
  broker(msg) { $("#brokerlost").classList.toggle("hidden", msg.connected); },
  leaderboard(msg) {
    board.leaderboard = msg.leaderboard;
    showLeaderboard();
    const last = msg.new[msg.new.length - 1];
    if (last) {
      const what = last.mode === "cooperative" ? t("landed: {tier}", { tier: t(last.tier) })
        : (last.winner || []).length ? t("{teams} won", { teams: last.winner.join(" & ") }) : t("match over");
      ticker(`${last.name}: ${what}`);
    }
  },
  event(msg) { ticker(`${msg.name}: ${describeEvent(msg.event)}`); },
});

// The venue's language is its computer's (the page has it before it draws anything).
fetch("/api/venue").then((r) => r.json()).then((v) => {
  $("#title").textContent = v.venue;
  document.title = t("{venue}: venue board", { venue: v.venue });
});
setInterval(tick, 250);
if (!pinned) {
  setInterval(() => { period = PERIODS[(PERIODS.indexOf(period) + 1) % PERIODS.length]; showLeaderboard(); }, ROTATE_MS);
}
