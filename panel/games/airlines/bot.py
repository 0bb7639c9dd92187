"""A simulated crew: plays the card in play the way people do, slips now and then.

Used by `penguin-panel demo`, the benchmarks and the service's soak tests. It reads the
card from the match's snapshot (what the tower sees) and produces the inputs a crew
would make, with human-ish gaps; it never reaches into the engine's insides.
"""

from __future__ import annotations

import random
from typing import Any

from panel.games.airlines.engine import Match, Phase
from panel.core.events import Action, InputEvent


class BotCrew:
    """Produces the inputs for one card at a time.

    `accuracy` is the chance each instruction is carried out right; a slip presses a
    wrong button of the panel instead.
    """

    def __init__(self, match: Match, *, seed: int = 0, accuracy: float = 0.93, pace: float = 1.0):
        self.match = match
        self.rng = random.Random(seed)
        self.accuracy = accuracy
        self.pace = pace  # mean seconds between two instructions

    def _gap(self) -> float:
        return round(self.rng.uniform(0.4, 1.6) * self.pace, 3)

    def inputs_for_card(self, card: dict[str, Any], t: float) -> list[InputEvent | Action]:
        layout = self.match.layout
        out: list[InputEvent | Action] = []

        def press(control: str) -> None:
            nonlocal t
            t += self._gap()
            if self.rng.random() > self.accuracy:
                control = self.rng.choice(sorted(layout.buttons))
            out.append(InputEvent(control, True, t))
            out.append(InputEvent(control, False, round(t + 0.12, 3)))
            t += 0.12

        if card["kind"] == "simple":
            for b in card.get("press", []):
                press(b)
            for tok, pos in card.get("set", {}).items():
                t += self._gap()
                out.append(InputEvent(tok, pos, t))
        else:
            section_id = card.get("section")
            if section_id is None:
                section_id = next(s.id for s in layout.sections.values() if s.kind == "keypad")
            section = layout.sections[section_id]
            steps = card["steps"] if card["kind"] != "activation" else list(card["word"])
            for s in steps:
                press(section.roles[s])
            press(section.ok)
        return out

    def play_turn(self, t: float) -> tuple[list[InputEvent | Action], float]:
        """Every input of one whole turn from `t`, fed to the match as it goes."""
        inputs: list[InputEvent | Action] = [Action("start_turn", t)]
        self.match.handle(inputs[0])
        while self.match.phase is Phase.IN_TURN:
            snap = self.match.snapshot(t)
            if snap["time_left"] is not None and snap["time_left"] < 6 and snap["counters_held"] > 0:
                flip = Action("flip", t)
                inputs.append(flip)
                self.match.handle(flip)
            card = snap["card"]
            if card is None:
                break
            planned = self.inputs_for_card(card, t)
            for ev in planned:
                inputs.append(ev)
                self.match.handle(ev)
                if self.match.phase is not Phase.IN_TURN:
                    break
            t = planned[-1].t + 0.6 if planned else t + 1
            self.match.advance(t)
        return inputs, t
