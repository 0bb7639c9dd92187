"""Comparing a secret a client sent (a PIN's digest, a token, a join code) with the one kept.

`hmac.compare_digest` given text takes ASCII only: a client's "é" raised TypeError and
became a 500 with a traceback. Compared as UTF-8 bytes, anything a client sends is just
"not the secret"."""

from __future__ import annotations

import hmac


def same_secret(given: object, expected: str) -> bool:
    """Whether `given` is the text `expected`, in constant time; never raises (None, a
    number, lone surrogates or any other text are simply not it)."""
    if not isinstance(given, str):
        return False
    try:
        return hmac.compare_digest(given.encode("utf-8"), expected.encode("utf-8"))
    except UnicodeEncodeError:  # a lone surrogate ("\udcff", from a %-escape decoded leniently)
        return False
