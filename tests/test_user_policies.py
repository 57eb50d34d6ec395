"""User-written policies: policy files, the engine compiled for them, and the checks on every move.

* ``examples/policies/greedy_copy.py`` (``my-greedy``, written through the public API) plays every
  golden deal that has a greedy seat exactly as the built-in ``greedy`` does.
* Every way a policy file can be unusable is one line and exit 2: missing, a folder, not UTF-8,
  a syntax or import error (with the file's line), no policy, a clashing name, a decision
  function that is not compiled, takes other arguments or returns the wrong type, a parameter
  default outside its range.
* Every illegal decision of a user policy stops the round with one line naming the policy, the
  deal, the seat, the turn, the move, the rule, and the show-deal command that replays it (exit
  1 in the CLI, the finished chunks kept); a round that never ends is stopped by the turn cap.
* The engine for a policy file is compiled once and loaded from the cache by later processes.

One policy file (``BAD_POLICIES``) holds every misbehaving policy, so the suite compiles one
engine for all of them.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from handsim.cli import cli
from handsim.errors import PolicyFileError, PolicyMoveError
from handsim.policies import load_policy_files, parse_lineup, split_lineup
from handsim.games.hand.rules import Rules
from handsim.games.hand.trace import trace_deal

ROOT = Path(__file__).resolve().parents[1]
GREEDY_COPY = ROOT / "examples" / "policies" / "greedy_copy.py"
JOKER_KEEPER = ROOT / "examples" / "policies" / "joker_keeper.py"
HANG_GUARD = 1800  # a guard against a hung child process, never a measure of speed

_spec = importlib.util.spec_from_file_location("golden", ROOT / "scripts" / "golden.py")
golden = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(golden)


def run(*args):
    return CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=True)


def one_error_line(result, code):
    assert result.exit_code == code, result.output
    assert "Traceback" not in result.output
    lines = [ln for ln in result.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("Error: "), result.stderr
    return lines[0]


# ------------------------------------------------------------------------------ the greedy copy


#: The built-in policies of the smallest engine (engines.TIERS[0]): the golden cases that play only
#: these besides greedy compile one engine with the greedy copy; the others two more.
SMALL_TIER = {"greedy", "hold-hand", "random"}


def _greedy_cases(small_only: bool):
    """The golden cases with a greedy seat, each with its line-up where ``my-greedy`` plays greedy."""
    out = []
    for case in golden.cases():
        items = [i.split(":")[0] for i in split_lineup(case["lineup"])]
        if "greedy" in items and (not small_only or set(items) <= SMALL_TIER):
            out.append((case, ",".join("my-" + i if i.split(":")[0] == "greedy" else i
                                       for i in split_lineup(case["lineup"]))))
    return out


def _plays_like_greedy(chosen):
    load_policy_files([GREEDY_COPY])
    moves, _ = golden.load()
    compared = 0
    for case, lineup in chosen:
        want = [r for r in moves if r["case"] == case["name"]]
        got = golden.play_case(case, lineup=lineup)
        assert golden.diff_moves(want, got) == [], case["name"]
        compared += len(got)
    assert compared == sum(case["deals"] for case, _ in chosen)  # the searcher cases play SEARCHER_DEALS


def test_greedy_copy_plays_the_golden_deals_of_the_small_engine_like_greedy():
    # the fast suite's share of the test below: the cases without card-reader or sampler, whose
    # engines with the greedy copy take most of the compile time
    chosen = _greedy_cases(small_only=True)
    assert len(chosen) >= 42
    _plays_like_greedy(chosen)


@pytest.mark.slow
def test_greedy_copy_plays_every_golden_deal_like_greedy():
    chosen = _greedy_cases(small_only=False)
    assert len(chosen) >= 72  # 72 of the golden cases have a greedy seat
    _plays_like_greedy(chosen)


def test_greedy_copy_matches_greedy_on_the_fast_path_and_in_matches():
    from handsim.policies import lineup_arrays
    from handsim.games.hand.policies.engines import engine_for
    from handsim.simulate import run_chunk, run_match_chunk

    load_policy_files([GREEDY_COPY])
    rv = Rules.preset("partnership", rounds=3).to_vector()
    for fn, n in ((run_chunk, 60), (run_match_chunk, 6)):
        a = fn(rv, *lineup_arrays(parse_lineup("hold-hand,greedy,greedy:support_hand=1,greedy")), 4, 11, 0, n)
        specs = parse_lineup("hold-hand,my-greedy,my-greedy:support_hand=1,my-greedy")
        engine = engine_for(specs)
        b = fn(rv, *lineup_arrays(specs, engine), 4, 11, 0, n, engine)
        for k in a:
            assert np.array_equal(a[k], b[k]), k
    # elimination matches (RULES.md section 7): the drivers of a generated engine
    from handsim.games.hand.elimination import run_elimination_chunk

    E = Rules.preset("classic", elimination_score=201)
    a = run_elimination_chunk(E, parse_lineup("hold-hand,greedy,greedy"), 11, 0, 4)
    b = run_elimination_chunk(E, parse_lineup("hold-hand,my-greedy,my-greedy"), 11, 0, 4)
    assert a["rounds"].sum() > 4
    for k in a:
        assert np.array_equal(a[k], b[k]), k


# ------------------------------------------------------------------------------ bad policy files

GOOD = """
from numba import njit
from handsim.policies import Param, Policy, api

@njit(cache=True)
def draw(g, seat):
    return api.DRAW_STOCK

@njit(cache=True)
def play(g, seat):
    h = api.hand(g, seat)
    for t in range(api.N_TYPES):
        if h[t] > 0 and api.discard_is_legal(g, seat, t):
            return t
    return api.NO_DISCARD
