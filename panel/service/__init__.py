"""The cockpit service: one asyncio program that owns the engine, reads the inputs,
drives the outputs, serves the pages and writes the store (`penguin-panel play`)."""
