"""TableEnum: members hash by identity, and the table-keying enums use it."""

from __future__ import annotations

from loom_ref.enums import TableEnum
from loom_ref.journal import EventKind, Status
from loom_ref.stream.contract import BlockEvent, BlockState, StreamEvent, StreamState


def test_members_hash_by_identity_and_still_key_tables() -> None:
    for enum_type in (EventKind, Status, BlockState, BlockEvent, StreamState, StreamEvent):
        assert issubclass(enum_type, TableEnum)
        for member in enum_type:
            assert hash(member) == object.__hash__(member)
            assert {member: 1}[enum_type(member.value)] == 1


def test_plain_members_are_the_members_themselves() -> None:
    from loom_ref.enums import plain_members

    k = plain_members(EventKind)
    assert sorted(vars(k)) == sorted(EventKind.__members__)
    for member in EventKind:
        assert getattr(k, member.name) is member
