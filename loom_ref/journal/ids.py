"""Execution ids: the one rule every store and every reader applies to an execution's name.

Spec: ``spec/journal.md`` section 1.1 (``journal.execution-ids``). An id becomes a file name
(``<id>.jsonl``), so it must be one on every system:

- 1 to 200 characters of ``A-Z a-z 0-9 _ . -``, the first not ``.`` or ``-``: nothing that
  needs an escape in a JSON string, no path separator, no ``:`` (NTFS reads ``a:b`` as the
  stream ``b`` of the file ``a``);
- not one of the names Windows reserves for devices, in any case, alone or before a ``.``
  (``CON``, ``con.x``: Windows opens the device, whatever follows the dot): ``CON``,
  ``PRN``, ``AUX``, ``NUL``, ``COM0``-``COM9``, ``LPT0``-``LPT9``;
- and two ids of one store never differ only in the case of their letters
  (:func:`case_key`), since a case-insensitive file system (Windows' and macOS's defaults)
  gives them one file. That part a store checks (it knows its ids); this module gives the
  key it compares.
"""

from __future__ import annotations

import re

from loom_ref.errors import InvalidArgument

__all__ = ["ID_RULE", "case_key", "check_execution_id", "is_execution_id"]

_ID_RE = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,199}")
#: Windows' device names, matched at the start of an id, alone or before its first ``.``
_RESERVED = re.compile(r"(?:con|prn|aux|nul|com[0-9]|lpt[0-9])(?:\.|$)", re.IGNORECASE)

#: The rule in words, for messages.
ID_RULE = ("1-200 characters of A-Z a-z 0-9 _ . - (the first not . or -), not a name Windows "
           "reserves (CON, PRN, AUX, NUL, COM0-9, LPT0-9, alone or before a dot)")


def is_execution_id(value: object) -> bool:
    """Whether ``value`` is an execution id by the module's rule (spec: journal.execution-ids)."""
    return isinstance(value, str) and _ID_RE.fullmatch(value) is not None and (
        _RESERVED.match(value) is None)


def check_execution_id(execution_id: object) -> str:
    """Return ``execution_id`` if it is usable as a journal name, else raise InvalidArgument
    with code ``argument.execution-id`` (spec: journal.execution-ids)."""
    if not is_execution_id(execution_id):
        raise InvalidArgument(f"execution id must be {ID_RULE}, got {execution_id!r}",
                              code="argument.execution-id")
    return execution_id  # type: ignore[return-value]


def case_key(execution_id: str) -> str:
    """The key two ids share when they differ only in case (ids are ASCII): a store refuses
    to create an id whose key an id it holds already has (spec: journal.execution-ids)."""
    return execution_id.lower()
