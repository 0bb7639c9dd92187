// The join page: a QR code of the tower URL with this match's code (or, with none in play,
// the next match's), shown in the room. Only on a room screen (paired once with the PIN, or
// the cockpit's own) or to a game master: the code opens the tower's card, so the server
// gives it to nobody else.
import { $, api, post, t, csrf, connect, liveBadge, onLanguage } from "/static/common.js";

let joinFor; // the match (its status, its code's version) whose code is shown: a change may bring another

function shown(yes) {
  for (const id of ["#qr", "#coderow", "#url"]) $(id).classList.toggle("hidden", !yes);
}

async function load() {
  try {
    const j = await api("/api/join");
    $("#qr").innerHTML = j.qr_svg; // drawn by the server (segno): trusted markup
    $("#code").textContent = j.code;
    $("#url").textContent = j.url;
    $("#url").href = j.url;
    $("#error").classList.add("hidden");
    // A QR code that leads to 127.0.0.1 opens nothing on a phone: said in words.
    $("#loopback").classList.toggle("hidden", !j.loopback);
    const sim = $("#simnote");
    sim.classList.toggle("hidden", j.sim_from_network === null || j.sim_from_network === undefined);
    sim.textContent = j.sim_from_network
      ? t("Any device on the network may press the simulated panel's buttons (the settings allow it).")
      : t("The simulated panel takes presses only on the computer running the cockpit, opened at 127.0.0.1; phones join as the tower.");
    shown(true);
  } catch (e) {
    shown(false);
    if (e.status === 403) { // not a room screen: the game master may pair it here
      $("#error").classList.add("hidden");
      $("#pair").classList.remove("hidden");
      return;
    }
    $("#error").textContent = e.message;
    $("#error").className = "error";
    shown(false);
  }
}

$("#pair").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const err = $("#pairerror");
  try {
    const r = await post("/api/admin/login", { pin: $("#pin").value });
    csrf.set(r.csrf);
    await post("/api/admin/screen", {}, { admin: true }); // ends that session: a screen is not an admin page
    csrf.clear();
    $("#pin").value = "";
    $("#pair").classList.add("hidden");
    err.classList.add("hidden");
    load();
  } catch (e) {
    err.textContent = e.status === 429 ? t("Too many wrong PINs: wait a minute.") : e.status === 403 ? t("Wrong PIN.") : e.message;
    err.classList.remove("hidden");
  }
});

load();
onLanguage(load); // its note in the new language
// With no match in play the code is the next match's; reload it when the match changes.
connect("board", {}, {
  status: liveBadge(),
  state: (m) => {
    const key = m.state && `${m.state.match_id}/${m.state.status}/${m.state.join}`; // join: a new code
    if (key && key !== joinFor) { const first = joinFor === undefined; joinFor = key; if (!first) load(); }
  },
});
