"""The one rule for trying again (panel.core.backoff), shared by the serial link, the MQTT
bridge and the venue."""

from panel.core.backoff import Backoff


def test_the_pause_doubles_to_its_ceiling_and_starts_over_after_a_success():
    b = Backoff(0.5, 3.0, jitter=0)
    assert [b.pause() for _ in range(5)] == [0.5, 1.0, 2.0, 3.0, 3.0]
    b.reset()
    assert b.pause() == 0.5


def test_jitter_spreads_each_pause_within_its_fraction():
    b = Backoff(1.0, 1.0, jitter=0.2)
    pauses = [b.pause() for _ in range(200)]
    assert all(0.8 <= p <= 1.2 for p in pauses) and len(set(pauses)) > 1
