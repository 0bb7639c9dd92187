// The join page: a QR code of the tower URL with this match's code, shown in the room.
// Only on a screen the game master paired (or with a game master's session): the code opens
// the tower's card, so the server gives it to nobody else.
import { $, api, post, csrf, connect, liveBadge } from "/static/common.js";

let matchId;

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
    shown(true);
  } catch (e) {
    shown(false);
    if (e.status === 403) { // not a paired screen: the game master may pair it here
      $("#error").classList.add("hidden");
      $("#pair").classList.remove("hidden");
      return;
    }
    // No match yet: say so, without an empty QR frame and a dash for a code.
    $("#error").textContent = e.status === 404 ? "No match yet: the QR code appears here when the game master sets one up." : e.message;
    $("#error").className = e.status === 404 ? "waitmsg" : "error";
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
    err.textContent = e.status === 429 ? "Too many wrong PINs: wait a minute." : e.status === 403 ? "Wrong PIN." : e.message;
    err.classList.remove("hidden");
  }
});

load();
// A new match brings a new code: reload it when the match changes.
connect("board", {}, {
  status: liveBadge(),
  state: (m) => { if (m.state && m.state.match_id !== matchId) { const first = matchId === undefined; matchId = m.state.match_id; if (!first) load(); } },
});
