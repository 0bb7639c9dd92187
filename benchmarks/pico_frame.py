# The main.py of benchmarks/pico.py's "frame" scenario (not firmware: it replaces main.py
# on the emulated board, beside the firmware's own files). It builds the board as main.py
# does, then times, on the board's own clock, what one frame costs: queueing it
# (Outbox.put_numbers, the frame written into the outbox) and writing it out
# (Outbox.flush: one USB packet), each kind many times, between two "FRAME" lines the
# runner counts the heap's allocations in; the last line carries the figures (each time
# includes one time.ticks_us call, ~5 us).
import gc
import json
from array import array
import select
import sys
import time

import machine

import app
import rp2fast

store = app.FileStore()
board = app.Coprocessor(machine, time, app.StdioPort(sys, select), store.load(), store=store, fast=rp2fast,
                  collect=gc.collect)
out = board.out
v = out.vals
N = 50
KINDS = (("DOWN", app.DOWN, (3, 11, 123456)), ("ADC", app.ADC, (2, 4095, 123456)),
         ("ENC", app.ENC, (0, -17, 123456)), ("BEAT", app.BEAT, (123456, 1000, 0, 0)),
         ("PONG", app.PONG, (65535, 123456)))
ticks, diff = time.ticks_us, time.ticks_diff
put = array("i", [0] * (N * len(KINDS)))     # made before the counted span: no allocation in it
write = array("i", [0] * (N * len(KINDS)))
while out.size:  # the boot frames out first
    board.port.read()
    out.flush()
gc.collect()
board.wdt.feed()


def measure():
    # (in a function: its names are locals; at the top level the first use of each would
    # grow the module's dict, an allocation in the counted span)
    sys.stdout.write("FRAME BEGIN\n")
    for j in range(len(KINDS)):
        fields = KINDS[j][2]
        for i in range(len(fields)):
            v[1 + i] = fields[i]
        tmpl = KINDS[j][1]
        for k in range(N):
            board.port.read()  # the step's poll: what tells the port it has room
            t0 = ticks()
            out.put_numbers(tmpl)
            t1 = ticks()
            out.flush()
            t2 = ticks()
            put[j * N + k] = diff(t1, t0)
            write[j * N + k] = diff(t2, t1)
        board.wdt.feed()
    sys.stdout.write("FRAME END\n")


measure()
res = {}
for j in range(len(KINDS)):
    a = sorted(put[j * N:(j + 1) * N])
    b = sorted(write[j * N:(j + 1) * N])
    res[KINDS[j][0]] = [a[N // 2], a[-1], b[N // 2], b[-1]]
sys.stdout.write("FRAME " + json.dumps(res) + "\n")
