"""The one-case loop (issue 15): ``--only`` takes case ids and globs, ``show`` prints a case,
its rule in the spec's words, and the exact protocol lines, which run by hand through an
adapter give the reply the runner would judge."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from loom_ref.cli.main import main
from loom_ref.conformance.selection import selects_case, selects_variant, unmatched

from .helpers import CASES


def test_patterns_select_groups_prefixes_ids_and_globs() -> None:
    assert selects_case([], "kernel.replay/x")
    assert selects_case(["kernel.replay"], "kernel.replay/x")
    assert selects_case(["kernel"], "kernel.replay/x")
    assert not selects_case(["kern"], "kernel.replay/x")  # a prefix ends at a dot
    assert selects_case(["journal.*"], "journal.format/crc-uppercase")
    assert selects_case(["journal.format/crc-uppercase"], "journal.format/crc-uppercase")
    assert not selects_case(["journal.format/crc-uppercase"], "journal.format/crc-upper")
    assert selects_case(["journal.*/crc-*"], "journal.format/crc-uppercase")
    assert not selects_case(["journal.*/crc-*"], "journal.format/header")
    assert not selects_case(["Journal.*"], "journal.format/x")  # case-sensitive
    # variants come with their case, unless a pattern names variants
    assert selects_variant(["kernel.gates"], "kernel.gates/a", "kernel.gates/a#crash@1")
    assert selects_variant(["kernel.gates/a#crash@*"], "kernel.gates/a", "kernel.gates/a#crash@2")
    assert not selects_variant(["kernel.gates/a#crash@*"], "kernel.gates/a",
                               "kernel.gates/a#replay")
    assert unmatched(["kernel", "nope.*", "a/b"], ["kernel.x/y"]) == ["nope.*", "a/b"]


def test_only_runs_one_case_by_id_and_a_glob_of_cases(
        capsys: pytest.CaptureFixture[str], tmp_path: object) -> None:
    report = f"{tmp_path}/r.json"
    assert main(["conformance", "--only", "journal.format/crc-uppercase", "--json", report,
                 "--quiet", "--profile", "loom-ref"]) == 0
    ran = json.loads(Path(report).read_text())["cases"]
    assert {c["id"].split("#")[0] for c in ran} == {"journal.format/crc-uppercase"}
    assert main(["conformance", "--only", "journal.*/crc-*", "--json", report, "--quiet",
                 "--profile", "loom-ref"]) == 0
    ids = {c["id"] for c in json.loads(Path(report).read_text())["cases"] if c["mode"] == "base"}
    assert len(ids) >= 2 and all(i.startswith("journal.") and "/crc-" in i for i in ids)


def test_only_selects_named_variants(tmp_path: object) -> None:
    case, report = "kernel.gates/two-gates", f"{tmp_path}/r.json"
    assert main(["conformance", "--only", f"{case}#crash@*", "--json", report, "--quiet"]) == 0
    ids = [c["id"] for c in json.loads(Path(report).read_text())["cases"]]
    assert ids[0] == case and len(ids) > 2  # the base runs first: variants need it to pass
    assert all(i.startswith(f"{case}#crash@") for i in ids[1:])


def test_a_pattern_that_selects_nothing_is_a_usage_error(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["conformance", "--only", "journal.fold", "--only", "journal.format/nope",
                 "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "conformance.no-cases" in err and "'journal.format/nope'" in err
    assert "'journal.fold'" not in err  # the one that did select is not blamed


def test_show_prints_the_case_the_rule_and_the_protocol_lines(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["conformance", "show", "journal.format/crc-uppercase"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("journal.format/crc-uppercase\n")
    assert "rule: spec/journal.md#journal.checksum" in out
    assert "> `crc` MUST be the CRC-32" in out  # the spec's own words
    assert "expected (the runner's alone, never sent):" in out
    lines = [x for x in out.splitlines() if x.startswith('{"cmd"')]
    assert [json.loads(x)["cmd"] for x in lines] == ["start", "run", "stop"]
    assert "expect" not in json.loads(lines[1])["case"]


def test_show_derives_a_variant_and_refuses_unknown_ids(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["conformance", "show", "kernel.gates/two-gates#replay", "--lines"]) == 0
    run = json.loads(capsys.readouterr().out.splitlines()[1])
    assert run["case"]["id"] == "kernel.gates/two-gates#replay"
    assert run["case"]["actions"][-1] == {"do": "replay"}
    assert main(["conformance", "show", "kernel.gates/no-such-case"]) == 2
    assert "conformance.no-case" in capsys.readouterr().err
    assert main(["conformance", "show", "kernel.gates/two-gates#crash@999"]) == 2
    assert "its variants:" in capsys.readouterr().err
    assert main(["conformance", "show", "not-an-id"]) == 2


@pytest.mark.parametrize(("variant", "says"), [
    ("journal.format/any-writer#prefix@40", "cut after its first 40 bytes"),
    ("kernel.gates/two-gates#crash@3", "crashed right after journal event 3 is written"),
    ("kernel.gates/two-gates#torn@4", "crashed while writing journal event 4"),
    ("kernel.gates/two-gates#replay", "followed by a replay of its own journal"),
    ("kernel.gates/two-gates#always-replay", "a replay after every action"),
    ("kernel.gates/two-gates#store@log", "journal store 'log'"),
])
def test_show_describes_a_variant_as_a_variant(variant: str, says: str,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    """The variant's own description first (what its mode did to the base case), then the
    base case's, named as the base case's: never the base case's words as the variant's."""
    assert main(["conformance", "show", variant]) == 0
    out = capsys.readouterr().out
    base = variant.split("#")[0]
    assert out.startswith(f"{variant} (a generated {variant.split('#')[1].split('@')[0]} "
                          f"variant of {base}")
    described = next(line for line in out.splitlines() if line.startswith("  this variant: "))
    assert says in described and base in described
    assert f"  its base case {base}: " in out


def test_the_shown_lines_run_by_hand_through_an_adapter() -> None:
    lines = subprocess.run([sys.executable, "-m", "loom_ref.cli.main", "conformance", "show",
                            "journal.format/crc-uppercase", "--lines"],
                           capture_output=True, text=True, check=True).stdout
    replies = subprocess.run([sys.executable, "-m", "loom_ref.conformance.adapter"],
                             input=lines, capture_output=True, text=True, check=True).stdout
    start, reply, stop = (json.loads(x) for x in replies.splitlines())
    assert start["protocol"] == 1 and stop == {"ok": True}
    expected = json.loads(Path(CASES, "journal.format", "crc-uppercase.json").read_text())["expect"]
    assert reply["seq"] == 1
    assert reply["observations"]["error"]["code"] == expected["error"]["code"]
