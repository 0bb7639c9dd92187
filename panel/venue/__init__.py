"""The venue: one process that follows every cockpit on the broker, keeps the leaderboard
and serves the venue board (`penguin-panel venue`)."""
