"""Print what the durability tests measured (kills, recoveries, invariant checks, power cuts)
at the end of the run, whatever pytest captured: CI shows the counts."""

from __future__ import annotations

from typing import Any

#: Lines the durability tests add; printed once, at the end of the session.
DURABILITY_LINES: list[str] = []


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if DURABILITY_LINES:
        terminalreporter.section("durability (power-loss matrix, process kills)")
        for line in DURABILITY_LINES:
            terminalreporter.write_line(line)
