"""The buzzer: short tunes played as scheduled steps, never blocking the loop.

A gpiozero TonalBuzzer on a PWM-capable pin. `play(name, now, steps=..., priority=...)`
starts a tune; the loop calls `poll(now)` at `deadline` to move to the next note. A tune
of higher priority cuts a lower one (the last-seconds tick never cuts a mistake or an
end-of-turn sound). The buzzer knows no game: each game's show declares its tunes and
their priorities (panel/games/<game>/show.py), and the effects hand it the one to play.
"""

from __future__ import annotations

from functools import cache, cached_property

from panel.games.lights import Steps
from panel.hardware.resource import Closeable

LOW, HIGH = 220.0, 3520.0


@cache
def _buzzer_of_fixed_range() -> type:
    """gpiozero's TonalBuzzer, its lowest and highest tones worked out once: its `play` checks
    every note against both, and works each out again from the middle tone and the octaves
    (fifteen calls of a mistake's first note, on the press path), though neither can change
    once the buzzer is made. (Made on first use: gpiozero is loaded only where a buzzer is.)"""
    from gpiozero import TonalBuzzer

    class BuzzerOfFixedRange(TonalBuzzer):
        min_tone = cached_property(TonalBuzzer.min_tone.fget)
        max_tone = cached_property(TonalBuzzer.max_tone.fget)

    return BuzzerOfFixedRange


class BuzzerPlayer(Closeable):
    def __init__(self, pin: int | None = None, *, pin_factory=None, device=None):
        from gpiozero.tones import Tone

        if device is None:
            # A5 +- 2 octaves: 220-3520 Hz, where a small piezo is loud.
            device = _buzzer_of_fixed_range()(pin, mid_tone=Tone("A5"), octaves=2, pin_factory=pin_factory)
        self._device = device
        self._tone = Tone
        self._tones: dict[float, Tone] = {}  # each note's Tone made once: a mistake's first note is on the press path
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
            self._device.stop()
            self.playing = None
            self._until = None
            return
        freq, seconds = self._steps.pop(0)
        if freq is None:
            self._device.stop()
        else:
            tone = self._tones.get(freq)
            if tone is None:
                tone = self._tones[freq] = self._tone.from_frequency(min(max(freq, LOW), HIGH))
            self._device.play(tone)
        self._until = now + seconds

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
        self._steps, self._until, self.playing = [], None, None
        if tone is None:
            self._device.stop()
        else:
            self._device.play(self._tone(tone))

    def close(self) -> None:
        if self._device is not None:
            self._device.close()
            self._device = None