"""


def policy_file(tmp_path, body, name="pol.py", declare=True):
    text = GOOD + textwrap.dedent(body)
    if declare:
        text += '\nP = Policy("{n}", help="Draws and throws.", choose_draw=draw, play=play)\n'.format(
            n="t-" + name.split(".")[0].replace("_", "-"))
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_bad_policy_files_are_one_line_exit_2(tmp_path):
    cases = []
    cases.append((tmp_path / "missing.py", ["missing.py", "not found"]))
    (tmp_path / "folder.py").mkdir()
    cases.append((tmp_path / "folder.py", ["folder.py", "is a folder"]))
    latin = tmp_path / "latin.py"
    latin.write_bytes(b"# caf\xe9\nx = 1\n")
    cases.append((latin, ["latin.py, line 1", "not UTF-8"]))
    syntax = tmp_path / "syntax.py"
    syntax.write_text("x = 1\ndef broken(:\n", encoding="utf-8")
    cases.append((syntax, ["syntax.py, line 2", "syntax error"]))
    imp = tmp_path / "imp.py"
    imp.write_text("import os\n\nimport no_such_module_for_handsim\n", encoding="utf-8")
    cases.append((imp, ["imp.py, line 3", "ModuleNotFoundError", "no_such_module_for_handsim"]))
    script = tmp_path / "script.py"  # was: the whole command exited 3, silently (found by a breaker review)
    script.write_text("import sys\n\nsys.exit(3)\n", encoding="utf-8")
    cases.append((script, ["script.py, line 3", "calls sys.exit(3) when it is loaded"]))
    txt = tmp_path / "greedy_copy.txt"  # a policy file under another name (found by a breaker review)
    txt.write_text(GOOD, encoding="utf-8")
    cases.append((txt, ["greedy_copy.txt", "not a Python file", "must end in .py"]))
    toml = tmp_path / "best.toml"
    toml.write_text('name = "greedy"\n', encoding="utf-8")
    cases.append((toml, ["best.toml", "not a Python file", "--policy @FILE"]))
    nothing = tmp_path / "nothing.py"
    nothing.write_text(GOOD, encoding="utf-8")
    cases.append((nothing, ["nothing.py declares no policy", "Policy(...)"]))
    clash = policy_file(tmp_path, 'Q = Policy("greedy", help="x", choose_draw=draw, play=play)\n', "clash.py",
                        declare=False)
    cases.append((clash, ["clash.py", "'greedy' clashes with the built-in policy"]))
    plain = policy_file(tmp_path, """
        def plain_play(g, seat):
            return 0
        Q = Policy("plain", help="x", choose_draw=draw, play=plain_play)
        """, "plain.py", declare=False)
    cases.append((plain, ["'plain'", "play (plain_play) is a plain Python function, not compiled", "@numba.njit"]))
    args = policy_file(tmp_path, """
        @njit
        def play3(g, seat, extra):
            return 0
        Q = Policy("three", help="x", choose_draw=draw, play=play3)
        """, "args.py", declare=False)
    cases.append((args, ["'three'", "play (play3) must take exactly (g, seat)", "it takes (g, seat, extra)"]))
    default = policy_file(tmp_path, """
        Q = Policy("dflt", help="x", params=(Param("aggr", default=9, lo=0, hi=5),), choose_draw=draw, play=play)
        """, "default.py", declare=False)
    cases.append((default, ["default.py", "the default 9 of parameter aggr is outside its range 0..5"]))
    for path, fragments in cases:
        line = one_error_line(run("policies", "--policy-file", path), 2)
        for frag in fragments:
            assert frag in line, (frag, line)
        with pytest.raises(PolicyFileError):
            load_policy_files([path])


def test_a_decision_function_of_the_wrong_type_is_refused_before_the_study(tmp_path):
    path = policy_file(tmp_path, """
        @njit
        def float_play(g, seat):
            return 1.5
        Q = Policy("floaty", help="x", choose_draw=draw, play=float_play)
        """, "floaty.py", declare=False)
    line = one_error_line(run("simulate", "--policy-file", path, "--lineup", "floaty,greedy", "--deals", 2,
                              "--jobs", 1, "--out", tmp_path / "s", "-q"), 2)
    assert "floaty.py: play of policy 'floaty' (float_play) returns float64, not an integer" in line
    untyped = policy_file(tmp_path, """
        @njit
        def bad_play(g, seat):
            return api.no_such_function(g)
        Q = Policy("untyped", help="x", choose_draw=draw, play=bad_play)
        """, "untyped.py", declare=False)
    line = one_error_line(run("simulate", "--policy-file", untyped, "--lineup", "untyped,greedy", "--deals", 2,
                              "--jobs", 1, "--out", tmp_path / "u", "-q"), 2)
    assert "play of policy 'untyped' (bad_play) does not compile" in line


def test_a_user_policy_name_is_listed_and_parsed_with_its_parameters():
    load_policy_files([JOKER_KEEPER])
    result = run("policies", "--policy-file", JOKER_KEEPER)
    assert result.exit_code == 0, result.output
    assert "joker-keeper  (from " in result.output
    assert "release_turn  default 12, 1..1000 own turns" in result.output
    assert "greedy  (built-in)" in result.output
    spec = parse_lineup("joker-keeper:release_turn=20,greedy")[0]
    assert spec.label == "joker-keeper:release_turn=20" and spec.vector()[0] == 20


# ------------------------------------------------------------------------------ illegal moves

BAD_POLICIES = '''
"""Policies that break the rules, each in its own way (tests/test_user_policies.py)."""
import os
import sys

import numpy as np
from numba import njit
from handsim.policies import Param, Policy, api
from handsim.games.hand.policies.greedy import choose_draw_greedy, play_greedy

sys.path.insert(0, os.path.dirname(__file__))  # its helper module, beside it
import bad_helpers  # noqa: E402


@njit(cache=True)
def draw(g, seat):
    return api.DRAW_STOCK


@njit(cache=True)
def first_legal(g, seat):
    h = api.hand(g, seat)
    for t in range(api.N_TYPES):
        if h[t] > 0 and api.discard_is_legal(g, seat, t):
            return t
    return api.NO_DISCARD


@njit(cache=True)
def play_unheld(g, seat):  # discards a card it does not hold
    h = api.hand(g, seat)
    for t in range(api.N_TYPES):
        if h[t] == 0:
            return t
    return 0


@njit(cache=True)
def draw_seven(g, seat):
    return 7


@njit(cache=True)
def play_layoff(g, seat):  # lays off before it has opened
    if api.table_count(g) > 0:
        h = api.hand(g, seat)
        for t in range(api.N_NATURALS):
            if h[t] > 0:
                api.lay_off(g, seat, 0, t)
                break
    return first_legal(g, seat)


@njit(cache=True)
def play_cheat(g, seat):  # writes to its hand instead of using the moves
    h = api.hand(g, seat)
    for t in range(api.N_TYPES):
        if h[t] > 0:
            h[t] -= 1
            break
    return first_legal(g, seat)


@njit(cache=True)
def draw_peek(g, seat):  # pretends to take the discard and forgets to undo it
    api.pretend_take(g, seat)
    return api.DRAW_STOCK


@njit(cache=True)
def draw_hoard(g, seat):  # once opened, takes the top discard every turn
    if api.has_opened(g, seat) and api.top_discard(g) != api.NO_CARD:
        return api.DRAW_DISCARD
    return choose_draw_greedy(g, seat, False)


@njit(cache=True)
def play_hoard(g, seat):  # opens like greedy, then never lays anything again
    if api.has_opened(g, seat) and api.own_turns(g, seat) > 1 and api.laid_before(g, seat):
        return first_legal(g, seat)
    return play_greedy(g, seat, False)


@njit(cache=True)
def play_late(g, seat):  # plays legally until the round's turn LATE, then discards a card it does not hold
    if api.turn(g) >= api.param(g, seat, LATE):
        return play_unheld(g, seat)
    return first_legal(g, seat)


@njit(cache=True)
def play_dice(g, seat):  # picks among its legal discards with the global random generator
    h = api.hand(g, seat)
    n = 0
    for t in range(api.N_TYPES):
        if h[t] > 0 and api.discard_is_legal(g, seat, t):
            n += 1
    k = int(np.random.random() * n)
    for t in range(api.N_TYPES):
        if h[t] > 0 and api.discard_is_legal(g, seat, t):
            if k == 0:
                return t
            k -= 1
    return api.NO_DISCARD


@njit(cache=True)
def begin_stuck(g, seat):  # one deal in 8 (from the deal's own stream), play never returns
    api.memory(g, seat)[0] = 1 if api.rand_below(g, 8) == 0 else 0


@njit(cache=True)
def play_stuck(g, seat):
    m = api.memory(g, seat)
    while m[0] == 1:
        m[1] += 1
    return first_legal(g, seat)


@njit(cache=True)
def play_overrun(g, seat):  # from the round's turn LATE_OVERRUN on, an index past what it may use
    m = api.memory(g, seat)
    m[-1] = 7  # the last slot, counted from the end as in Python: allowed
    how = api.param(g, seat, HOW)
    if api.turn(g) >= api.param(g, seat, LATE_OVERRUN):
        if how == 0:
            m[api.MEMORY_SLOTS + 2] = 1  # writes past its memory (onto the next seat's)
        elif how == 1:
            if m[api.MEMORY_SLOTS] == 12345:  # reads past its memory
                return api.NO_DISCARD
        elif how == 2:
            m[-api.MEMORY_SLOTS - 1] = 1  # a negative index before its memory
        elif how == 3:
            if api.param(g, seat, 8) > 0.5:  # a parameter slot that does not exist (slots 0..7)
                return api.NO_DISCARD
        elif how == 4:
            m[0] = 1 // (api.turn(g) - api.turn(g))  # a division by zero
        elif how == 5:  # API functions compiled apart from the file, given an out array one card short
            api.seen_cards(g, seat, np.zeros(api.N_TYPES - 1, dtype=np.int8))
        elif how == 6:
            api.unseen_cards(g, seat, np.zeros(api.N_TYPES - 1, dtype=np.int8))
        elif how == 7:
            api.deck_counts(g, np.zeros(api.N_TYPES - 1, dtype=np.int8))
        elif how == 8:  # ... or a seat past the table (within the engine's arrays at 2 players)
            api.plan_hand(g, api.players(g))
        elif how == 9:
            api.plan_melds(g, -1, api.OPEN, 0, 1, False)
        elif how == 10:  # a helper of another module (reached as an attribute), indexing past the memory
            bad_helpers.overrun(g, seat)
        else:  # ... whose own helper gives the API a seat past the table
            bad_helpers.peek(g, seat)
    return first_legal(g, seat)


UNHELD = Policy("unheld", help="Discards a card it does not hold.", choose_draw=draw, play=play_unheld)
SEVEN = Policy("seven", help="Asks for draw source 7.", choose_draw=draw_seven, play=first_legal)
EARLY = Policy("early-layoff", help="Lays off before opening.", choose_draw=draw, play=play_layoff)
CHEAT = Policy("cheat", help="Changes its hand by hand.", choose_draw=draw, play=play_cheat)
PEEK = Policy("peek", help="Pretends to take the discard and does not undo it.", choose_draw=draw_peek, play=first_legal)
HOARD = Policy("hoarder", help="Takes every discard once opened and never goes out.", choose_draw=draw_hoard,
               play=play_hoard)
LATE_POLICY = Policy("late", help="Breaks a rule late in the round.",
                     params=(Param("late", 40, 1, 1000, unit="turns", help="the turn it cheats from"),),
                     choose_draw=draw, play=play_late)
LATE = LATE_POLICY.slot("late")
STUCK = Policy("stuck", help="In one deal in 8 its play never returns.", choose_draw=draw, play=play_stuck,
               begin_round=begin_stuck)
DICE = Policy("dice", help="Discards at random, from the global generator.", choose_draw=draw, play=play_dice)
OVERRUN = Policy("overrun", help="From turn late on, indexes past its memory or parameters (or divides by zero).",
                 params=(Param("how", 0, 0, 11, unit="kind", help="0 writes past api.memory, 1 reads past it, 2 a "
                               "negative index before it, 3 parameter slot 8, 4 divides by zero, 5-7 a short out array "
                               "to seen_cards, unseen_cards, deck_counts, 8-9 a bad seat to plan_hand, plan_melds, "
                               "10-11 a helper of another module past api.memory, a bad seat to seen_cards"),
                         Param("late", 1, 1, 1000, unit="turns", help="the round's turn it starts from")),
                 choose_draw=draw, play=play_overrun)
HOW = OVERRUN.slot("how")
LATE_OVERRUN = OVERRUN.slot("late")
'''


BAD_HELPERS = '''
"""Helpers of bad_policies.py, in a module of their own (tests/test_user_policies.py)."""
import numpy as np
from numba import njit
from handsim.policies import api


@njit(cache=True)
def overrun(g, seat):  # writes past its memory (onto the next seat's)
    api.memory(g, seat)[api.MEMORY_SLOTS + 2] = 1


@njit(cache=True)
def _seen_by(g, seat):
    return api.seen_cards(g, seat, np.zeros(api.N_TYPES, dtype=np.int8))


@njit(cache=True)
def peek(g, seat):  # asks for the cards a seat past the table has seen
    return _seen_by(g, api.players(g) + 1)[0]
'''


@pytest.fixture(scope="module")
def bad_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("bad") / "bad_policies.py"
    (path.parent / "bad_helpers.py").write_text(BAD_HELPERS, encoding="utf-8")
    path.write_text(BAD_POLICIES, encoding="utf-8")
    load_policy_files([path])
    return path


@pytest.mark.parametrize("policy, fragments", [
    ("unheld", ["it discarded", "it does not hold that card"]),
    ("seven", ["it chose draw source 7", "api.DRAW_STOCK (0) or api.DRAW_DISCARD (1)"]),
    ("early-layoff", ["it laid off", "on meld #0", "may not touch the table before it has opened", "RULES.md §4"]),
    ("cheat", ["changed the cards outside the API's moves in play"]),
    ("peek", ["changed the cards outside the API's moves in choose_draw", "undoes api.pretend_take"]),
])
def test_an_illegal_move_names_policy_deal_seat_turn_move_rule_and_the_replay(bad_file, policy, fragments):
    rules = Rules.preset("classic")
    with pytest.raises(PolicyMoveError) as info:
        for deal in range(40):  # the early lay-off needs a meld on the table first
            trace_deal(rules, f"{policy},greedy", deal, 5, policy_files=[bad_file])
    msg = str(info.value)
    assert "\n" not in msg
    assert msg.startswith(f"policy '{policy}' (seat ")
    assert " made an illegal move in deal " in msg and "(seed 5), turn " in msg
    for frag in fragments:
        assert frag in msg, (frag, msg)
    command = msg.split("; replay it: ", 1)[1]
    assert command.startswith("handsim show-deal --seed 5 --deal ")
    assert f"--policy-file {bad_file}" in command and f"--lineup {policy},greedy" in command
    # the command replays it: the moves up to the illegal one, then the same line, exit 1
    result = run(*command.split()[1:])
    line = one_error_line(result, 1)
    assert msg.split("; replay it:")[0] in line
    assert "Turn 1 · seat" in result.stdout and "Stopped after" in result.stdout


def test_a_round_that_never_ends_is_stopped_by_the_turn_cap(bad_file):
    rules = Rules.preset("classic")
    msgs = []
    for deal in range(10):
        try:
            trace_deal(rules, "hoarder,hoarder", deal, 1, policy_files=[bad_file])
        except PolicyMoveError as e:
            msgs.append(str(e))
    assert msgs, "no deal of two hoarders reached the turn cap"
    msg = msgs[0]
    assert "never ended: it played 12000 turns without the round ending" in msg
    assert "the turn cap (12,000 turns)" in msg and "(hoarder) keeps it going" in msg
    assert "handsim show-deal --seed 1 --deal" in msg


def test_simulate_stops_at_an_illegal_move_exit_1_and_keeps_the_finished_work(bad_file, tmp_path):
    from handsim.simulate import CHECKPOINT

    out = tmp_path / "study"
    result = run("simulate", "--policy-file", bad_file, "--lineup", "late:late=50,greedy", "--deals", 60,
                 "--chunk", 5, "--jobs", 1, "--seed", 3, "--out", out, "-q")
    line = one_error_line(result, 1)
    assert line.startswith("Error: policy 'late:late=50' (seat ")
    assert "it discarded" in line
    head, command = line.split("; replay it: ")
    assert head.endswith(f" (configuration 1 of 1, line-up late:late=50,greedy); the finished work is kept in {out} "
                         f"('handsim report {out}' reports it)")
    assert command.startswith("handsim show-deal --seed 3 --deal ")
    with np.load(out / CHECKPOINT) as z:
        assert len(z["__done__"]) >= 1  # the chunks before the failing deal
    deal = int(line.split("show-deal --seed 3 --deal ")[1].split()[0])
    assert deal >= 5 * len(np.load(out / CHECKPOINT)["__done__"])
    assert run("report", out, "-q").exit_code == 0  # the finished work reports


#: What the line says of an index out of range (or another exception in a policy's compiled code).
RAISED = ("it raised an exception in play - an index outside api.memory(g, seat) (16 slots: 0..15), api.param "
          "(8 slots: 0..7) or another array (a policy file compiles with bounds checks), a seat outside the table or "
          "an array too short given to an API function (they check them for a policy file), a division by zero, or a "
          "raise in its code")


API_ABUSES = [5, 6, 7, 8, 9, 10, 11]
API_ABUSE_IDS = ["seen_cards-short-out", "unseen_cards-short-out", "deck_counts-short-out", "plan_hand-bad-seat",
                 "plan_melds-bad-seat", "helper-module-past-memory", "helper-module-bad-seat"]


@pytest.mark.parametrize("how", [0, 1, 2, 3, 4] + API_ABUSES,
                         ids=["write-past-memory", "read-past-memory", "negative-index", "parameter-slot-8",
                              "divide-by-zero"] + API_ABUSE_IDS)
def test_an_index_out_of_range_stops_the_round_naming_policy_deal_seat_and_turn(bad_file, how):
    """Issue 23, cause 3: writing past api.memory killed the process (SIGSEGV) or changed another
    seat's memory. Policy files compile with bounds checks; the exception stops the round with the
    one line of an illegal move. In deal 0 the line-up's first position starts, so the overrun
    comes in turn 1, in the starter's play (no draw in the first turn)."""
    label = "overrun" if how == 0 else f"overrun:how={how}"
    with pytest.raises(PolicyMoveError) as info:
        trace_deal(Rules.preset("classic"), f"{label},greedy", 0, 5, policy_files=[bad_file])
    msg = str(info.value)
    head = f"policy '{label}' (seat "
    assert msg.startswith(head) and "\n" not in msg, msg
    seat = int(msg[len(head)])
    assert msg[len(head) + 1:].startswith(f") stopped with an error in deal 0 (seed 5), turn 1: {RAISED}; replay it: "
                                          f"handsim show-deal --seed 5 --deal 0 "), msg
    result = run(*msg.split("; replay it: ", 1)[1].split()[1:])  # the replay stops at the same line, exit 1
    assert one_error_line(result, 1) == f"Error: {msg}"
    assert f"Turn 1 · seat {seat}" in result.stdout, result.stdout  # the seat named is the one that played turn 1


