"""Sub-commands of `penguin-panel`: one file per command group, each with `register()`."""
