// The firmware on an emulated RP2040: a MicroPython RPI_PICO image runs the firmware's
// files from the emulated flash's littlefs as Cortex-M0+ code in rp2040js, and this
// file plays the Pi's side of the USB serial link and the panel's hardware (key matrix,
// sliders, encoder). Every time is emulated: the core's cycles at 125 MHz.
//
//   node pico_runner.mjs PLAN.json      (benchmarks/pico.py writes the plan and reads
//                                        the result; see there for the scenarios)
//
// What is measured, and how:
// - a loop step: the firmware's loop sleeps once per step (time.sleep_us, the rest of its
//   period); a step is the time from one sleep's return to the next sleep's call, split
//   at the first row's falling edges when the loop fell behind and did not sleep.
//   Needs the image's symbols (time_sleep_us); so do the heap figures.
// - scans per second: falling edges of the first row's GPIO (one per scan).
// - the heap: every gc_alloc (bytes asked for, r0) and gc_free of such a block, every
//   gc_collect (entry to return: the pause).
// - USB writes: every mp_usbd_cdc_tx_strn call and the bytes it was given.
// - latency: a key closes at a moment of the scan cycle; its column then reads low
//   whenever its row is driven low (diodes assumed); latency = the key closing to the
//   '\n' of its DOWN frame reaching the host.
// Workarounds for what rp2040js does not model, each said where it is: the QSPI chip
// select pad, the flash chip (erase and program done by hooking the boot ROM's own
// flash_range_erase and flash_range_program, found from its function table, so any
// MicroPython image works), the pull-ups, the host's OUT requests, the watchdog reset.
import fs from 'fs';
import { ConsoleLogger, GPIOPinState, LogLevel, Simulator, USBCDC } from 'rp2040js';

const plan = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const NS = 1e9, MS = 1e6, US = 1e3;
const wall0 = Date.now();

// ---------------------------------------------------------------- the chip
const simulator = new Simulator();
const mcu = simulator.rp2040;
const core = mcu.core;
const clock = mcu.clock;
const now = () => clock.nanos;
mcu.logger = new ConsoleLogger(LogLevel.Error);
const rom = fs.readFileSync(plan.bootrom);
if (rom.length !== 16384) throw new Error(`${plan.bootrom}: ${rom.length} bytes, the RP2040 boot ROM has 16384`);
const romWords = new Uint32Array(4096);
for (let i = 0; i < 4096; i++) romWords[i] = rom.readUInt32LE(4 * i);
mcu.loadBootrom(romWords);
mcu.flash.set(fs.readFileSync(plan.image), 0);
mcu.flash.set(fs.readFileSync(plan.fs), plan.fsOffset);
// rp2040js leaves the QSPI pads' input disabled and nothing drives chip select, so
// rp2.bootsel_button() reads "held" and main.py would start in maintenance mode: the pad
// as on a board out of reset (input enabled, pull-up), chip select high.
mcu.qspi[1].padValue = 0x5a;
mcu.qspi[1].setInputValue(true);

// The boot ROM's function table (pointer at 0x14: pairs of a two-letter code and an
// address, code 0 ends it): 'RE' flash_range_erase(offset, count, ...), 'RP'
// flash_range_program(offset, data, count). rp2040js has no flash chip behind its SSI,
// so the runner does their work on the flash array and returns, charging typical
// W25Q16JV times (45 ms a 4 KB sector, 0.4 ms a 256-byte page). plan.flash "broken":
// both take their time and change nothing, as a worn-out chip.
function romFunc(code) {
  let i = rom.readUInt16LE(0x14);
  for (;;) {
    const c = rom.readUInt16LE(i);
    if (c === 0) throw new Error('boot ROM: no function ' + code);
    if (c === code.charCodeAt(0) + (code.charCodeAt(1) << 8)) return rom.readUInt16LE(i + 2) & ~1;
    i += 4;
  }
}
const ROM_ERASE = romFunc('RE'), ROM_PROGRAM = romFunc('RP');
const flashOps = { erase: 0, program: 0, bytes: 0 };
function flashHook(pc) {
  const r = core.registers;
  const off = r[0] >>> 0;
  if (pc === ROM_ERASE) {
    const n = r[1] >>> 0;
    if (plan.flash !== 'broken') mcu.flash.fill(0xff, off, off + n);
    flashOps.erase++;
    clock.tick(Math.ceil(n / 4096) * 45 * MS);
  } else {
    const src = r[1] >>> 0, n = r[2] >>> 0;
    if (plan.flash !== 'broken') for (let i = 0; i < n; i++) mcu.flash[off + i] &= mcu.readUint8(src + i);
    flashOps.program++;
    flashOps.bytes += n;
    clock.tick(Math.ceil(n / 256) * 0.4 * MS);
  }
  core.PC = core.LR & ~1;
}

