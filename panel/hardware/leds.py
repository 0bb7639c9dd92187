"""The NeoPixel chain behind a small interface: a whole frame in, written at once.

`NeoPixelStrip` drives real pixels with Adafruit's drivers, imported only when one is
made (they pull in Blinka, which only loads on a board). `FakeStrip` keeps every frame it
was given, for the tests and the simulator. Brightness is the driver's job; frames are
full-scale (r, g, b).
"""

from __future__ import annotations

from typing import Protocol, Sequence

from panel.hardware.resource import Closeable

from panel.core.colour import Colour
Frame = tuple[Colour, ...]


class PixelStrip(Protocol):
    count: int

    def write(self, frame: Sequence[Colour]) -> None: ...

    def close(self) -> None: ...


class FakeStrip(Closeable):
    """A strip that remembers: `frames` holds every frame written, `last` the latest."""

    def __init__(self, count: int, *, keep: int | None = None):
        self.count = count
        self.keep = keep
        self.frames: list[Frame] = []
        self.closed = False

    @property
    def last(self) -> Frame:
        return self.frames[-1] if self.frames else tuple((0, 0, 0) for _ in range(self.count))

    def write(self, frame: Sequence[Colour]) -> None:
        if self.closed:
            raise RuntimeError("the strip is closed")
        if len(frame) != self.count:
            raise ValueError(f"a frame for this strip has {self.count} pixels, not {len(frame)}")
        self.frames.append(tuple(frame))
        if self.keep is not None and len(self.frames) > self.keep:
            del self.frames[0]

    def close(self) -> None:
        self.closed = True



class NeoPixelStrip(Closeable):
    """Real pixels. driver "spi": adafruit-circuitpython-neopixel-spi on SPI0 MOSI (GPIO10)
    or SPI1 MOSI (GPIO20): no root, no clash with the audio PWM, works on a Pi 5.
    driver "pwm": adafruit-circuitpython-neopixel (rpi_ws281x) on GPIO10/12/18/21, root."""

    def __init__(self, pin: int, count: int, *, driver: str = "spi", order: str = "GRB", brightness: float = 0.3):
        import board  # Blinka: only on a board

        self.count = count
        if driver == "spi":
            import neopixel_spi

            if pin == 10:
                spi = board.SPI()
            elif pin == 20:
                import busio

                spi = busio.SPI(board.SCLK_1, MOSI=board.MOSI_1)
            else:
                raise ValueError(f"the spi NeoPixel driver drives GPIO10 or GPIO20, not GPIO{pin}")
            self._pixels = neopixel_spi.NeoPixel_SPI(spi, count, pixel_order=order, brightness=brightness,
                                                     auto_write=False)
        elif driver == "pwm":
            import neopixel

            self._pixels = neopixel.NeoPixel(getattr(board, f"D{pin}"), count, pixel_order=order,
                                             brightness=brightness, auto_write=False)
        else:
            raise ValueError(f"unknown NeoPixel driver {driver!r} (spi or pwm)")

    def write(self, frame: Sequence[Colour]) -> None:
        self._pixels[:] = list(frame)
        self._pixels.show()

    def close(self) -> None:
        if self._pixels is not None:
            self._pixels.fill((0, 0, 0))
            self._pixels.show()
            self._pixels.deinit()
            self._pixels = None



def open_strip(config, *, sim: bool = False) -> PixelStrip:
    """The strip a hardware map's [neopixel] table describes; a FakeStrip under --sim."""
    if sim:
        return FakeStrip(config.count, keep=1000)
    return NeoPixelStrip(config.pin, config.count, driver=config.driver, order=config.order,
                         brightness=config.brightness)
