"""Every command that can compile numba kernels says so on stderr, once, before the wait, naming
what compiles (and for which players) and how long it takes; nothing when nothing compiles; Ctrl-C
during a compilation ends the command with exit 130 (issue 23, first contact: 'every compile
announces itself').

The notices listen to numba's own compile event (handsim.cli._common.compile_notice).  The fast
tests make a compilation happen inside a command's work with a small function compiled afresh (as
a kernel cached for other argument types only would): the commands that looked at the cache
beforehand said nothing then.  The slow test runs the real commands in an empty kernel cache.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from handsim.cli import cli

ROOT = Path(__file__).resolve().parents[1]
GREEDY_COPY = ROOT / "examples" / "policies" / "greedy_copy.py"

pytestmark = pytest.mark.compile_notices


def run(*args):
    return CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=True)


def ok(result):
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert result.exit_code == 0, result.output
    return result


def notice(what: str, how_long: str, once: str = "once") -> str:
    return f"Compiling {what} ({once}, {how_long}; cached afterwards)...\n"


def compiling_first(monkeypatch, module, name: str, call_real: bool = True):
    """Make ``module.name`` compile two fresh numba functions (two compile events, the second
    after the first has finished) before it does its real work (none: ``call_real`` false)."""
    from numba import njit

    real = getattr(module, name)

    def fresh():
        @njit  # not cached: it compiles on its first call, in this process
        def twice(x):
            return 2 * x

        @njit
        def thrice(x):
            return 3 * x

        assert twice(21) == 42 and thrice(2) == 6

    def wrapper(*args, **kwargs):
        fresh()
        return real(*args, **kwargs) if call_real else None

    monkeypatch.setattr(module, name, wrapper)
    return real


TIER1 = "greedy, hold-hand, random"  # the light players' engine (handsim.games.hand.policies.engines.TIERS)


@pytest.fixture
def held(monkeypatch):
    """The engine drivers the cache holds, as the notices' time figure sees them (an engine's first
    driver compiles its players' functions too; a later one loads them): none, unless a test adds."""
    from handsim.games.hand.policies.engines import Engine

    drivers: set[str] = set()
    monkeypatch.setattr(Engine, "is_compiled", lambda self, driver="play_deals": driver in drivers)
    return drivers


def test_arrange_and_show_deal_say_a_compilation_the_cache_check_missed(monkeypatch, held):
    """The compile happens in the command's work with every kernel it checked in the cache: said
    once (two compile events), then nothing when nothing compiles."""
    import handsim.games.hand.arrange
    import handsim.games.hand.trace

    real_arrange = compiling_first(monkeypatch, handsim.games.hand.arrange, "arrange")
    result = ok(run("arrange", "QH KH AH"))
    assert result.stderr == notice("the meld search", "about 20 seconds")
    assert result.stdout.startswith("max_melded_value: 31\n")
    real = compiling_first(monkeypatch, handsim.games.hand.trace, "trace_deal")
    result = ok(run("show-deal", "--deal", 3, "--players", 2, "--policy", "greedy"))
    assert result.stderr == notice(f"the deal tracer for {TIER1}", "1 to 2 minutes", "once for these players")
    assert result.stdout.startswith("Deal 3, seed 0: 2 players")
    # a round of a match: the same words (the tracer of a match round)
    held.add("play_deals")  # another driver of the engine is cached: its players' functions are loaded
    result = ok(run("show-deal", "--deal", 3, "--players", 2, "--policy", "hold-hand", "--round", 2))
    assert result.stderr == notice(f"the deal tracer for {TIER1}", "10 to 30 seconds", "once for these players")
    # the first tie-break round of a 9-round match: the match engine says whether the match had it
    import handsim.cli.inspect

    compiling_first(monkeypatch, handsim.cli.inspect, "_check_tiebreak_round")
    result = run("show-deal", "--deal", 3, "--players", 2, "--policy", "hold-hand", "--round", 10)
    assert result.exit_code == 2 and result.stderr.splitlines(keepends=True) == [
        notice(f"the match engine and its deal tracer for {TIER1}", "20 to 60 seconds", "once for these players"),
        "Error: Invalid value for '--round': match 3 (seed 0) ended after round 9 (9 regular rounds, no tie-break "
        "needed): allowed --round 1..9 (see 'handsim show-deal --help')\n"], result.stderr
    monkeypatch.setattr(handsim.games.hand.trace, "trace_deal", real)
    monkeypatch.setattr(handsim.games.hand.arrange, "arrange", real_arrange)
    # loaded already (in this process): nothing compiles, nothing is said
    assert ok(run("arrange", "QH KH AH")).stderr == ""
    assert ok(run("show-deal", "--deal", 3, "--players", 2, "--policy", "greedy")).stderr == ""