def test_simulate_stops_at_an_index_out_of_range_exit_1_and_keeps_the_finished_work(bad_file, tmp_path):
    """overrun:late=50 plays as late:late=50 until the round's turn 50 (draws from the stock, discards
    its first legal card), so its first failing deal is the same, after finished chunks."""
    from handsim.simulate import CHECKPOINT

    out = tmp_path / "study"
    result = run("simulate", "--policy-file", bad_file, "--lineup", "overrun:late=50,greedy", "--deals", 60,
                 "--chunk", 5, "--jobs", 1, "--seed", 3, "--out", out, "-q")
    line = one_error_line(result, 1)
    assert line.startswith("Error: policy 'overrun:late=50' (seat "), line
    assert " stopped with an error in deal " in line and RAISED in line, line
    assert (f" (configuration 1 of 1, line-up overrun:late=50,greedy); the finished work is kept in {out} "
            f"('handsim report {out}' reports it); replay it: handsim show-deal --seed 3 --deal ") in line, line
    done = np.load(out / CHECKPOINT)["__done__"].tolist()
    assert len(done) >= 1
    deal = int(line.split("show-deal --seed 3 --deal ")[1].split()[0])
    assert deal >= 5 * len(done)  # the chunks before the failing deal
    late = run("simulate", "--policy-file", bad_file, "--lineup", "late:late=50,greedy", "--deals", 60, "--chunk", 5,
               "--jobs", 1, "--seed", 3, "--out", tmp_path / "late", "-q")
    assert f"show-deal --seed 3 --deal {deal} " in one_error_line(late, 1)  # the same deal as the illegal discard
    assert run("report", out, "-q").exit_code == 0  # the finished work reports


