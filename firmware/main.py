# Coprocessor entry point: MicroPython runs main.py at every boot. It wires the real machine,
# time, USB serial and flash into app.Coprocessor and runs it. Nothing here is needed under
# CPython; everything it calls is tested there with fakes.
#
# Maintenance mode (no app, no watchdog, the REPL free for mpremote): hold the BOOTSEL
# button while the board starts, or send MAINT over the link, or press Ctrl-C in a
# terminal (the board then resets into maintenance mode once). `mpremote reset` or a
# power cycle runs the app again.
import gc
import sys
import time
import machine
import select

import app


def bootsel():
    try:
        import rp2
        return rp2.bootsel_button() == 1
    except (ImportError, AttributeError):
        return False


def main():
    store = app.FileStore()
    if store.take_maint() or bootsel():
        print("penguin-panel firmware " + app.FIRMWARE_VERSION + ": maintenance mode, app not started")
        return
    fast = None
    if sys.platform == "rp2":  # its registers: the hot loop in machine code (rp2fast.py)
        try:
            import rp2fast as fast
        except (ImportError, SyntaxError):  # a MicroPython built without viper
            pass
    board = app.Coprocessor(machine, time, app.StdioPort(sys, select), store.load(), store=store,
                      fast=fast, collect=gc.collect)
    try:
        board.run()
    except KeyboardInterrupt:
        # The watchdog cannot be stopped: leaving it running at the REPL would reset
        # the board mid-copy. Reboot once without it instead.
        store.set_maint()
        machine.reset()


main()
