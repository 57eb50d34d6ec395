"""``handsim rearrange`` (Russian Hand's best play onto a table, RULES.md §8): outputs worked out by
hand, one-line errors, help and docs coverage."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

sys.path.insert(0, str(Path(__file__).resolve().parent))

from test_cli import ROOT, assert_ok, assert_usage_error, run  # noqa: E402

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
    (["--table", "5H 6H 7H", "--hand", "8H JK"], ["JK is a joker: these rules play without jokers (Russian Hand has none)"]),
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


def test_the_command_line_page_lists_the_command():
    """docs/command-line.md's table of commands has rearrange (its options: the CLI reference, tests/test_docs.py)."""
    commands = (ROOT / "docs" / "command-line.md").read_text(encoding="utf-8").split("## The commands", 1)[1]
    assert "| `handsim rearrange --table MELDS --hand CARDS` |" in commands
    notes = commands.split("## Notes on the inspection commands", 1)[1]
    assert "| `handsim rearrange --table MELDS --hand CARDS` | `--table` (melds separated by" in notes


# ------------------------------------------------------------------------------ --preset russian


def test_rules_and_policies_list_russian_hand(runner):
    from handsim.games.russian.policies.registry import POLICIES
    from handsim.games.russian.rules import PARAMS

    result = run(runner, "rules", "--preset", "russian")
    assert_ok(result)
    for p in PARAMS:
        assert f"  {p.name}" in result.stdout
    assert "stock_out_end  must_draw" in result.stdout
    assert "Players: 2 to 5" in result.stdout
    result = run(runner, "rules", "--preset", "russian", "--markdown")
    assert result.stdout.splitlines()[0] == "| option | default | allowed | RULES.md | meaning |"
    assert "rules --preset russian" in run(runner, "rules").stdout  # the classic listing points to it
    result = run(runner, "policies", "--preset", "russian")
    assert_ok(result)
    assert [line.split()[0] for line in result.stdout.splitlines() if line and not line.startswith(" ")][:3] == \
        list(POLICIES)
    assert "hold_max" in result.stdout and "hold-hand" not in result.stdout
    assert "policies --preset russian" in run(runner, "policies").stdout


def test_show_deal_and_check_a_russian_game(runner, tmp_path):
    from handsim.games.russian.rules import RussianRules
    from handsim.games.russian.trace import trace_deal

    result = run(runner, "show-deal", "--preset", "russian", "--players", "5", "--deal", "4",
                 "--lineup", "patient,greedy,random,greedy,greedy", "--json")
    assert_ok(result)
    trace = json.loads(result.stdout)
    want = trace_deal(RussianRules.preset(), "patient,greedy,random,greedy,greedy", 4, 0)
    assert trace == json.loads(json.dumps(want))
    # line-up position j sits at seat (j + deal) % 5: patient (position 0) at seat 4
    assert trace["players"] == 5 and trace["policies"] == ["greedy", "random", "greedy", "greedy", "patient"]
    path = tmp_path / "g.jsonl"
    path.write_text(result.stdout)
    result = run(runner, "check", str(path))
    assert_ok(result)
    assert result.stdout.splitlines()[-1] == "1 game checked, 0 discrepancies"
    # a card taken off the table is found
    bad = json.loads(path.read_text())
    play = next(e for e in bad["events"] if e["type"] == "play" and e["table_after"])
    play["table_after"] = play["table_after"][1:]
    path.write_text(json.dumps(bad) + "\n")
    result = run(runner, "check", str(path))
    assert result.exit_code == 1 and "0 discrepancies" not in result.stdout
    # the text view
    result = run(runner, "show-deal", "--preset", "russian", "--players", "3", "--deal", "2")
    assert_ok(result)
    lines = result.stdout.splitlines()
    assert lines[0] == "Game 2, seed 0: Russian Hand, 3 players, rules russian; seat 0 plays first"
    assert lines[1] == ("(line-up positions move one seat per game: position j sits at seat (j + 2) mod 3 in this "
                        "game, so the line-up's first policy, greedy, at seat 2; summary.csv numbers the seats the "
                        "same way, seat 0 playing first)")
    # patient, line-up position 0 of game 4 with 5 players, sits at seat 4, and the note says so
    text = run(runner, "show-deal", "--preset", "russian", "--deal", "4", "--lineup",
               "patient,greedy,random,greedy,greedy").stdout.splitlines()
    assert "so the line-up's first policy, patient, at seat 4;" in text[1] and "(j + 4) mod 5" in text[1]
    assert text[4 + 4].startswith("  seat 4 (patient), 7 cards: ")
    want3 = trace_deal(RussianRules.preset(), "greedy,greedy,greedy", 2, 0)["result"]
    assert f"after {want3['turns']} turns" in result.stdout