// rp2040js does not reset the chip when the watchdog fires (a board would restart there):
// the run stops and says where the core was.
let watchdog = null;
const wdog = mcu.peripherals[0x40058];
wdog.onWatchdogTrigger = () => {
  wdog.timer.enable = false;
  wdog.alarm.enable = false;
  if (!watchdog) watchdog = { ms: now() / MS, pc: core.PC >>> 0, lr: core.LR >>> 0 };
};

// ---------------------------------------------------------------- symbols and hooks
// `nm -S` lines of the image's ELF: address, size, type, name. Without them the runner
// measures what needs none (scan rate, latencies, frames, the flash).
const syms = [];
if (plan.symbols) {
  for (const line of fs.readFileSync(plan.symbols, 'utf8').split('\n')) {
    const m = line.match(/^([0-9a-fA-F]{8}) ([0-9a-fA-F]{8}) [tTwW] (\S+)/);
    if (m) syms.push([parseInt(m[1], 16) & ~1, m[3]]);
  }
}
syms.sort((x, y) => x[0] - y[0]);
const sym = (name) => { const s = syms.find((x) => x[1] === name); return s ? s[0] : -1; };
function symOf(pc) { // the symbol a code address is in (RAM: viper code and the like)
  let lo = 0, hi = syms.length - 1, best = -1;
  while (lo <= hi) { const m = (lo + hi) >> 1; if (syms[m][0] <= pc) { best = m; lo = m + 1; } else hi = m - 1; }
  return pc >= 0x20000000 ? 'RAM' : best < 0 ? '?' : syms[best][1];
}
const HOOKS = new Map(); // pc -> handler(pc)
HOOKS.set(ROM_ERASE, flashHook);
HOOKS.set(ROM_PROGRAM, flashHook);
const rec = {
  sleeps: [],   // [call ns, return ns, us asked]
  rows: [],     // ns of each falling edge of the first row
  allocs: [],   // [ns, bytes, block] of every gc_alloc that returned a block
  frees: [],    // [ns, bytes] of gc_free of a block seen allocated
  gcs: [],      // [start ns, duration ns]
  writes: [],   // [ns, bytes written (latin1 text)]
};
const haveSymbols = ['time_sleep_us', 'gc_alloc', 'gc_free', 'gc_collect', 'mp_usbd_cdc_tx_strn'].every((n) => sym(n) >= 0);
const returns = new Map(); // return address -> [handler, ...] of calls under way
function onReturn(lr, fn) {
  const a = lr & ~1;
  if (!returns.has(a)) returns.set(a, []);
  returns.get(a).push(fn);
}
const live = new Map(); // blocks gc_alloc gave and no gc_free has taken back: block -> bytes
let whoAsked = () => '?';
if (haveSymbols) {
  HOOKS.set(sym('time_sleep_us'), () => {
    const t = now(), us = (core.registers[0] | 0) >> 1; // a small int: value << 1 | 1
    onReturn(core.LR, () => rec.sleeps.push([t, now(), us]));
  });
  HOOKS.set(sym('gc_alloc'), () => {
    const n = core.registers[0] >>> 0, lr = whoAsked(core.LR >>> 0);
    onReturn(core.LR, () => {
      const block = core.registers[0] >>> 0;
      if (block) { rec.allocs.push([now(), n, block, lr]); live.set(block, n); }
    });
  });
  // who asked: gc_alloc is mostly called through m_malloc*, whose caller says more
  const wrappers = new Set(['m_malloc', 'm_malloc0', 'm_malloc_maybe', 'm_malloc_with_finaliser', 'm_realloc',
                            'gc_realloc']);
  let mallocCaller = 0;
  for (const n of wrappers) {
    if (sym(n) >= 0) HOOKS.set(sym(n), () => { if (!wrappers.has(symOf(core.LR & ~1))) mallocCaller = core.LR >>> 0; });
  }
  whoAsked = (lr) => (wrappers.has(symOf(lr & ~1)) ? symOf(mallocCaller & ~1) : symOf(lr & ~1));
  HOOKS.set(sym('gc_free'), () => {
    const block = core.registers[0] >>> 0, n = live.get(block);
    if (n !== undefined) { live.delete(block); rec.frees.push([now(), n, block]); }
  });
  HOOKS.set(sym('gc_collect'), () => {
    const t = now();
    onReturn(core.LR, () => rec.gcs.push([t, now() - t]));
  });
  HOOKS.set(sym('mp_usbd_cdc_tx_strn'), () => {
    const p = core.registers[0] >>> 0, n = core.registers[1] >>> 0;
    let s = '';
    for (let i = 0; i < n; i++) s += String.fromCharCode(mcu.readUint8(p + i));
    rec.writes.push([now(), s]);
  });
}