def test_the_russian_tracer_says_a_compilation(monkeypatch):
    import handsim.games.russian.trace

    compiling_first(monkeypatch, handsim.games.russian.trace, "trace_deal")
    result = ok(run("show-deal", "--preset", "russian", "--players", 2, "--deal", 1))
    assert result.stderr == notice("the Russian Hand deal tracer", "about a minute")


def test_simulate_says_the_engine_and_the_tracer_each_once_naming_the_players(monkeypatch, tmp_path, held):
    """The engine compiles in the study's warm-up (in a helper thread), the tracer for --trace after
    the study: two waits, each said once, naming the players whose engine it is (another set of
    players has another engine: the repeat says why)."""
    import handsim.cli.simulate
    import handsim.games.hand.game

    real = handsim.games.hand.game.warm_up

    def warm_up_and_cache(*args):
        real(*args)
        held.add("play_deals")  # what the study's warm-up leaves in the cache

    monkeypatch.setattr(handsim.games.hand.game, "warm_up", warm_up_and_cache)
    compiling_first(monkeypatch, handsim.games.hand.game, "warm_up")
    compiling_first(monkeypatch, handsim.cli.simulate, "_write_traces")
    result = ok(run("simulate", "--policy", "greedy", "--players", 2, "--deals", 4, "--trace", 1, "--jobs", 1,
                    "--no-progress", "--out", tmp_path / "s"))
    assert result.stderr.splitlines(keepends=True) == [
        notice(f"the simulation engine for {TIER1}", "1 to 2 minutes", "once for these players"),
        notice(f"the deal tracer for --trace for {TIER1}", "10 to 30 seconds", "once for these players")]
    result = ok(run("simulate", "--policy", "greedy", "--players", 2, "--deals", 4, "--trace", 1, "--jobs", 1,
                    "--no-progress", "--out", tmp_path / "q", "-q"))
    assert result.stderr == ""  # --quiet: nothing but errors


def test_tournament_and_tune_say_the_engine_once(monkeypatch, tmp_path, held):
    import handsim.games.hand.game

    compiling_first(monkeypatch, handsim.games.hand.game, "warm_up")
    result = ok(run("tournament", "--policy", "greedy", "--policy", "random", "--players", 2, "--deals", 4,
                    "--jobs", 1, "--no-progress", "--out", tmp_path / "t"))
    said = [line for line in result.stderr.splitlines(keepends=True) if line.startswith("Compiling")]
    assert said == [notice(f"the simulation engine for {TIER1}", "1 to 2 minutes", "once for these players")]
    assert result.stderr.startswith(said[0])  # before anything else on stderr
    result = ok(run("tune", "hold-hand", "--param", "bail_turn=4:5", "--against", "greedy", "--players", 2,
                    "--deals", 4, "--confirm-deals", 4, "--jobs", 1, "--no-progress", "--out", tmp_path / "u"))
    said = [line for line in result.stderr.splitlines(keepends=True) if line.startswith("Compiling")]
    assert said == [notice(f"the simulation engine for {TIER1}", "1 to 2 minutes", "once for these players")]


def test_check_policy_and_chart_say_their_compilation_before_the_work(monkeypatch, tmp_path, held):
    """check-policy compiles its engine and tracer in this process before the workers fork (they
    load them), chart its kernel: each said once, before the work (here a stand-in that stops)."""
    import handsim.games.hand.chart
    import handsim.policies.check
    from handsim.errors import InputError

    compiling_first(monkeypatch, handsim.policies.check, "warm_up", call_real=False)  # (no engine compiled here)

    def stop(*args, **kwargs):
        raise InputError("stopped by the test")

    monkeypatch.setattr(handsim.policies.check, "check_policy", stop)
    result = run("check-policy", GREEDY_COPY, "my-greedy", "--deals", 3, "--jobs", 1)
    assert result.exit_code == 2 and result.stderr.splitlines(keepends=True) == [
        notice("the engine and its deal tracer for the policies of greedy_copy.py", "1 to 2 minutes",
               "once per version of the files"),
        "Error: stopped by the test (see 'handsim check-policy --help')\n"], result.output
    compiling_first(monkeypatch, handsim.games.hand.chart, "warm_up", call_real=False)
    monkeypatch.setattr(handsim.games.hand.chart, "measure", stop)
    result = run("chart", "--deals", 2, "--worlds", 2, "--lineup", "greedy,greedy", "--out", tmp_path / "c")
    assert result.exit_code == 2 and result.stderr.splitlines(keepends=True) == [
        notice("the chart's rollouts", "about a minute"), "Error: stopped by the test (see 'handsim chart --help')\n"], result.output


