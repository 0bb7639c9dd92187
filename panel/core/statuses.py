"""A match's status: the one vocabulary the cockpit, its store, the MQTT protocol and the
venue share (a word of the core, not of the database that keeps it)."""

# A match is "active" while it is played, "finished" when the engine ended it, "ended"
# when the game master closed it early (scores stand), "abandoned" when it does not count,
# "set_aside" when a start could not restore it from its rows (the reason in set_aside).
STATUSES = ("active", "finished", "ended", "abandoned", "set_aside")
# The stored status of a match the engine has ended, by how it ended.
STATUS_WHEN_OVER = {"complete": "finished", "ended": "ended", "abandoned": "abandoned"}
# A match that counts (its result is published and scored); an abandoned one never does.
RESULT_STATUSES = ("finished", "ended")
