"""Every ``loom-ref`` command answers ``--help`` (issue 8) and exits 0."""

from __future__ import annotations

import pytest

from loom_ref.cli.main import main

COMMANDS = [[], ["demo"], ["journal"], ["journal", "show"], ["journal", "check"],
            ["journal", "schema"], ["replay"],
            ["conformance"], ["conformance", "lint"], ["conformance", "trace"],
            ["conformance", "smoke"], ["conformance", "show"], ["conformance", "init"],
            ["conformance", "report"], ["conformance", "fuzz"], ["conformance", "where"]]


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c) or "loom-ref")
def test_help(command: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main([*command, "--help"])
    assert exit_info.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: loom-ref")
    # help is plain text: no reStructuredText markup leaks into it (issue 18)
    assert "``" not in out and not any(line.rstrip().endswith("::") for line in
                                       out.splitlines())


def test_no_command_prints_help_and_fails(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 2
    assert "COMMAND" in capsys.readouterr().out


def test_version_names_the_package_and_the_suite(capsys: pytest.CaptureFixture[str]) -> None:
    """``--version`` states both numbers a report states: the package's and the suite's (read
    from the VERSION file the package carries), with the protocol it speaks."""
    import loom_ref
    from loom_ref.conformance.suite import locate

    with pytest.raises(SystemExit) as exit_info:
        main(["--version"])
    assert exit_info.value.code == 0
    suite = locate()
    with open(f"{suite.root}/VERSION", encoding="utf-8") as f:
        version = f.read().strip()
    assert capsys.readouterr().out.strip() == (
        f"loom-ref {loom_ref.__version__} (conformance suite {version}, "
        f"protocol {version.split('.')[0]})")
