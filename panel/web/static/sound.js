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
    this.played = []; // every cue asked for: { name, audible }, for the tests and the curious
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
  // suspended until the switch (or any tap) is used.
  context() {
    const Ctx = window.AudioContext || window.webkitAudioContext;
    if (!Ctx) return null;
    if (!this.ctx) {
      this.ctx = new Ctx();
      this.ctx.onstatechange = () => { for (const fn of this.listeners) fn(); };
    }
    if (this.ctx.state === "suspended") this.ctx.resume().catch(() => {});
    return this.ctx;
  }

  get blocked() { return !!this.ctx && this.ctx.state !== "running"; }

  setOn(on) {
    this.on = on;
    localStorage.setItem(KEY, on ? "on" : "off");
    if (on) this.context();
    if (!on) this.stop();
    for (const fn of this.listeners) fn();
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
    const audible = !!ctx && !this.blocked;
    this.played.push({ name, audible });
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

// The board's switch: words and a symbol, never colour alone; a press also wakes a context the
// browser kept asleep until a tap.
export function soundSwitch(button, cues) {
  const show = () => {
    const off = !cues.on;
    button.textContent = off ? t("Sound: off") : cues.blocked ? t("Sound: tap to start") : t("Sound: on");
    button.setAttribute("aria-pressed", off ? "false" : "true");
  };
  button.addEventListener("click", () => {
    if (cues.on && cues.blocked) cues.context(); // the first tap wakes it
    else cues.setOn(!cues.on);
    show();
  });
  cues.onChange(show);
  onLanguage(show);
  show();
  return show;
}
