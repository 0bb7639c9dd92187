"""What every object that holds a resource (pins, a pixel strip, a port) shares."""

from __future__ import annotations


class Closeable:
    """A context manager around `close()`, which each subclass makes idempotent."""

    def close(self) -> None:  # pragma: no cover - every subclass defines its own
        raise NotImplementedError

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()
