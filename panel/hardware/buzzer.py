"""The buzzer: short tunes played as scheduled steps, never blocking the loop.

A gpiozero TonalBuzzer on a PWM-capable pin. `play(name, now)` starts a tune; the loop
calls `poll(now)` at `deadline` to move to the next note. A tune of higher priority cuts
a lower one; the last-seconds tick never cuts a mistake or an end-of-turn sound.
"""

from __future__ import annotations

from panel.hardware.resource import Closeable

# (frequency in Hz or None for a rest, seconds). All within 220-3520 Hz, the buzzer's range.
TUNES: dict[str, tuple[tuple[float | None, float], ...]] = {
    "tick": ((2093.0, 0.04),),
    "turn_start": ((880.0, 0.08), (1318.5, 0.12)),
    "card": ((1318.5, 0.07), (1760.0, 0.12)),
    "mistake": ((329.6, 0.15), (None, 0.05), (246.9, 0.35)),
    "turn_end": ((1760.0, 0.15), (1318.5, 0.15), (880.0, 0.35)),
    "game_end": ((880.0, 0.12), (1108.7, 0.12), (1318.5, 0.12), (1760.0, 0.5)),
    "challenge": ((987.8, 0.1), (None, 0.06), (987.8, 0.1), (None, 0.06), (987.8, 0.25)),
    # Penguin Kaboom: the alert is a siren, called again while no one reports the card flipped
    "kaboom_start": ((880.0, 0.08), (1318.5, 0.12)),
    "kaboom_pass": ((1318.5, 0.06),),
    "kaboom_recharge": ((659.3, 0.06), (880.0, 0.06), (1318.5, 0.1)),
    "kaboom_alert": ((880.0, 0.18), (1318.5, 0.18)) * 3,
    "kaboom_confirmed": ((1046.5, 0.1), (None, 0.05), (1046.5, 0.1), (1568.0, 0.25)),
    "kaboom_success": ((880.0, 0.12), (1108.7, 0.12), (1318.5, 0.12), (1760.0, 0.12), (None, 0.08),
                       (1760.0, 0.6)),
    "kaboom_failed": ((392.0, 0.3), (329.6, 0.3), (261.6, 0.7)),
}
PRIORITY = {"tick": 0, "turn_start": 1, "card": 1, "mistake": 2, "challenge": 2, "turn_end": 3, "game_end": 4,
            "kaboom_pass": 1, "kaboom_recharge": 1, "kaboom_start": 1, "kaboom_confirmed": 2, "kaboom_alert": 3,
            "kaboom_success": 4, "kaboom_failed": 4}
LOW, HIGH = 220.0, 3520.0


class BuzzerPlayer(Closeable):
    def __init__(self, pin: int | None = None, *, pin_factory=None, device=None):
        if device is None:
            from gpiozero import TonalBuzzer
            from gpiozero.tones import Tone

            # A5 +- 2 octaves: 220-3520 Hz, where a small piezo is loud.
            device = TonalBuzzer(pin, mid_tone=Tone("A5"), octaves=2, pin_factory=pin_factory)
        self._device = device
        self._steps: list[tuple[float | None, float]] = []
        self._until: float | None = None
        self.playing: str | None = None

    @property
    def deadline(self) -> float | None:
        return self._until

    def play(self, name: str, now: float) -> bool:
        """Start tune `name` at `now`, unless a more important one is playing."""
        if self.playing is not None and PRIORITY[self.playing] > PRIORITY[name]:
            return False
        self.playing = name
        self._steps = list(TUNES[name])
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
            from gpiozero.tones import Tone

            self._device.play(Tone.from_frequency(min(max(freq, LOW), HIGH)))
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
        from gpiozero.tones import Tone

        self._steps, self._until, self.playing = [], None, None
        if tone is None:
            self._device.stop()
        else:
            self._device.play(Tone(tone))

    def close(self) -> None:
        if self._device is not None:
            self._device.close()
            self._device = None