def _russian_play(t: dict) -> dict:
    return next(e for e in t["events"] if e["type"] == "play")


@pytest.mark.parametrize("change, fragments", [
    (lambda t: t.update(hands={"0": []}), ["its 'hands' is a JSON object, not an array"]),
    (lambda t: t.update(hands=["KS7H"]), ["its 'hands' is an array holding the string \"KS7H\", not an array of hands"]),
    (lambda t: t.update(deck="KS7H"), ["its 'deck' is a JSON string, not an array"]),
    (lambda t: t.update(deck=[1, 2]), ["its 'deck' is an array holding the number 1, not an array of cards"]),
    (lambda t: t.update(events=[5]), ["its event 1 is a JSON number, not an object"]),
    (lambda t: _russian_play(t).update(cards="7H"), ["the 'cards' of its event", "a JSON string, not an array of cards"]),
    (lambda t: _russian_play(t).update(table_after=["7H8H9H"]), ["the 'table_after' of its event",
                                                                 "not an array of melds"]),
    (lambda t: t["events"][0].update(seat="0"), ["the 'seat' of its event 1 is a JSON string, not an integer"]),
    (lambda t: t.pop("result"), ["no 'result' field"]),
    (lambda t: t.update(game="rummikub"), ["unknown game 'rummikub'"]),
    (lambda t: t.update(game={}), ["its 'game' is a JSON object, not a string"]),
    (lambda t: t.update(game=["russian"]), ["its 'game' is a JSON array, not a string"]),
], ids=["hands-obj", "hand-str", "deck-str", "deck-ints", "event-num", "cards-str", "table-str", "seat-str",
        "no-result", "game", "game-obj", "game-list"])
def test_check_refuses_a_wrongly_typed_russian_move_log(runner, tmp_path, change, fragments):
    """Was 'internal error: TypeError/KeyError' (exit 1), or a string read card by card."""
    result = run(runner, "show-deal", "--preset", "russian", "--players", "3", "--deal", "1", "--json")
    assert_ok(result)
    trace = json.loads(result.stdout)
    change(trace)
    path = tmp_path / "g.jsonl"
    path.write_text(json.dumps(trace) + "\n")
    assert_usage_error(run(runner, "check", str(path)), "line 1", "unknown game" if trace.get("game") == "rummikub"
                       else "not a deal trace", *fragments)


def test_check_refuses_a_file_that_mixes_the_games(runner, tmp_path):
    """Each line used to be read with the first line's game (a false discrepancy or a wrong message)."""
    russian = run(runner, "show-deal", "--preset", "russian", "--players", "3", "--deal", "1", "--json")
    classic = run(runner, "show-deal", "--players", "2", "--deal", "1", "--policy", "greedy", "--json")
    assert_ok(russian)
    assert_ok(classic)
    path = tmp_path / "mixed.jsonl"
    path.write_text(classic.stdout.strip() + "\n\n" + russian.stdout.strip() + "\n")
    assert_usage_error(run(runner, "check", str(path)), "line 3 is one of the Russian Hand move logs",
                       "line 1 is one of the classic Hand deal traces", "check each game's file on its own")
    path.write_text(russian.stdout.strip() + "\n" + classic.stdout.strip() + "\n")
    assert_usage_error(run(runner, "check", str(path)), "line 2 is one of the classic Hand deal traces",
                       "line 1 is one of the Russian Hand move logs")


