"""``handsim rearrange`` (Russian Hand's best play onto a table, RULES.md §8): outputs worked out by
hand, one-line errors, help and README coverage."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

sys.path.insert(0, str(Path(__file__).resolve().parent))

from test_cli import _readme_section, assert_ok, assert_usage_error, run  # noqa: E402

from handsim.cli import cli  # noqa: E402


@pytest.fixture
def runner():
    return CliRunner()


def test_the_example(runner):
    # 8H 9H extend 5H-7H (1 meld changed); putting 9H on the set instead would change 2
    result = run(runner, "rearrange", "--table", "5H 6H 7H | 9S 9D 9C", "--hand", "8H 9H 4C")
    assert_ok(result)
    assert result.stdout.splitlines() == [
        "placed: 8♥ 9♥  (2 cards, value 17)",
        "table after (1 of 2 melds changed):",
        "  * run  5♥ 6♥ 7♥ 8♥ 9♥",
        "    set  9♠ 9♦ 9♣",
        "  (* = not on the table before)",
        "left in hand: 4♣",
    ]


def test_json(runner):
    result = run(runner, "rearrange", "--table", "AS 2S 3S 4S | 2S 3S 4S", "--hand", "QS KS 5D", "--json")
    assert_ok(result)
    assert json.loads(result.stdout) == {
        "placed": ["QS", "KS"], "n_placed": 2, "value": 20, "changed": 1,
        "melds": [["2S", "3S", "4S"], ["2S", "3S", "4S"], ["QS", "KS", "AS"]],
        "left": ["5D"], "first_round": False,
    }


def test_nothing_fits(runner):
    result = run(runner, "rearrange", "--table", "4S 5S 6S 7S", "--hand", "5S KD", "--json")
    assert_ok(result)
    out = json.loads(result.stdout)
    assert (out["n_placed"], out["value"], out["changed"], out["melds"]) == (0, 0, 0, [["4S", "5S", "6S", "7S"]])
    result = run(runner, "rearrange", "--table", "4S 5S 6S 7S", "--hand", "5S")
    assert result.stdout.splitlines()[0] == "placed: nothing (no hand card fits)"


def test_first_round_and_options(runner):
    # first round: 8H may not go on 5H-7H; the hand's own 2C 3C 4C is laid
    result = run(runner, "rearrange", "--table", "5H 6H 7H", "--hand", "8H 2C 3C 4C", "--first-round")
    assert_ok(result)
    assert result.stdout.splitlines() == ["placed: 2♣ 3♣ 4♣  (3 cards, value 9)", "new melds:", "    run  2♣ 3♣ 4♣",
                                          "left in hand: 8♥"]
    # one meld only: the 9s (27 points) rather than 2C 3C 4C (9)
    result = run(runner, "rearrange", "--hand", "9S 9D 9C 2C 3C 4C", "--first-round", "--set", "first_round=one_meld",
                 "--json")
    assert json.loads(result.stdout)["melds"] == [["9S", "9D", "9C"]]
    # ace_value=1 turns the value tie-break: AS AH (2 points) lose to 4S 4H (8)
    result = run(runner, "rearrange", "--table", "AD 2D 3D 4D", "--hand", "AS AH 4S 4H", "--set", "ace_value=1",
                 "--json")
    assert json.loads(result.stdout)["placed"] == ["4S", "4H"]


@pytest.mark.parametrize("args, fragments", [
    (["--table", "5H 6H 8H | 9S 9D 9C", "--hand", "8H"],
     ["table meld 1 (5H 6H 8H) is illegal: not consecutive: missing 7H"]),
    (["--table", "5H 6H 7H | KH AH 2H", "--hand", "8H"], ["table meld 2 (KH AH 2H) is illegal", "wraps"]),
    (["--table", "5H 6H 7H | 9S 9S 9D", "--hand", "8H"], ["table meld 2 (9S 9S 9D) is illegal: two 9S in one set"]),
    (["--table", "5H 6H 7H", "--hand", "8H JK"], ["JK appears 1 times: the deck holds only 0 joker(s)"]),
    (["--table", "5H 6H JK", "--hand", "8H"], ["JK"]),
    (["--table", "5H 6H 7H | 5H 6H 7H", "--hand", "7H"], ["7H appears 3 times in table and hand"]),
    (["--table", "5H 6H 7H", "--hand", "8X"], ["bad card '8X'"]),
    (["--table", "5H 6H 7H ||", "--hand", "8H"], ["meld 2 of the table is empty"]),
    (["--hand", "8H", "--set", "ace_value=0"], ["invalid value '0' for rule 'ace_value'"]),
    (["--hand", "8H", "--set", "jokers=2"], ["unknown Russian Hand rule 'jokers'"]),
    (["--table", "5H 6H 7H"], ["Missing option '--hand'"]),
])
def test_bad_input_is_one_line(runner, args, fragments):
    assert_usage_error(run(runner, "rearrange", *args), *fragments)


def test_help_has_an_example(runner):
    result = run(runner, "rearrange", "--help")
    assert_ok(result)
    assert "Example" in result.output and "$ handsim rearrange --table" in result.output


def test_readme_lists_the_command_and_its_options():
    commands = _readme_section("## The command line", "### Inspection commands")
    assert "| `handsim rearrange --table MELDS --hand CARDS` |" in commands
    rows = _readme_section("### Inspection commands", "### `handsim simulate`").splitlines()
    row = "\n".join(line for line in rows if line.startswith("| `handsim rearrange"))
    for param in cli.commands["rearrange"].params:
        if isinstance(param, click.Option):
            assert any(f"`{o}" in row for o in param.opts if o.startswith("--")), param.opts
