"""Every ``loom-ref`` command answers ``--help`` (issue 8) and exits 0."""

from __future__ import annotations

import pytest

from loom_ref.cli.main import main

COMMANDS = [[], ["demo"], ["journal"], ["journal", "show"], ["journal", "check"],
            ["journal", "schema"], ["replay"],
            ["conformance"], ["conformance", "lint"], ["conformance", "trace"]]


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c) or "loom-ref")
def test_help(command: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main([*command, "--help"])
    assert exit_info.value.code == 0
    assert capsys.readouterr().out.startswith("usage: loom-ref")


def test_no_command_prints_help_and_fails(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 2
    assert "COMMAND" in capsys.readouterr().out