def test_commands_that_compile_nothing_say_nothing(tmp_path):
    traces = tmp_path / "deal.jsonl"
    traces.write_text(ok(run("show-deal", "--deal", 3, "--players", 2, "--policy", "greedy", "--json")).stdout)
    for args in (["meld", "5H 6H 7H"], ["rules"], ["policies"], ["score", "-"], ["check", traces]):
        result = CliRunner().invoke(cli, [str(a) for a in args], input='{"out": 1, "hand_finish": false, '
                                    '"hands": ["KS 7H 9D", ""], "opened": [false, true]}')
        ok(result)
        assert result.stderr == "", args


def _env(cache: Path) -> dict:
    env = dict(os.environ, HANDSIM_CACHE_DIR=str(cache), PYTHONPATH=str(ROOT))
    env.pop("HANDSIM_TRACEBACK", None)
    return env


@pytest.mark.parametrize("args, first", [
    (["arrange", "QH KH AH"], notice("the meld search", "about 20 seconds")),
    (["show-deal", "--players", "2", "--policy", "greedy"],
     notice(f"the deal tracer for {TIER1}", "1 to 2 minutes", "once for these players")),
], ids=["arrange", "show-deal"])
def test_ctrl_c_while_a_command_compiles_ends_it_with_130(tmp_path, args, first):
    """An empty kernel cache: the notice comes as numba starts; Ctrl-C then ends the command at once
    (the compilation runs in a helper thread), 'Interrupted.', exit 130, no traceback, no answer."""
    p = subprocess.Popen([sys.executable, "-m", "handsim", *args], env=_env(tmp_path / "cache"),
                         stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        line = p.stderr.readline()
        assert line == first, line
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=600)  # a guard against a hung child, not a measure
    finally:
        if p.poll() is None:
            p.kill()
    assert p.returncode == 130, (p.returncode, err)
    assert out == "" and err.strip() == "Interrupted.", (out, err)


@pytest.mark.slow
def test_the_real_commands_in_an_empty_cache_say_each_compilation_once_then_nothing(tmp_path):
    """Every compiling command, run twice in a fresh kernel cache: the first run says what it
    compiles (one line, the first on stderr), the second (loaded from the cache) nothing."""
    env = _env(tmp_path / "cache")
    commands = [
        (["arrange", "QH KH AH"], "Compiling the meld search "),
        (["show-deal", "--players", "2", "--policy", "greedy", "--deal", "3"], f"Compiling the deal tracer for {TIER1} "),
        (["simulate", "--policy", "greedy", "--players", "2", "--deals", "4", "--jobs", "1", "--no-progress",
          "--trace", "1", "--out", "{out}"], f"Compiling the simulation engine for {TIER1} "),
        (["show-deal", "--preset", "russian", "--players", "2", "--deal", "1"], "Compiling the Russian Hand deal tracer "),
        (["rearrange", "--table", "5H 6H 7H", "--hand", "8H 9H"], "Compiling the rearrangement search "),
        (["tournament", "--policy", "greedy", "--policy", "hold-hand", "--players", "2", "--deals", "4", "--jobs", "1",
          "--no-progress", "--out", "{out}"], None),  # the engine of the simulate above: nothing compiles
        (["check-policy", str(GREEDY_COPY), "my-greedy", "--deals", "4", "--jobs", "2"],
         "Compiling the engine and its deal tracer for the policies of greedy_copy.py "),
        (["chart", "--deals", "2", "--worlds", "2", "--lineup", "greedy,greedy", "--out", "{out}"],
         "Compiling the chart's rollouts "),
    ]
    for i, (args, first) in enumerate(commands):
        for again in (False, True):
            argv = [a.replace("{out}", str(tmp_path / f"out{i}{again}")) for a in args]
            p = subprocess.run([sys.executable, "-m", "handsim", *argv], env=env, capture_output=True, text=True,
                               timeout=3600)
            assert p.returncode == 0, (argv, p.stderr)
            said = [line for line in p.stderr.splitlines() if line.startswith("Compiling")]
            if first is None or again:
                assert said == [], (argv, p.stderr)
            else:  # (simulate's --trace: the tracer show-deal compiled for these players is loaded, not said)
                assert len(said) == 1 and said[0].startswith(first), (argv, p.stderr)
                assert p.stderr.startswith(said[0]), p.stderr
