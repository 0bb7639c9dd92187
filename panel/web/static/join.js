// The join page: a QR code of the tower URL with this match's code, shown in the room.
import { $, api, connect, liveBadge } from "/static/common.js";

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
    // No match yet: say so, without an empty QR frame and a dash for a code.
    $("#error").textContent = e.status === 404 ? "No match yet: the QR code appears here when the game master sets one up." : e.message;
    $("#error").className = e.status === 404 ? "waitmsg" : "error";
    shown(false);
  }
}

load();
// A new match brings a new code: reload it when the match changes.
connect("board", {}, {
  status: liveBadge(),
  state: (m) => { if (m.state && m.state.match_id !== matchId) { const first = matchId === undefined; matchId = m.state.match_id; if (!first) load(); } },
});