@pytest.fixture(scope="module")
def late_deal(bad_file, tmp_path_factory):
    """The first deal of the study below where late:late=50 discards a card it does not hold."""
    late = run("simulate", "--policy-file", bad_file, "--lineup", "late:late=50,greedy", "--deals", 60, "--chunk", 5,
               "--jobs", 1, "--seed", 3, "--out", tmp_path_factory.mktemp("late") / "s", "-q")
    return int(one_error_line(late, 1).split("show-deal --seed 3 --deal ")[1].split()[0])


@pytest.mark.parametrize("how", API_ABUSES, ids=API_ABUSE_IDS)
def test_an_api_function_given_a_bad_seat_or_short_out_stops_a_study_keeping_the_finished_work(bad_file, tmp_path,
                                                                                                how, late_deal):
    """The API functions compiled apart from the policy file (and helpers in another module) are
    checked for it too: from the round's turn 50 the policy misuses them (before, it played as
    late:late=50), so the study stops at the same deal as late's illegal discard, exit 1, one line,
    the chunks before it kept; check-policy refuses the policy."""
    from handsim.simulate import CHECKPOINT

    label = f"overrun:how={how},late=50"
    out = tmp_path / "study"
    result = run("simulate", "--policy-file", bad_file, "--lineup", f"{label},greedy", "--deals", 60, "--chunk", 5,
                 "--jobs", 1, "--seed", 3, "--out", out, "-q")
    line = one_error_line(result, 1)
    assert line.startswith(f"Error: policy '{label}' (seat "), line
    assert f" stopped with an error in deal {late_deal} (seed 3), turn " in line and RAISED in line, line
    assert f"the finished work is kept in {out}" in line, line
    done = np.load(out / CHECKPOINT)["__done__"].tolist()
    assert len(done) >= 1 and late_deal >= 5 * len(done), (done, late_deal)  # chunks before the failing deal
    bad = run("check-policy", bad_file, f"overrun:how={how}", "--deals", 2, "--jobs", 1)
    assert bad.exit_code == 1, bad.output
    assert "2 deals with a discrepancy, an illegal move or moves that differ when played again" in bad.output
    assert f"stopped with an error in deal 0 (seed 0), turn 1: {RAISED}" in bad.output, bad.output
    assert "Traceback" not in bad.output