// ---------------------------------------------------------------- the Pi's end of the USB link
const cdc = new USBCDC(mcu.usbCtrl);
// rp2040js' host answers each OUT buffer the device arms at once, with an empty packet
// when it has nothing to send (the device then services one every few microseconds); a
// real host sends nothing until it has bytes. The request waits for them here.
const usb = mcu.usbCtrl;
const hostRead = usb.onEndpointRead;
let heldOut = null;
usb.onEndpointRead = (ep, size) => {
  if (ep === cdc.outEndpoint && cdc.txFIFO.itemCount === 0) { heldOut = size; return; }
  hostRead(ep, size);
};
let connected = false;
cdc.onDeviceConnected = () => { connected = true; };
const sent = []; // [ns, text] the host sent
function hostSend(text) {
  sent.push([now(), text]);
  for (const b of Buffer.from(text, 'latin1')) cdc.sendSerialByte(b);
  if (heldOut !== null) { const s = heldOut; heldOut = null; hostRead(cdc.outEndpoint, s); }
}
function crc16(buf) {
  let crc = 0xffff;
  for (const b of buf) {
    crc ^= b << 8;
    for (let i = 0; i < 8; i++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc;
}
let hostSeq = 0;
function frame(kind, ...args) {
  const body = `@${hostSeq++ % 65536} ${[kind, ...args].join(' ')} `;
  return body + '#' + crc16(Buffer.from(body, 'latin1')).toString(16).toUpperCase().padStart(4, '0') + '\n';
}
const frames = []; // {ns, seq, kind, args, fields}
const text = [];   // lines that are not frames (blank lines, the padding of a packet, are skipped)
let line = '';
const waiters = [];
cdc.onSerialData = (buf) => {
  for (const b of buf) {
    if (b !== 10) { line += String.fromCharCode(b); continue; }
    const l = line.replace(/\r$/, '');
    line = '';
    if (!l) continue;
    const m = l.match(/^@(\d+) ([A-Z]+)((?: \S+)*) #([0-9A-F]{4})$/);
    if (m && crc16(Buffer.from(l.slice(0, -5), 'latin1')) === parseInt(m[4], 16)) {
      const args = m[3].trim().split(' ').filter(Boolean);
      const fields = {};
      for (const a of args) { const i = a.indexOf('='); if (i > 0) fields[a.slice(0, i)] = a.slice(i + 1); }
      const f = { ns: now(), seq: +m[1], kind: m[2], args, fields };
      frames.push(f);
      for (const w of waiters) w(f);
    } else {
      text.push([now(), l]);
    }
  }
};

// ---------------------------------------------------------------- the panel's hardware
// rp2040js models no pull-ups (an undriven input reads 0): the runner drives every
// column and encoder input high itself, and a column low while a closed key's row is low.
let wiring = { rows: [], cols: [], adc: [], encoders: [] };
const closed = new Set(); // r * 100 + c
let rowLow = [];
const rowListeners = [];
function setWiring(w) {
  for (const off of rowListeners.splice(0)) off();
  wiring = { rows: w.rows || [], cols: w.cols || [], adc: w.adc || [], encoders: w.encoders || [] };
  rowLow = wiring.rows.map(() => false);
  for (const p of wiring.cols) mcu.gpio[p].setInputValue(true);
  for (const e of wiring.encoders) for (const p of e) mcu.gpio[p].setInputValue(true);
  wiring.rows.forEach((p, r) => {
    rowListeners.push(mcu.gpio[p].addListener((state) => {
      const low = state === GPIOPinState.Low;
      if (low === rowLow[r]) return;
      rowLow[r] = low;
      if (r === 0 && low) rec.rows.push(now());
      updateCols();
    }));
  });
}
function updateCols() {
  const { rows, cols } = wiring;
  for (let c = 0; c < cols.length; c++) {
    let low = false;
    for (let r = 0; r < rows.length && !low; r++) low = rowLow[r] && closed.has(r * 100 + c);
    const pin = mcu.gpio[cols[c]];
    if (pin.inputValue === low) pin.setInputValue(!low);
  }
}
function key(r, c, down) {
  if (down) closed.add(r * 100 + c); else closed.delete(r * 100 + c);
  updateCols();
}
const setAdc = (ch, v12) => { mcu.adc.channelValues[wiring.adc[ch] - 26] = v12; };
function setEncoder(i, ab) {
  const [a, b] = wiring.encoders[i];
  mcu.gpio[a].setInputValue(!!(ab & 2));
  mcu.gpio[b].setInputValue(!!(ab & 1));
}

// ---------------------------------------------------------------- running
function runFor(ns) {
  const end = now() + ns;
  while (now() < end) {
    if (core.waiting) {
      const n = clock.nanosToNextAlarm;
      clock.tick(n > 0 ? Math.min(n, end - now()) : 1000);
      continue;
    }
    const pc = core.PC;
    const back = returns.get(pc);
    if (back !== undefined) {
      returns.delete(pc);
      for (const fn of back) fn();
    }
    const h = HOOKS.get(pc);
    if (h !== undefined) {
      h(pc);
      if (core.PC !== pc) continue; // the hook returned for the function
    }
    clock.tick(core.executeInstruction() * 8); // 125 MHz
  }
  if (watchdog) throw new Error(`the watchdog fired at ${watchdog.ms.toFixed(1)} ms (a board resets there); ` +
                                `PC ${watchdog.pc.toString(16)}, LR ${watchdog.lr.toString(16)}`);
  if ((Date.now() - wall0) / 1000 > (plan.wallLimit || 3600)) throw new Error('wall-clock limit reached');
}
function runUntil(pred, maxNs, stepNs = 0.1 * MS) {
  const end = now() + maxNs;
  while (now() < end) {
    if (pred()) return true;
    runFor(Math.min(stepNs, end - now()));
  }
  return pred();
}
function waitFrame(test, maxNs, from = frames.length) {
  runUntil(() => frames.slice(from).some(test), maxNs, 20 * US);
  return frames.slice(from).find(test) || null;
}

// ---------------------------------------------------------------- analysis
function stats(xs) {
  if (!xs.length) return null;
  const s = Float64Array.from(xs).sort();
  const q = (p) => s[Math.min(s.length - 1, Math.floor(p * s.length))];
  return { n: s.length, min: s[0], p50: q(0.5), p99: q(0.99), max: s[s.length - 1],
           mean: s.reduce((a, b) => a + b, 0) / s.length };
}
const inUs = (st) => st && Object.fromEntries(Object.entries(st).map(([k, v]) => [k, k === 'n' ? v : +(v / US).toFixed(1)]));
const between = (xs, a, b, at = (x) => x[0]) => xs.filter((x) => at(x) >= a && at(x) < b);

// The loop's steps in [t0, t1]: from a sleep's return to the next sleep's call, split at
// first-row edges when the loop did not sleep between scans (it had fallen behind).
function steps(t0, t1) {
  const sl = rec.sleeps.filter(([a, b]) => b >= t0 && a < t1);
  const out = [];
  let ri = 0;
  for (let i = 1; i < sl.length; i++) {
    const a = sl[i - 1][1], b = sl[i][0];
    while (ri < rec.rows.length && rec.rows[ri] <= a) ri++;
    const cuts = [a];
    for (let k = ri + 1; k < rec.rows.length && rec.rows[k] < b; k++) cuts.push(rec.rows[k]);
    cuts.push(b);
    for (let k = 1; k < cuts.length; k++) out.push({ t0: cuts[k - 1], t1: cuts[k], merged: cuts.length > 2 });
  }
  // what happened in each step
  let ai = 0, fi = 0, wi = 0, gi = 0;
  const freedIn = new Map();
  for (const s of out) {
    while (ai < rec.allocs.length && rec.allocs[ai][0] < s.t0) ai++;
    s.allocs = 0; s.bytes = 0; s.kept = 0;
    const blocks = [];
    for (let k = ai; k < rec.allocs.length && rec.allocs[k][0] < s.t1; k++) {
      s.allocs++; s.bytes += rec.allocs[k][1]; blocks.push(rec.allocs[k]);
    }
    while (fi < rec.frees.length && rec.frees[fi][0] < s.t0) fi++;
    freedIn.clear();
    for (let k = fi; k < rec.frees.length && rec.frees[k][0] < s.t1; k++) freedIn.set(rec.frees[k][2], true);
    for (const [, n, block] of blocks) if (!freedIn.has(block)) s.kept += n;
    while (wi < rec.writes.length && rec.writes[wi][0] < s.t0) wi++;
    s.written = [];
    for (let k = wi; k < rec.writes.length && rec.writes[k][0] < s.t1; k++) s.written.push(rec.writes[k][1]);
    while (gi < rec.gcs.length && rec.gcs[gi][0] < s.t0) gi++;
    s.gc = gi < rec.gcs.length && rec.gcs[gi][0] < s.t1;
    s.input = sent.some(([t]) => t >= s.t0 - 2 * MS && t < s.t1);
    s.us = (s.t1 - s.t0) / US;
  }
  return out;
}
// The frames in a step's writes: the kinds of the lines that end in it.
const kindsWritten = (s) => s.written.join('').split('\n').filter((l) => l.startsWith('@')).map((l) => l.split(' ')[1]);

function loopFigures(t0, t1) {
  const st = steps(t0, t1);
  const idle = st.filter((s) => !s.written.length && !s.gc && !s.input);
  const one = st.filter((s) => s.written.length === 1 && kindsWritten(s).length === 1 && !s.gc && !s.input);
  const edges = rec.rows.filter((t) => t >= t0 && t < t1);
  const perSecond = [];
  for (let a = t0; a + NS <= t1; a += NS) perSecond.push(rec.rows.filter((t) => t >= a && t < a + NS).length);
  const idleP50 = stats(idle.map((s) => s.us));
  const oneP50 = stats(one.map((s) => s.us));
  const allocs = between(rec.allocs, t0, t1);
  const freed = new Set(between(rec.frees, t0, t1).map((f) => f[2]));
  const kept = allocs.filter((a) => !freed.has(a[2])).reduce((x, a) => x + a[1], 0);
  return {
    seconds: (t1 - t0) / NS,
    scans_per_s: edges.length > 1 ? (edges.length - 1) / ((edges[edges.length - 1] - edges[0]) / NS) : 0,
    scans_per_s_lowest_second: perSecond.length ? Math.min(...perSecond) : null,
    steps: st.length,
    step_us: stats(st.map((s) => s.us)),
    idle_step_us: idleP50,
    idle_steps: idle.length,
    idle_allocs_per_step: idle.length ? idle.reduce((x, s) => x + s.allocs, 0) / idle.length : null,
    idle_bytes_per_step: idle.length ? idle.reduce((x, s) => x + s.bytes, 0) / idle.length : null,
    steps_over_1ms: st.filter((s) => s.us > 1000).length,
    largest_step: st.length ? (() => { const s = st.reduce((a, b) => (b.us > a.us ? b : a));
      return { us: s.us, at_ms: s.t0 / MS, wrote: kindsWritten(s), gc: s.gc, input: s.input }; })() : null,
    // a step that wrote one frame (and did nothing else) against the idle steps
    one_frame: one.length && idleP50 ? {
      steps: one.length, step_p50_us: oneP50.p50, extra_us: oneP50.p50 - idleP50.p50,
      extra_max_us: oneP50.max - idleP50.p50,
      allocs_per_step: one.reduce((x, s) => x + s.allocs, 0) / one.length,
      kept_bytes_per_step: one.reduce((x, s) => x + s.kept, 0) / one.length,
      kinds: [...new Set(one.flatMap(kindsWritten))],
    } : null,
    frame_steps_kept_bytes: st.filter((s) => s.written.length && !s.input).reduce((x, s) => x + s.kept, 0),
    heap_allocs: allocs.length,
    heap_kept_bytes: kept, // allocated in the span and not freed in it: what the collector must find
    gc: between(rec.gcs, t0, t1).map(([t, d]) => ({ at_ms: +(t / MS).toFixed(1), pause_us: +(d / US).toFixed(0) })),
    gc_in_a_scan: between(rec.gcs, t0, t1).filter(([t]) => rec.rows.some((e) => e > t - 300 * US && e <= t)).length,
  };
}

// ---------------------------------------------------------------- the scenarios
let seed = plan.seed || 1;
const rnd = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
const result = { scenario: plan.scenario, label: plan.label, symbols: haveSymbols };

function boot() {
  core.PC = 0x10000000; // boot2, then the image
  setWiring(plan.wiring || {});
  const hello = waitFrame((f) => f.kind === 'HELLO', 10 * NS);
  if (!connected || !hello) throw new Error('the board never said HELLO: ' + JSON.stringify(text.slice(-5)));
  result.hello = hello.args.join(' ');
  result.boot_ms = hello.ns / MS;
  // the Pi's handshake; the board then collects the garbage the answer made, at a quiet step
  const n0 = frames.length;
  hostSend(frame('HELLO', 'proto=2', 'host=bench'));
  if (!waitFrame((f) => f.kind === 'SNAP', 2 * NS, n0)) throw new Error('no SNAP after HELLO');
  runFor(0.1 * NS);
}

function ping(n) {
  const n0 = frames.length, t = now();
  hostSend(frame('PING', String(n)));
  const f = waitFrame((x) => x.kind === 'PONG' && x.args[0] === String(n), 2 * NS, n0);
  return f ? f.ns - t : null;
}

function scenarioRate() {
  boot();
  const t0 = now();
  runFor(plan.seconds * NS);
  result.loop = loopFigures(t0, now());
  result.beat_rates = frames.filter((f) => f.kind === 'BEAT' && f.ns >= t0).map((f) => +f.fields.rate);
}

// Keys pressed at random moments of the scan, one at a time; then PINGs.
function scenarioLatency() {
  boot();
  const { rows, cols } = wiring;
  const down = [], up = [];
  for (let i = 0; i < plan.trials; i++) {
    runFor((3 + 7 * rnd()) * MS);
    const r = Math.floor(rnd() * rows.length), c = Math.floor(rnd() * cols.length);
    let n0 = frames.length, t = now();
    key(r, c, true);
    const d = waitFrame((f) => f.kind === 'DOWN', 0.2 * NS, n0);
    if (!d || +d.args[0] !== r || +d.args[1] !== c) throw new Error(`key ${r},${c}: DOWN ${d && d.args}`);
    down.push(d.ns - t);
    runFor((20 + 30 * rnd()) * MS);
    n0 = frames.length; t = now();
    key(r, c, false);
    const u = waitFrame((f) => f.kind === 'UP', 0.2 * NS, n0);
    if (!u || +u.args[0] !== r || +u.args[1] !== c) throw new Error(`key ${r},${c}: UP ${u && u.args}`);
    up.push(u.ns - t);
  }
  result.down_us = inUs(stats(down));
  result.up_us = inUs(stats(up));
  const pings = [];
  // PINGs 20-60 ms apart, as the Pi's sync() sends them: the board collects a command's
  // garbage (~10 ms) once its answer is out, which a PING sent right after would wait for
  for (let i = 1; i <= plan.pings; i++) { pings.push(ping(i)); runFor((20 + 40 * rnd()) * MS); }
  result.ping_us = inUs(stats(pings.filter((x) => x !== null)));
}

// Play: keys pressed and released (several held at once), sliders moved, the knob
// turned, the heartbeat: frames flowing for plan.seconds. Everything the board says must
// be what the hands did.
function scenarioPlay() {
  boot();
  const { rows, cols, adc, encoders } = wiring;
  const t0 = now(), end = t0 + plan.seconds * NS;
  const n0 = frames.length;
  const held = new Map(); // key -> release time
  const freed = new Map(); // key -> when it was let go: a press within the board's release_ms
  // after that is one long press to the board, by design (contact chatter), so the hands wait
  const want = [];        // [row, col, down] in order, per key
  const presses = [];     // [ns, r, c] to measure DOWN latency
  const enc = encoders.map(() => ({ ab: 3, pos: 0, steps: 0 }));
  let nextKey = now(), nextAdc = now() + 0.2 * NS, nextEnc = now() + 0.3 * NS;
  const adcSet = adc.map(() => 2048);
  const QUAD = [3, 1, 0, 2]; // A/B levels one way round (encoder.STEP counts them +1 each)
  while (now() < end) {
    const t = now();
    for (const [k, at] of held) {
      if (t < at) continue;
      key(Math.floor(k / 100), k % 100, false);
      want.push([Math.floor(k / 100), k % 100, false]);
      held.delete(k);
      freed.set(k, t);
    }
    if (t >= nextKey) {
      if (held.size < 3) {
        const r = Math.floor(rnd() * rows.length), c = Math.floor(rnd() * cols.length);
        if (!held.has(r * 100 + c) && !(t - (freed.get(r * 100 + c) ?? -NS) < 20 * MS)) {
          key(r, c, true);
          want.push([r, c, true]);
          presses.push([t, r, c]);
          held.set(r * 100 + c, t + (30 + 270 * rnd()) * MS);
        }
      }
      nextKey = t + (20 + 180 * rnd()) * MS;
    }
    if (adc.length && t >= nextAdc) {
      const ch = Math.floor(rnd() * adc.length);
      adcSet[ch] = Math.floor(rnd() * 4096);
      setAdc(ch, adcSet[ch]);
      nextAdc = t + (200 + 600 * rnd()) * MS;
    }
    if (encoders.length && t >= nextEnc) {
      const e = enc[0];
      e.steps++;
      setEncoder(0, QUAD[e.steps % 4]);
      // a detent is four steps 2 ms apart, then a pause
      nextEnc = t + (e.steps % 4 ? 2 : 100 + 400 * rnd()) * MS;
    }
    runFor(0.5 * MS);
  }
  for (const [k] of held) { key(Math.floor(k / 100), k % 100, false); want.push([Math.floor(k / 100), k % 100, false]); }
  runFor(0.1 * NS);
  const t1 = now();
  const got = frames.slice(n0);
  const keysGot = got.filter((f) => f.kind === 'DOWN' || f.kind === 'UP').map((f) => [+f.args[0], +f.args[1], f.kind === 'DOWN']);
  const perKey = (xs) => { const m = {}; for (const [r, c, d] of xs) (m[r * 100 + c] ||= []).push(d); return JSON.stringify(Object.entries(m).sort()); };
  result.keys_as_pressed = perKey(keysGot) === perKey(want);
  result.key_events = { pressed: want.filter((x) => x[2]).length, down_frames: keysGot.filter((x) => x[2]).length,
                        up_frames: keysGot.filter((x) => !x[2]).length };
  const lat = [];
  for (const [t, r, c] of presses) {
    const d = got.find((f) => f.kind === 'DOWN' && f.ns >= t && +f.args[0] === r && +f.args[1] === c);
    if (d) lat.push(d.ns - t);
  }
  result.down_us = inUs(stats(lat));
  if (encoders.length) {
    const pos = got.filter((f) => f.kind === 'ENC');
    result.encoder = { detents_turned: Math.floor(enc[0].steps / 4), last_position: pos.length ? +pos[pos.length - 1].args[1] : 0 };
  }
  if (adc.length) {
    const last = adc.map((_, ch) => { const xs = got.filter((f) => f.kind === 'ADC' && +f.args[0] === ch); return xs.length ? +xs[xs.length - 1].args[1] : null; });
    result.adc = { set: adcSet, last_reported: last };
  }
  result.frames = got.reduce((m, f) => ((m[f.kind] = (m[f.kind] || 0) + 1), m), {});
  result.seq_gaps = got.filter((f, i) => i && f.seq !== (got[i - 1].seq + 1) % 65536).length;
  result.bad_lines = text.filter(([t]) => t >= t0).length;
  result.loop = loopFigures(t0, t1);
  result.beat_rates = got.filter((f) => f.kind === 'BEAT').map((f) => +f.fields.rate);
}

// A save that fails: the Pi pushes a CFG (another config) to a board whose flash keeps
// nothing written (plan.flash "broken"). The board must say so once, run on the new
// config, keep its pace, and announce the new config's checksum (so the Pi does not push
// it again).
function scenarioFlash() {
  boot();
  const n0 = frames.length, t = now();
  const cfgText = JSON.stringify(plan.cfg).replace(/ /g, '');
  hostSend(frame('CFG', cfgText));
  const hello = waitFrame((f) => f.kind === 'HELLO', 20 * NS, n0);
  if (!hello) throw new Error('no HELLO after the CFG: ' + JSON.stringify(frames.slice(n0).map((f) => f.kind)));
  setWiring(plan.cfg);
  waitFrame((f) => f.kind === 'SNAP', 2 * NS, n0);
  const got = frames.slice(n0);
  result.answer = got.map((f) => f.kind);
  result.errors = got.filter((f) => f.kind === 'ERR').map((f) => f.args.join(' '));
  result.save_ms = (hello.ns - t) / MS;
  const ack = got.find((f) => f.kind === 'ACK');
  result.cfg_acked = ack ? ack.fields.cfg : null;
  result.cfg_in_hello = hello.fields.cfg;
  result.flash_ops = { ...flashOps };
  runFor(0.3 * NS);
  const t0 = now();
  const n1 = frames.length;
  const { rows, cols } = wiring;
  key(rows.length - 1, cols.length - 1, true);
  const d = waitFrame((f) => f.kind === 'DOWN', 0.2 * NS, n1);
  result.down_on_new_wiring = !!d && +d.args[0] === rows.length - 1 && +d.args[1] === cols.length - 1;
  runFor(plan.seconds * NS);
  result.loop = loopFigures(t0, now());
}

// plan.main is benchmarks/pico_frame.py as main.py: its own lines say when it measured.
function scenarioFrame() {
  core.PC = 0x10000000;
  setWiring(plan.wiring || {});
  const said = (s) => text.find(([, l]) => l.startsWith(s));
  runUntil(() => said('FRAME {') || said('Traceback'), 30 * NS, 1 * MS);
  const b = said('FRAME BEGIN'), e = said('FRAME END'), r = said('FRAME {');
  if (!b || !e || !r) throw new Error('the frame main.py did not finish: ' + JSON.stringify(text.slice(-5)));
  // the span: from the USB write of the BEGIN line to that of the END line
  const wrote = (s) => (rec.writes.find(([, d]) => d.includes(s)) || [null])[0];
  const [t0, t1] = [wrote('FRAME BEGIN') ?? b[0], wrote('FRAME END') ?? e[0]];
  result.frames = JSON.parse(r[1].slice(6)); // kind: [queue p50, max, write p50, max] us
  const allocs = between(rec.allocs, t0, t1);
  result.allocs = allocs.length;
  result.alloc_bytes = allocs.reduce((x, a) => x + a[1], 0);
  const freed = new Set(between(rec.frees, t0, t1).map((f) => f[2]));
  result.kept_bytes = allocs.filter((a) => !freed.has(a[2])).reduce((x, a) => x + a[1], 0);
  result.alloc_callers = allocs.map((a) => a[3]);
  result.frames_sent = frames.filter((f) => f.ns >= t0 && f.ns < t1 + 2 * MS).length;
  result.usb_writes = between(rec.writes, t0, t1).length;
}

try {
  ({ frame: scenarioFrame, rate: scenarioRate, latency: scenarioLatency, play: scenarioPlay, flash: scenarioFlash })[plan.scenario]();
} catch (e) {
  result.error = String(e && e.message || e);
  result.text = text.slice(-20).map(([t, l]) => [+(t / MS).toFixed(1), l.slice(0, 200)]);
}
result.emulated_s = now() / NS;
result.wall_s = (Date.now() - wall0) / 1000;
fs.writeFileSync(plan.out, JSON.stringify(result, null, 1));
process.exit(0);
