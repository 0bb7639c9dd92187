"""The buzzer: short tunes played as scheduled steps, never blocking the loop.

A passive piezo on a PWM-capable pin, through gpiozero's PWMOutputDevice.
`play(name, now, steps=..., priority=...)` starts a tune; the loop calls `poll(now)` at
`deadline` to move to the next note. A tune of higher priority cuts a lower one (the
last-seconds tick never cuts a mistake or an end-of-turn sound). The buzzer knows no game:
each game's show declares its tunes and their priorities (panel/games/<game>/show.py), and
the effects hand it the one to play.
"""

from __future__ import annotations

from panel.games.lights import Steps
from panel.hardware.resource import Closeable

LOW, HIGH = 220.0, 3520.0  # A3 to A7 (A5 +- 2 octaves): where a small piezo is loud; notes are kept in it


class BuzzerPlayer(Closeable):
    def __init__(self, pin: int | None = None, *, pin_factory=None, device=None):
        if device is None:
            from gpiozero import PWMOutputDevice

            # A passive piezo sounds a note as a square wave (on half the time) at the note's
            # frequency: gpiozero's PWM output, the device its TonalBuzzer drives, used as
            # itself. The notes are kept in LOW..HIGH here, so TonalBuzzer's own check of
            # each note's range, through Tone objects (ten calls of a mistake's first note,
            # on the press path), would only say it again. Silent: no frequency, as there.
            device = PWMOutputDevice(pin, pin_factory=pin_factory)
            device.frequency = None
        self._device = device
        self._steps: list[tuple[float | None, float]] = []
        self._until: float | None = None
        self.playing: str | None = None
        self._priority = 0  # the playing tune's

    @property
    def deadline(self) -> float | None:
        return self._until

    def play(self, name: str, now: float, *, steps: Steps, priority: int = 0) -> bool:
        """Start tune `name` (its `steps`) at `now`, unless a more important one is playing."""
        if self.playing is not None and self._priority > priority:
            return False
        self.playing, self._priority = name, priority
        self._steps = list(steps)
        self._next(now)
        return True

    def _next(self, now: float) -> None:
        if not self._steps:
            self._sound(None)
            self.playing = None
            self._until = None
            return
        freq, seconds = self._steps.pop(0)
        self._sound(freq)
        self._until = now + seconds

    def _sound(self, freq: float | None) -> None:
        """The piezo at `freq` Hz (kept in LOW..HIGH), or silent (None)."""
        if freq is None:
            self._device.frequency = None
        else:
            self._device.frequency = min(max(freq, LOW), HIGH)
            self._device.value = 0.5

    def poll(self, now: float) -> None:
        if self._until is None or now < self._until:
            return
        # If the loop was late, skip the notes whose time has passed: sound the one due now.
        start = self._until
        while self._steps and start + self._steps[0][1] <= now:
            start += self._steps.pop(0)[1]
        self._next(start)

    def note(self, tone: str | None) -> None:
        """Sound one note by name ("A4") until the next call, None for silence: the
        self-test's tones, outside any tune."""
        from gpiozero.tones import Tone

        self._steps, self._until, self.playing = [], None, None
        self._sound(None if tone is None else Tone(tone).frequency)

    def close(self) -> None:
        if self._device is not None:
            self._device.close()
            self._device = None