@pytest.mark.parametrize("args, fragments", [
    (["simulate", "--preset", "russian", "--threshold", "51"], ["--threshold does not apply to Russian Hand"]),
    (["simulate", "--preset", "russian", "--rounds", "5"], ["--rounds does not apply to Russian Hand"]),
    (["simulate", "--preset", "russian", "--players", "2v2"], ["2 to 5 single players"]),
    (["simulate", "--preset", "russian", "--policy", "hold-hand"], ["unknown Russian Hand policy 'hold-hand'"]),
    (["simulate", "--preset", "russian", "--lineup", "greedy,greedy,greedy,greedy,greedy,greedy"],
     ["has 6 policies: allowed 2 to 5"]),
    (["simulate", "--preset", "russian", "--set", "jokers=2"], ["unknown Russian Hand rule 'jokers'"]),
    (["simulate", "--preset", "russian", "--vary", "first_round=new_melds,sometimes"], ["sometimes"]),
    (["simulate", "--players", "6"], ["'6' is not a number of players: allowed 2, 3, 4 or 5 single players"]),
    (["show-deal", "--preset", "russian", "--round", "2"], ["a Russian Hand game is one game"]),
    (["meld", "--preset", "russian", "5H", "6H", "7H"], ["'handsim meld' is for classic Hand"]),
    (["tournament", "--preset", "russian", "--policy", "greedy", "--policy", "random"], ["is for classic Hand"]),
])
def test_russian_bad_input_is_one_line(runner, args, fragments, tmp_path):
    assert_usage_error(run(runner, *args, *(["--out", str(tmp_path / "o")] if args[0] == "simulate" else [])),
                       *fragments)


def test_simulate_a_russian_study(runner, tmp_path):
    import pandas as pd

    out = tmp_path / "r"
    result = run(runner, "simulate", "--preset", "russian", "--players", "3", "--policy", "greedy",
                 "--lineup", "patient,greedy,random", "--deals", "60", "--jobs", "1", "--out", str(out),
                 "--trace", "2", "--no-progress")
    assert_ok(result)
    assert "× 60 games = 120 games; rules russian; 3 players" in result.stdout
    s = pd.read_csv(out / "summary.csv")
    mixed = s[(s["lineup"] == "patient,greedy,random") & (s["seat"] == "all")]
    assert list(mixed["policy"]) == ["patient", "greedy", "random"]
    # one winner or a draw per game: the win rates of the three add up to 1 - the drawn share
    won = (mixed["win_rate"] * mixed["games"]).sum()
    assert won + (mixed["draw_rate"] * mixed["games"]).sum() >= 60 - 1e-9 and won <= 60 + 1e-9
    for col in ("win_rate", "draw_rate", "mean_cards_left", "mean_card_value_left", "mean_turns", "stock_out_rate"):
        assert col in s.columns
    # games are player-games (60 games × the seats held), as the terminal table, its Units line,
    # summary.csv and the report's Files section all say
    one = s[(s["lineup"] == "greedy,greedy,greedy") & (s["seat"] == "all")].iloc[0]
    assert (one["games"], one["deals"]) == (180, 60)
    assert list(mixed["games"]) == [60, 60, 60] and list(mixed["deals"]) == [60, 60, 60]
    row = next(ln for ln in result.stdout.splitlines() if ln.startswith("greedy×3"))
    assert row.split()[1:3] == ["greedy", "180"]
    assert ("Units: the table's games are player-games (the games played × the seats the policy held in them, e.g. "
            "4 × the games of a one-policy line-up of 4; the speed below counts whole games); win_rate, draw_rate: "
            "shares of player-games (95% CI: of win_rate); stock_out: share of games;") in result.stdout
    assert ("`summary.csv`: every statistic per configuration, line-up, policy and seat (also `summary.parquet`); its "
            "`games` are player-games, the games played × the seats the policy held in them") in (out / "report.md").read_text()
    run_json = json.loads((out / "run.json").read_text())
    assert run_json["game"] == "russian" and run_json["games_played"] == 120
    assert (out / "report.md").read_text().startswith("# Russian Hand")
    result = run(runner, "check", str(out / "traces.jsonl"))
    assert_ok(result)
    assert result.stdout.splitlines()[-1] == "4 games checked, 0 discrepancies"
    result = run(runner, "report", str(out), "--format", "md")
    assert_ok(result)
    assert result.stdout == f"Report: {out / 'report.md'} (120 games)\n"  # (was: rounds)