def test_check_policy_and_a_tournament_refuse_an_index_out_of_range(bad_file, tmp_path):
    bad = run("check-policy", bad_file, "overrun:how=2", "--deals", 3, "--jobs", 1)
    assert bad.exit_code == 1, bad.output
    assert "3 deals with a discrepancy, an illegal move or moves that differ when played again" in bad.output
    assert "  deal 0 (classic / overrun:how=2,greedy): policy 'overrun:how=2' (seat " in bad.output, bad.output
    assert f"stopped with an error in deal 0 (seed 0), turn 1: {RAISED}" in bad.output, bad.output
    assert "Traceback" not in bad.output
    t = run("tournament", "--policy-file", bad_file, "--policy", "overrun:how=3", "--policy", "greedy", "--players", 2,
            "--deals", 10, "--jobs", 1, "--out", tmp_path / "t", "-q")
    line = one_error_line(t, 1)
    assert line.startswith("Error: policy 'overrun:how=3' (seat "), line
    assert f" stopped with an error in deal 0 (seed 0), turn 1: {RAISED}" in line, line


def test_the_move_cap_stops_a_turn_that_never_ends():
    from numba import njit

    from handsim.games.hand.kernels import state as S

    @njit
    def many_moves(arr):
        g = arr[0]
        g.sc[S.S_STATUS] = S.STATUS_PLAYING
        n = 0
        while S.count_move(g):
            n += 1
        return n, g.err[S.ER_CODE], g.err[S.ER_A]

    n, code, a = many_moves(S.new_game(2, Rules.preset("classic").to_vector(), False))
    assert (n, code, a) == (S.MAX_MOVES_PER_TURN, S.E_TOO_MANY_MOVES, S.MAX_MOVES_PER_TURN + 1)


# ------------------------------------------------------------------------------ the CLI and the cache


def test_simulate_show_deal_and_check_with_a_policy_file(tmp_path):
    out = tmp_path / "s"
    result = run("simulate", "--policy-file", JOKER_KEEPER, "--lineup", "joker-keeper:release_turn=5,greedy",
                 "--deals", 30, "--jobs", 1, "--trace", 4, "--out", out, "-q")
    assert result.exit_code == 0, result.output
    run_json = json.loads((out / "run.json").read_text())
    files = run_json["spec"]["policy_files"]
    assert files == [{"path": str(JOKER_KEEPER.resolve()), "sha256": files[0]["sha256"]}]
    assert "joker-keeper:release_turn=5" in run_json["policies"]
    # the recorded deals pass the rules checker, and show-deal replays them
    check = run("check", out / "traces.jsonl")
    assert check.exit_code == 0 and "4 deals checked, 0 discrepancies" in check.output
    trace = json.loads((out / "traces.jsonl").read_text().splitlines()[0])
    shown = run("show-deal", "--policy-file", JOKER_KEEPER, "--lineup", "joker-keeper:release_turn=5,greedy",
                "--seed", 0, "--deal", trace["deal"], "--json")
    assert shown.exit_code == 0, shown.output
    assert json.loads(shown.stdout)["events"] == trace["events"]
    # --from runs it again (the file is recorded); an edited file is refused
    again = run("simulate", "--from", out, "--out", tmp_path / "again", "-q")
    assert again.exit_code == 0, again.output
    assert (tmp_path / "again" / "summary.csv").read_bytes() == (out / "summary.csv").read_bytes()


def test_an_edited_policy_file_is_not_resumed(tmp_path):
    src = tmp_path / "keeper.py"
    src.write_text(JOKER_KEEPER.read_text(encoding="utf-8"), encoding="utf-8")
    from handsim.simulate import StudySpec, make_spec

    spec = make_spec(Rules.preset("classic"), None, ["joker-keeper"], 2, 4, policy_files=[JOKER_KEEPER])
    saved = spec.to_json()
    saved["policy_files"] = [{"path": str(src), "sha256": "0" * 64}]
    with pytest.raises(PolicyFileError, match=r"^policy file .*keeper\.py changed since the study was set up \(sha256 "
                                              r"[0-9a-f]{12}\.\.\. now, 000000000000\.\.\. recorded\): restore it, "
                                              r"or start a new study$"):
        StudySpec.from_json(saved)


@pytest.mark.parametrize("change", ["edited", "moved"])
def test_resume_of_a_study_whose_policy_file_changed_names_the_file_and_hash_not_a_damaged_checkpoint(tmp_path, change):
    """Issue 23 cause 8 (breaker E3, E5): the checkpoint is valid, the policy file is not the one
    recorded: --resume refuses naming the file and both hashes; report's reading still works."""
    import hashlib

    from handsim.simulate import make_spec
    from handsim.errors import StudyError
    from handsim.study import CHECKPOINT, read_checkpoint
    from handsim.study.checkpoint import save_checkpoint

    src = tmp_path / "mycopy.py"
    name = f"keeper-{change}"  # a name of its own: the example's is registered in this process already
    src.write_text(JOKER_KEEPER.read_text(encoding="utf-8").replace('"joker-keeper",', f'"{name}",'), encoding="utf-8")
    recorded = hashlib.sha256(src.read_bytes()).hexdigest()
    spec = make_spec(Rules.preset("classic"), None, [name], 4, 20, chunk=10, policy_files=[src])
    folder = tmp_path / "I17"
    folder.mkdir()
    save_checkpoint(folder, spec.game.new_accumulator(spec), set(), spec, 0, 0.0)
    if change == "edited":
        src.write_text(src.read_text(encoding="utf-8") + "# edited\n", encoding="utf-8")
        now = hashlib.sha256(src.read_bytes()).hexdigest()
        why = (rf"policy file {re.escape(str(src.resolve()))} changed since the study was set up \(sha256 {now[:12]}"
               rf"\.\.\. now, {recorded[:12]}\.\.\. recorded\): restore it, or start a new study")
    else:
        src.rename(tmp_path / "elsewhere.py")
        why = (rf"policy file not found at {re.escape(str(src.resolve()))} \(recorded sha256 {recorded[:12]}\.\.\.\): "
               r"restore it, or start a new study")
    with pytest.raises(StudyError, match=rf"^cannot resume {re.escape(str(folder))}: {why}$"):
        read_checkpoint(folder / CHECKPOINT)
    assert read_checkpoint(folder / CHECKPOINT, policies=False).done == frozenset()  # what report reads: still usable
    result = run("simulate", "--resume", folder, "-q")
    assert result.exit_code == 2
    line = result.output.strip().splitlines()[-1]
    assert re.search(rf"^Error: cannot resume {re.escape(str(folder))}: {why} \(see 'handsim simulate --help'\)$",
                     line), line
    assert "not a usable" not in result.output and "Traceback" not in result.output


