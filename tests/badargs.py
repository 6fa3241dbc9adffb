"""What every layer's ``test_bad_arguments.py`` shares (spec: errors.invalid-argument).

Each layer's test has a table of entry points, each a function of one bad value put in one
place (every other argument good). :func:`leaks` calls one entry point with every value of
:data:`BAD`: the call may accept the value, and if it raises, the error MUST be a
:class:`~loom_ref.errors.LoomError` whose ``code`` is a non-empty string; anything else is a
leak, reported by the test.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from loom_ref.errors import LoomError

__all__ = ["BAD", "Leaked", "leaks", "try_call", "with_member"]

#: The bad values: None, numbers (huge, NaN, a bool), strings (empty, a lone surrogate),
#: bytes, containers, an object and a function.
BAD: list[Any] = [None, 0, -1, 2**64, 1.5, float("nan"), True, "", "x", "\ud800", b"x",
                  [], [1], {}, {"a": 1}, object(), print]


class Leaked(BaseException):
    """An internal exception that something in between (a runner body, which would journal
    it as a failure) caught; raised so :func:`leaks` reports it."""


def leaks(entry: str, call: Callable[[Any], Any]) -> list[str]:
    """``call(value)`` for each value of :data:`BAD`; the internal exceptions it let out."""
    leaked = []
    for value in BAD:
        try:
            call(value)
        except LoomError as exc:
            assert isinstance(exc.code, str) and exc.code, (entry, value)
        except Leaked as exc:
            leaked.append(f"{value!r}: {exc}")
        except Exception as exc:  # an internal exception escaped
            leaked.append(f"{value!r}: {type(exc).__name__}: {exc}")
    return leaked


def try_call(call: Callable[..., Any], *args: Any) -> None:
    """``call(*args)``, one of several calls of an entry: a LoomError is an answer, so go on."""
    try:
        call(*args)
    except LoomError as exc:
        assert isinstance(exc.code, str) and exc.code


def with_member(obj: dict[str, Any], name: str, value: Any) -> dict[str, Any]:
    """``obj`` with member ``name`` set to ``value``."""
    return {**obj, name: value}
