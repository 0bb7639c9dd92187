// The buzzer's cues played in the room by the page (Web Audio): the same tunes, the same
// game events and the same priorities as the cockpit's buzzer (served by /api/sounds from
// panel/hardware, declared there once). A switch turns them off, remembered in this browser.
// Every cue also has a visual one on the page: the page calls `cue` and shows its own light.
import { api, t, onLanguage } from "/static/common.js";

const KEY = "pp_board_sound";

export class Cues {
  constructor() {
    this.spec = { tunes: {}, priority: {}, games: {}, tick: "tick" };
    this.ctx = null;
    this.playing = null; // { name, gain, until }
    this.on = localStorage.getItem(KEY) !== "off";
    this.played = []; // every cue asked for: { name, audible, blocked }, for the tests and the curious
    this.missed = 0; // cues the browser kept silent since the sound last played: the switch says so
    this.listeners = [];
  }

  async load() {
    try { this.spec = await api("/api/sounds"); } catch (e) { /* no sounds: the visual cues remain */ }
  }

  // How many last seconds of a running clock tick, in a game (by its id, as /api/sounds names it).
  lastSeconds(game) { return (this.spec.games[game] || {}).last_seconds || 0; }

  // The tune a game's event plays, or null.
  forEvent(game, type) { return ((this.spec.games[game] || {}).events || {})[type] || null; }

  // The audio context, made (or woken) on demand; a browser that wants a tap first leaves it
  // suspended ("AudioContext was not allowed to start") until the switch (or any tap) is used.
  // Made as soon as the sound is on, so that the switch says at once whether it plays.
  context() {
    const Ctx = window.AudioContext || window.webkitAudioContext;
    if (!Ctx) return null;
    if (!this.ctx) {
      this.ctx = new Ctx();
      this.ctx.onstatechange = () => {
        if (!this.blocked) this.missed = 0;
        this.changed();
      };
      this.changed(); // born suspended: no state change tells it
    }
    if (this.ctx.state === "suspended") this.ctx.resume().catch(() => {});
    return this.ctx;
  }

  // Sound on, but the browser has not let it start yet: cues are heard only after a tap.
  get blocked() { return this.on && (!this.ctx || this.ctx.state !== "running"); }

  changed() { for (const fn of this.listeners) fn(); }

  setOn(on) {
    this.on = on;
    localStorage.setItem(KEY, on ? "on" : "off");
    if (on) this.context();
    if (!on) { this.stop(); this.missed = 0; }
    this.changed();
  }

  onChange(fn) { this.listeners.push(fn); }

  stop() {
    if (this.playing) { try { this.playing.gain.disconnect(); } catch (e) { /* already gone */ } }
    this.playing = null;
  }

  // Plays tune `name` unless the sound is off or a more important tune is playing (as the buzzer).
  cue(name) {
    const tune = this.spec.tunes[name];
    if (!tune) return false;
    const ctx = this.on ? this.context() : null;
    const blocked = this.on && (!ctx || this.blocked);
    const audible = !!ctx && !blocked;
    this.played.push({ name, audible, blocked });
    if (blocked) { this.missed += 1; this.changed(); } // not lost in silence: the switch asks for a tap
    if (!audible) return false;
    const now = ctx.currentTime;
    const pr = this.spec.priority;
    if (this.playing && this.playing.until > now && (pr[this.playing.name] ?? 0) > (pr[name] ?? 0)) return false;
    this.stop();
    const gain = ctx.createGain();
    gain.gain.value = 0.12; // a piezo's character (square wave), kept soft for a room
    gain.connect(ctx.destination);
    let t = now;
    for (const [freq, seconds] of tune) {
      if (freq) {
        const osc = ctx.createOscillator();
        osc.type = "square";
        osc.frequency.value = freq;
        osc.connect(gain);
        osc.start(t);
        osc.stop(t + seconds);
      }
      t += seconds;
    }
    this.playing = { name, gain, until: t };
    return true;
  }
}

// The board's switch: words and a symbol, never colour alone. "Sound: on" only while the
// browser plays; while it refuses to start the sound until a tap, "Sound: tap to start" (and
// marked once a cue went unheard). A tap on the switch, or anywhere on the page, starts it.
export function soundSwitch(button, cues) {
  const show = () => {
    const off = !cues.on;
    button.textContent = off ? t("Sound: off") : cues.blocked ? t("Sound: tap to start") : t("Sound: on");
    button.setAttribute("aria-pressed", off ? "false" : "true");
    button.dataset.sound = off ? "off" : cues.blocked ? "blocked" : "on";
    button.classList.toggle("missed", !off && cues.blocked && cues.missed > 0);
    button.dataset.missed = String(cues.missed); // cues unheard while the browser waits for a tap
  };
  button.addEventListener("click", () => {
    if (cues.blocked) cues.context(); // the first tap wakes it
    else cues.setOn(!cues.on);
    show();
  });
  // Any tap or key on the page is a gesture the browser accepts: it starts a sound kept asleep.
  // (Not on the switch: its own click wakes it, and must not find it awake and turn it off.)
  const wake = (ev) => { if (cues.blocked && !button.contains(ev.target)) cues.context(); };
  for (const type of ["pointerdown", "keydown"]) document.addEventListener(type, wake, { capture: true });
  cues.onChange(show);
  onLanguage(show);
  if (cues.on) cues.context(); // asked at once: the switch tells at once whether the browser plays
  show();
  return show;
}