def test_the_engine_of_a_policy_file_is_compiled_once_for_every_later_process(tmp_path):
    """A second process finds the generated engine in the cache: nothing compiles (numba's own
    statistics say so), in the main process and in worker processes alike."""
    code = textwrap.dedent(f"""
        import json, sys
        from handsim.games.hand.rules import Rules
        from handsim.simulate import make_spec, run_study
        spec = make_spec(Rules.preset("classic"), None, ["my-greedy,greedy"], 2, 40, seed=1, chunk=10,
                         policy_files=[{str(GREEDY_COPY)!r}])
        engine = spec.engine()
        res = run_study(spec, jobs=int(sys.argv[1]))
        fn = engine.module.play_deals
        print(json.dumps({{"misses": sum(fn.stats.cache_misses.values()), "hits": sum(fn.stats.cache_hits.values()),
                          "compiled": engine.is_compiled("play_deals"),
                          "score": float(res.summary["mean_score"].iloc[0])}}))
    """)
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    outs = []
    for jobs in (1, 1, 2):
        p = subprocess.run([sys.executable, "-c", code, str(jobs)], capture_output=True, text=True, env=env,
                           cwd=tmp_path, timeout=HANG_GUARD)
        assert p.returncode == 0, p.stderr[-2000:]
        outs.append(json.loads(p.stdout.strip().splitlines()[-1]))
    assert outs[1] == {"misses": 0, "hits": 1, "compiled": True, "score": outs[0]["score"]}
    assert outs[2]["misses"] == 0 and outs[2]["score"] == outs[0]["score"]  # worker processes: same numbers


def test_check_policy_reports_a_clean_policy_and_an_illegal_one(bad_file):
    result = run("check-policy", JOKER_KEEPER, "joker-keeper", "--deals", 240, "--jobs", 1)
    assert result.exit_code == 0, result.output
    # konkan added 6 (2, 3, 4 players, two line-ups each); five players 38 (one line-up for each of the
    # 38 variants)
    assert "240 deals over 279 cases" in result.output
    assert "Checked by handsim.games.hand.checker: no discrepancy, no illegal move" in result.output
    bad = run("check-policy", bad_file, "unheld", "--deals", 3, "--jobs", 1)
    assert bad.exit_code == 1
    assert "3 deals with a discrepancy, an illegal move or moves that differ when played again" in bad.output
    assert "policy 'unheld' (seat" in bad.output
    # legal moves, but from the global random generator: the same deal played twice differs
    dice = run("check-policy", bad_file, "dice", "--deals", 3, "--jobs", 1)
    assert dice.exit_code == 1, dice.output
    assert "3 deals with a discrepancy, an illegal move or moves that differ when played again" in dice.output
    first = next(ln for ln in dice.output.splitlines() if "played twice" in ln)
    assert first.startswith("  deal 0 (classic / dice,greedy): played twice, its moves differ: move "), first
    assert ", dice): discard " in first, first
    assert " the first time, discard " in first and "no global random generator" in first, first
    assert one_error_line(run("check-policy", bad_file, "greedy"), 2).endswith(
        "greedy is a built-in policy: check-policy checks a policy of FILE (the built-ins are checked by "
        "scripts/fuzz.py) (see 'handsim check-policy --help')")


@pytest.mark.parametrize("doc, name", [("docs/policies.md", "cautious"), ("docs/policies.md", "joker-grabber")])
def test_the_documented_example_policy_loads_and_is_declared_as_documented(tmp_path, doc, name):
    """The worked examples of docs/policies.md are valid policy files (its functions
    compile with the engine's types: the check run before a study)."""
    from handsim.policies.files import check_compiles

    text = (ROOT / doc).read_text(encoding="utf-8")
    blocks = [b.split("```", 1)[0] for b in text.split("```python\n")[1:]]
    code = next(b for b in blocks if f'Policy(\n    "{name}"' in b)
    path = tmp_path / f"{name.replace('-', '_')}.py"
    path.write_text(code, encoding="utf-8")
    pf = load_policy_files([path])[0]
    assert pf.names == [name]
    check_compiles(pf)
    p = pf.policies[0]
    assert p.params[0].unit == "own turns" and p.slot(p.params[0].name) == 0


def test_a_policy_toml_names_the_file_of_a_user_policy(tmp_path):
    """``best.toml`` of a user-written policy records its policy file, so ``--policy @best.toml``
    works in any later run (the file is loaded when the TOML file is read)."""
    from handsim.tournament.best import read_policy_toml, write_policy_toml

    load_policy_files([JOKER_KEEPER])
    spec = parse_lineup("joker-keeper:release_turn=7")[0]
    write_policy_toml(tmp_path / "best.toml", spec)
    text = (tmp_path / "best.toml").read_text(encoding="utf-8")
    assert f'file = "{JOKER_KEEPER.resolve()}"' in text
    assert read_policy_toml(tmp_path / "best.toml") == "joker-keeper:release_turn=7"
    result = run("simulate", "--lineup", f"@{tmp_path / 'best.toml'},greedy", "--deals", 4, "--jobs", 1,
                 "--out", tmp_path / "s", "-q")
    assert result.exit_code == 0, result.output
    bad = tmp_path / "bad.toml"
    bad.write_text('[policy]\nname = "x"\nfile = "nowhere.py"\n', encoding="utf-8")
    assert "nowhere.py: not found" in one_error_line(run("simulate", "--policy", f"@{bad}", "--deals", 2, "-q",
                                                         "--out", tmp_path / "b"), 2)
    assert json.loads((tmp_path / "s" / "run.json").read_text())["spec"]["policy_files"][0]["path"] == \
        str(JOKER_KEEPER.resolve())  # recorded, so --resume and --from find it


# ------------------------------------------------------------------------------ tournament and tune


def test_tournament_and_tune_take_policy_files_and_record_them(tmp_path):
    """--policy-file works in tournament and tune as in simulate: the policy file's policies can be
    entries, tuned or played against; the saved run names the file with its SHA-256, so --resume
    reloads it, and a file changed since is refused with one line."""
    from handsim.tournament import TournamentSpec, make_tournament
    from handsim.tournament.tune import TuneSpec, make_tune

    pol = tmp_path / "keeper.py"
    # the example under a name of its own (this process may have loaded the example itself)
    pol.write_text(JOKER_KEEPER.read_text(encoding="utf-8").replace('"joker-keeper"', '"keeper-copy"'), encoding="utf-8")
    name = load_policy_files([pol])[0].policies[0].name
    out = tmp_path / "t"
    r = run("tournament", "--policy-file", pol, "--policy", name, "--policy", "greedy", "--players", 2,
            "--deals", 20, "--jobs", 1, "--out", out, "-q")
    assert r.exit_code == 0, r.output
    saved = json.loads((out / "run.json").read_text())["tournament"]
    [f] = saved["policy_files"]
    assert f["path"] == str(pol.resolve())
    assert len(f["sha256"]) == 64
    assert set(saved["entries"]) == {name, "greedy"}
    spec = TournamentSpec.from_json(saved)
    assert spec == make_tournament([name, "greedy"], players=2, deals=20, policy_files=[pol])

    r = run("tune", name, "--policy-file", pol, "--param", "release_turn=1:3", "--against", "greedy",
            "--deals", 10, "--confirm-deals", 10, "--jobs", 1, "--out", tmp_path / "u", "-q")
    assert r.exit_code == 0, r.output
    tsaved = json.loads((tmp_path / "u" / "run.json").read_text())["tune"]
    assert tsaved["policy_files"] == saved["policy_files"]
    assert TuneSpec.from_json(tsaved).base.name == name

    pol.write_text(pol.read_text(encoding="utf-8") + "\n# changed\n", encoding="utf-8")
    line = one_error_line(run("tournament", "--resume", out), 2)
    assert "keeper.py" in line
    assert make_tune("greedy", ["support_hand=0:1"], "greedy,greedy,greedy", players="2v2").to_json().get(
        "policy_files") is None  # built-in policies only: the saved spec stays as it was