def test_per_deal_rows_of_a_russian_study(runner, tmp_path):
    import pandas as pd

    out = tmp_path / "r"
    result = run(runner, "simulate", "--preset", "russian", "--players", "2", "--deals", "30", "--jobs", "1",
                 "--out", str(out), "--per-deal", "--no-progress", "-q")
    assert_ok(result)
    rows = pd.concat(pd.read_parquet(f) for f in sorted((out / "per_deal").glob("part-*.parquet")))
    assert len(rows) == 2 * 30 and set(rows["seat"]) == {0, 1}
    # one winner per game (or a draw), and the winner of a game that ended by going out holds nothing
    by_game = rows.groupby("deal")
    assert ((by_game["won"].sum() == 1) | (by_game["drew"].sum() >= 2)).all()
    assert (rows.loc[rows["went_out"], "cards_left"] == 0).all()
    s = pd.read_csv(out / "summary.csv")
    for seat in (0, 1):  # the summary's seat rows are the per-game rows' means
        got = s.loc[s["seat"].astype(str) == str(seat), ["win_rate", "mean_cards_left"]].iloc[0]
        mine = rows[rows["seat"] == seat]
        assert got["win_rate"] == pytest.approx(mine["won"].mean())
        assert got["mean_cards_left"] == pytest.approx(mine["cards_left"].mean())


@pytest.mark.compile_notices
def test_compile_notice_speaks_when_numba_compiles_and_only_then(capsys):
    """What rearrange announces its compilation with: numba's own compile event, not a look at the
    cache beforehand (after a Russian study the kernel is cached for the engine's argument types
    only, and rearrange compiled for 35 s saying nothing)."""
    from numba import njit

    from handsim.cli._common import compile_notice

    @njit  # not cached: it compiles in this process, on its first call
    def twice(x):
        return 2 * x

    with compile_notice("a test kernel", "no time"):
        assert twice(21) == 42
        assert twice(4) == 8
    assert capsys.readouterr().err == "Compiling a test kernel (once, no time; cached afterwards)...\n"
    with compile_notice("a test kernel", "no time"):
        assert twice(5) == 10  # compiled already: nothing to say
        assert twice(2.5) == 5.0  # other argument types: it compiles again, and says so
    assert capsys.readouterr().err == "Compiling a test kernel (once, no time; cached afterwards)...\n"


@pytest.mark.compile_notices
def test_rearrange_announces_a_compilation_it_makes(runner, monkeypatch):
    from numba import njit

    import handsim.games.russian.rearrange as module

    real = module.rearrange

    @njit  # compiles on its first call, as the search kernel does when its argument types are not cached
    def fresh(x):
        return x + 1

    def compiling(*args, **kw):
        assert fresh(1) == 2
        return real(*args, **kw)

    monkeypatch.setattr(module, "rearrange", compiling)
    result = run(runner, "rearrange", "--table", "5H 6H 7H | 9S 9D 9C", "--hand", "8H 9H 4C")
    assert_ok(result)
    assert result.stderr == "Compiling the rearrangement search (once, about half a minute; cached afterwards)...\n"
    assert result.stdout.splitlines()[0] == "placed: 8♥ 9♥  (2 cards, value 17)"


def test_rearrange_answers_ctrl_c_while_it_compiles(tmp_path):
    """In an empty kernel cache rearrange compiles for half a minute; Ctrl-C then ends it at once (by
    SIGINT's default action: the shell's status 130), before any answer, without a traceback."""
    import os
    import signal
    import subprocess

    env = dict(os.environ, HANDSIM_CACHE_DIR=str(tmp_path / "cache"), PYTHONPATH=str(ROOT))
    p = subprocess.Popen([sys.executable, "-m", "handsim", "rearrange", "--table", "5H 6H 7H", "--hand", "8H 9H"],
                         env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        first = p.stderr.readline()  # the notice: the compilation has begun
        assert first == "Compiling the rearrangement search (once, about half a minute; cached afterwards)...\n", first
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=600)  # a guard against a hung child, not a measure
    finally:
        if p.poll() is None:
            p.kill()
    assert p.returncode == -signal.SIGINT, (p.returncode, err)
    assert out == "" and "Traceback" not in err, (out, err)