def test_what_a_policy_file_prints_while_it_loads_goes_to_stderr(tmp_path):
    """`show-deal --json > f` must stay a file of move logs (a file that printed at import wrote
    to handsim's stdout, and `handsim check f` then failed: found by a review)."""
    path = policy_file(tmp_path, 'print("HELLO FROM POLICY")\n', "loud.py")
    result = run("show-deal", "--policy-file", path, "--lineup", "t-loud,greedy", "--deal", 1, "--json")
    assert result.exit_code == 0, result.output
    assert "HELLO" not in result.stdout and "HELLO FROM POLICY" in result.stderr
    assert json.loads(result.stdout)["policies"].count("t-loud") == 1


def test_a_policy_file_that_changes_the_working_folder_does_not_move_the_command(tmp_path, monkeypatch):
    """A policy file that calls os.chdir() when it is loaded gets the working folder put back: the
    command's later relative paths (here the second --policy-file, then @best.toml) are read from
    where the user typed them (they were looked up in the folder the file moved to: found by a review)."""
    from handsim.tournament.best import expand_policy_ref

    (tmp_path / "elsewhere").mkdir()
    policy_file(tmp_path, 'import os\nos.chdir("elsewhere")\n', "mover.py")
    policy_file(tmp_path, "", "stayer.py")
    (tmp_path / "best.toml").write_text('[policy]\nname = "t-stayer"\n', encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    result = run("policies", "--policy-file", "mover.py", "--policy-file", "stayer.py")
    assert result.exit_code == 0, result.output
    assert "t-mover" in result.stdout and "t-stayer" in result.stdout
    assert os.getcwd() == str(tmp_path)
    # in-process, as tune and show-deal do: load the files, then read a relative @FILE
    (tmp_path / "elsewhere" / "best.toml").write_text('[policy]\nname = "greedy"\n', encoding="utf-8")
    mover = tmp_path / "mover2.py"
    mover.write_text((tmp_path / "mover.py").read_text(encoding="utf-8").replace('"t-mover"', '"t-mover2"'),
                     encoding="utf-8")
    load_policy_files(["mover2.py"])
    assert os.getcwd() == str(tmp_path)
    assert expand_policy_ref("@best.toml") == "t-stayer"


def test_a_finished_study_is_reported_after_its_policy_file_is_edited_or_moved(tmp_path):
    """report redraws from the checkpoint and run.json: it does not load the policy file (issue 23,
    cause 8: 'not usable ... study spec is unreadable'); --resume still refuses the changed or
    missing file, naming it and the content it recorded."""
    src = tmp_path / "keeper.py"
    src.write_text(JOKER_KEEPER.read_text(encoding="utf-8"), encoding="utf-8")
    out = tmp_path / "s"
    # in another process: this one must not hold joker-keeper declared in the copy (other tests load
    # the example itself); the engine of the same content comes from the kernel cache
    done = subprocess.run([sys.executable, "-m", "handsim", "simulate", "--policy-file", str(src), "--lineup",
                           "joker-keeper:release_turn=5,greedy", "--deals", "20", "--chunk", "10", "--jobs", "1",
                           "--out", str(out), "-q"], capture_output=True, text=True, timeout=HANG_GUARD)
    assert done.returncode == 0, done.stderr
    recorded = json.loads((out / "run.json").read_text())["spec"]["policy_files"][0]["sha256"]
    assert run("report", out, "--format", "md", "-q").exit_code == 0
    before = (out / "report.md").read_bytes()
    src.write_text(src.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
    for step in ("edited", "moved"):
        if step == "moved":
            src.rename(tmp_path / "elsewhere.py")
        (out / "report.md").unlink()
        result = run("report", out, "--format", "md", "-q")
        assert result.exit_code == 0, (step, result.output)
        assert (out / "report.md").read_bytes() == before, step
        line = one_error_line(run("simulate", "--resume", out, "--jobs", 1, "-q"), 2)
        assert str(src) in line, line
        assert ((f"{recorded[:12]}... recorded)" in line) if step == "edited"
                else (f"not found at {src} (recorded sha256 {recorded[:12]}" in line)), line
        assert line.startswith(f"Error: cannot resume {out}: policy file "), line
    # an interrupted study (no run.json yet) likewise: report from the checkpoint alone
    (out / "run.json").unlink()
    result = run("report", out, "--format", "md", "-q")
    assert result.exit_code == 0, result.output


def test_a_finished_tournament_is_reported_after_its_policy_file_is_edited_or_moved(tmp_path):
    """As a study's (issue 23, cause 8's kind): a tournament's report redraws from the checkpoint and
    run.json, its policy files not loaded (it was 'cannot read the tournament in DIR/run.json: policy
    file ... changed'); every output the same, the file's policy described as run.json recorded it;
    --resume still refuses the changed or missing file, naming it and its recorded hash."""
    src = tmp_path / "keeper.py"
    src.write_text(JOKER_KEEPER.read_text(encoding="utf-8"), encoding="utf-8")
    out = tmp_path / "t"
    done = subprocess.run([sys.executable, "-m", "handsim", "tournament", "--policy-file", str(src), "--policy",
                           "joker-keeper:release_turn=5", "--policy", "greedy", "--players", "2", "--deals", "10",
                           "--chunk", "5", "--jobs", "1", "--out", str(out), "-q"],
                          capture_output=True, text=True, timeout=HANG_GUARD)
    assert done.returncode == 0, done.stderr
    saved = json.loads((out / "run.json").read_text())
    recorded = saved["tournament"]["policy_files"][0]["sha256"]
    assert saved["policies"]["joker-keeper:release_turn=5"].startswith("Greedy, but while it holds a joker")
    names = ("report.md", "crosstable.csv", "ratings.csv", "tables.csv", "run.json")
    before = {n: (out / n).read_bytes() for n in names}
    src.write_text(src.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
    for step in ("edited", "moved"):
        if step == "moved":
            src.rename(tmp_path / "elsewhere.py")
        for n in names[:4]:
            (out / n).unlink()
        result = run("report", out, "--format", "md", "-q")
        assert result.exit_code == 0, (step, result.output)
        assert {n: (out / n).read_bytes() for n in names} == before, step
        line = one_error_line(run("tournament", "--resume", out, "--jobs", 1, "-q"), 2)
        assert line.startswith(f"Error: cannot resume the tournament in {out}: policy file "), line
        assert ((f"{recorded[:12]}... recorded)" in line) if step == "edited"
                else (f"not found at {src} (recorded sha256 {recorded[:12]}" in line)), line
        assert json.loads((out / "run.json").read_text()) == saved  # the refused resume changed nothing


@pytest.mark.parametrize("kw", [
    dict(lineups=["joker-keeper:release_turn=5,greedy"], players=2, policy_files=[JOKER_KEEPER]),
    dict(vary={"opening_threshold": [51, 71], "joker_penalty": [15, 30]}, lineups=["greedy", "hold-hand,greedy,greedy"],
         players=3, matches=True, seed=7, chunk=3),
], ids=["policy-file", "vary-matches"])
def test_a_saved_study_is_the_spec_it_was_saved_from(kw):
    """What a report reads without loading policies (SavedStudy) states the same study as the spec:
    the same saved object, configurations and line-up labels."""
    from handsim.study.spec import SavedStudy, make_spec

    spec = make_spec(Rules.preset("classic"), deals=10, **kw)
    saved = SavedStudy.from_json(json.loads(json.dumps(spec.to_json())))
    assert saved.to_json() == spec.to_json()
    assert saved.config_dicts() == spec.config_dicts() and saved.varying() == spec.varying()
    assert [[p.label for p in lu] for lu in saved.lineups] == [[p.label for p in lu] for lu in spec.lineups]
    assert saved.game is spec.game


@pytest.mark.parametrize("signum, code, word, jobs", [
    pytest.param(2, 130, "Interrupted", 1, id="ctrl-c"),
    pytest.param(2, 130, "Interrupted", 2, id="ctrl-c-2-jobs"),
    pytest.param(15, 143, "Terminated", 1, id="kill", marks=pytest.mark.slow),  # the same path as Ctrl-C
])
def test_a_policy_stuck_in_a_decision_is_stopped_and_named(bad_file, tmp_path, signum, code, word, jobs):
    """'stuck' never returns from its play in one deal in 8 (compiled code: no signal reaches it).
    Ctrl-C or kill stops the study anyway (issue 23, cause 4: only kill -9 did): the worker
    process gets the grace period, is stopped, the policy is named, the finished chunks are kept.
    Even with --jobs 1 the chunks of a policy file run in a worker process.  With --jobs 2 the other
    worker plays on (and may get stuck in a later chunk too): only the chunks whose worker did not
    return are named, each one once, none of those waiting in the executor's queue."""
    import re

    import signal
    import time

    from handsim.simulate import CHECKPOINT
    from handsim.study.executors import GRACE_SECONDS

    out = tmp_path / "s"
    env = {**os.environ, "HANDSIM_CHECKPOINT_EVERY": "0"}  # a checkpoint after every chunk
    p = subprocess.Popen([sys.executable, "-m", "handsim", "simulate", "--policy-file", str(bad_file), "--lineup",
                          "stuck,greedy", "--deals", "40", "--chunk", "5", "--jobs", str(jobs), "--out", str(out), "-q"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                         # default SIGINT in the child: a suite started in the background of a shell ignores it,
                         # and the child would inherit that
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        t0 = time.monotonic()
        while not (out / CHECKPOINT).exists() and p.poll() is None and time.monotonic() - t0 < HANG_GUARD:
            time.sleep(0.2)
        time.sleep(1.0)  # deals 0-9 take milliseconds; the first stuck deal is in chunk 3 (deals 10-14)
        assert p.poll() is None, p.stderr.read()
        p.send_signal(signum)
        _, err = p.communicate(timeout=GRACE_SECONDS + 30)
    finally:
        if p.poll() is None:
            p.kill()
    assert p.returncode == code, err
    done = np.load(out / CHECKPOINT)["__done__"].tolist()
    if jobs == 1:
        assert (f"{word}: 1 chunk had not finished {GRACE_SECONDS:g} s after the signal: its worker process was "
                "stopped (line-up stuck,greedy: policy 'stuck' did not return from a decision).") in err, err
        assert done == [0, 1], done
    else:  # 1 or 2 workers stuck (each in a chunk of its own, not among those kept)
        m = re.search(rf"{word}: (1 chunk|2 chunks) had not finished {GRACE_SECONDS:g} s after the signal: "
                      r"(its worker process was|their worker processes were) stopped "
                      r"\(line-up stuck,greedy: policy 'stuck' did not return from a decision\)\.", err)
        assert m and (m[1] == "1 chunk") == (m[2] == "its worker process was"), err
        assert done[:2] == [0, 1] and 2 not in done and len(done) <= 8 - int(m[1][0]), done
    assert f"{word}: partial results are checkpointed in {out}" in err, err
    assert "Traceback" not in err, err


@pytest.mark.parametrize("kind", ["tournament", "tune"])
def test_tournament_and_tune_resume_after_their_policy_file_was_edited_name_the_file_and_hash(tmp_path, kind):
    """The same refusal for ``tournament --resume`` and ``tune --resume`` (issue 23 cause 8): not
    "run.json is damaged"."""
    import hashlib

    from handsim.tournament.core import make_tournament
    from handsim.tournament.tune import make_tune

    name = f"keeper-{kind}"
    src = tmp_path / "mycopy.py"
    src.write_text(JOKER_KEEPER.read_text(encoding="utf-8").replace('"joker-keeper",', f'"{name}",'),
                   encoding="utf-8")
    recorded = hashlib.sha256(src.read_bytes()).hexdigest()
    if kind == "tournament":
        spec = make_tournament([name, "greedy"], 2, deals=4, chunk=2, policy_files=[src])
    else:
        spec = make_tune(name, ["release_turn=2:6"], players=2, deals=4, chunk=2, trials=2, batch=1,
                         policy_files=[src])
    folder = tmp_path / "T"
    folder.mkdir()
    (folder / "run.json").write_text(json.dumps({"kind": kind, kind: spec.to_json(), "status": "running"}),
                                     encoding="utf-8")
    src.write_text(src.read_text(encoding="utf-8") + "# edited\n", encoding="utf-8")
    now = hashlib.sha256(src.read_bytes()).hexdigest()
    result = run(kind, "--resume", folder, "-q")
    assert result.exit_code == 2, result.output
    line = result.output.strip().splitlines()[-1]
    what = {"tune": "tuning run"}.get(kind, kind)
    assert line.startswith(f"Error: cannot resume the {what} in {folder}: policy file {src.resolve()} changed "
                           f"since the study was set up (sha256 {now[:12]}... now, {recorded[:12]}... recorded): "
                           "restore it, or start a new study"), line
    assert "damaged" not in result.output


def test_a_study_folder_stays_one_after_its_policy_file_was_edited_or_moved(tmp_path):
    """--force may replace a study folder (why_not_a_study is None) whose policy file changed since:
    its run.json and checkpoint are read without loading the file (issue 23 cause 8 kind)."""
    from handsim.simulate import make_spec
    from handsim.study.checkpoint import save_checkpoint
    from handsim.study.outdir import why_not_a_study

    src = tmp_path / "mycopy.py"
    src.write_text(JOKER_KEEPER.read_text(encoding="utf-8").replace('"joker-keeper",', '"keeper-force",'),
                   encoding="utf-8")
    spec = make_spec(Rules.preset("classic"), None, ["keeper-force"], 4, 20, chunk=10, policy_files=[src])
    with_run, with_ck = tmp_path / "a", tmp_path / "b"
    with_run.mkdir()
    (with_run / "run.json").write_text(json.dumps({"spec": spec.to_json()}), encoding="utf-8")
    with_ck.mkdir()
    save_checkpoint(with_ck, spec.game.new_accumulator(spec), set(), spec, 0, 0.0)
    src.write_text(src.read_text(encoding="utf-8") + "# edited\n", encoding="utf-8")
    assert why_not_a_study(with_run) is None and why_not_a_study(with_ck) is None
    src.unlink()
    assert why_not_a_study(with_run) is None and why_not_a_study(with_ck) is None
