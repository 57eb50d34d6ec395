"""Tournament and tuning checkpoints are checked whole (issue 23, cause 1's kind): every array that
another array determines is checked against it when ``handsim report`` or ``--resume`` reads the
checkpoint - a pair's score difference against the tables' score sums, the products of two pairs'
wins (symmetric, bounded by the wins), the cells of entries that never meet or sit (always 0), the
deals of every cell against the finished chunks, a tuning stage's paired differences against its
line-ups' sums.  A damaged checkpoint is one line naming the array, exit 2, and no output changes."""

import hashlib
import shutil
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from handsim.cli import cli

DEALS = 20
#: 3 players, pairs design: tables (0,0,1) (0,1,1) (0,0,2) (0,2,2) (1,1,2) (1,2,2) of 3 seatings each;
#: L = lcm(1, 2, 3) = 6 units per point
T_ARGS = ["tournament", "--policy", "greedy", "--policy", "random", "--policy", "hold-hand", "--players", "3"]
#: 4 candidates (the defaults, bail_turn 4, 5, 6) on the search deals, then the best and the defaults
U_ARGS = ["tune", "hold-hand", "--param", "bail_turn=4:6", "--against", "greedy", "--players", "2"]


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("tck")
    out = {}
    for kind, args, seed in (("tournament", T_ARGS, "3"), ("tune", U_ARGS, "0")):  # seed 0: bail_turn 4 is best
        d = root / kind
        r = CliRunner().invoke(cli, args + ["--deals", str(DEALS), "--chunk", "10", "--jobs", "1", "--seed", seed,
                                            "--out", str(d), "-q"])
        assert r.exit_code == 0, r.output
        out[kind] = d
    return out


def _digests(folder: Path) -> dict:
    return {p.relative_to(folder): hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.rglob("*"))
            if p.is_file()}


def _damage(path: Path, change) -> dict:
    """Apply ``change(state)`` to the checkpoint at ``path``; returns the original arrays."""
    with np.load(path) as z:
        state = {k: z[k] for k in z.files}
    original = {k: v.copy() for k, v in state.items()}
    change(state)
    np.savez(path, **state)
    return original


def _add(name, index, amount):
    def change(state):
        state[name][index] += amount
    return change


def _drop_last_chunk(per_chunk_rounds):
    """The checkpoint forgets its last finished chunk (and that chunk's rounds): its statistics
    still hold both chunks' deals."""
    def change(state):
        state["__done__"] = state["__done__"][:-1]
        state["__rounds__"] = state["__rounds__"] - per_chunk_rounds
    return change


# (run, checkpoint, damage, the refusal's reason worked out from the original arrays o)
CASES = [
    # entry 2 (hold-hand) has no seat at table 0 (greedy, greedy, random): its cells stay 0
    ("tournament", "checkpoint.npz", _add("table", (0, 2, 0), 1),
     lambda o: "'table' holds counts at [0, 2], for an entry that has no seat at that table (always 0)"),
    # the products of two pairs' wins, changed on one side of the diagonal only
    ("tournament", "checkpoint.npz", _add("ww", (0, 1), 1),
     lambda o: f"'ww' holds {o['ww'][0, 1] + 1} at [0, 1] but {o['ww'][0, 1]} at [1, 0]: a product of two "
               "pairs' wins is the same either way"),
    # pair (greedy, random)'s score difference raised by 2 (its squares' parity kept)
    ("tournament", "checkpoint.npz", _add("pair", (0, 1), 2),
     lambda o: f"'pair' counts {o['pair'][0, 1] + 2} points of the score difference (L x points per seat, over "
               f"the tables both sit at), other than the {o['pair'][0, 1]} of 'table'"),
    # greedy's score at table 0 (2 seats: 6 // 2 = 3 units a point) raised by 2: pair (greedy,
    # random)'s difference should then be 3 x 2 = 6 units more
    ("tournament", "checkpoint.npz", _add("table", (0, 0, 2), 2),
     lambda o: f"'pair' counts {o['pair'][0, 1]} points of the score difference (L x points per seat, over the "
               f"tables both sit at), other than the {o['pair'][0, 1] + 6} of 'table'"),
    # one of the two chunks forgotten (10 deals x 18 seatings = 180 rounds): the counters hold 20 deals
    ("tournament", "checkpoint.npz", _drop_last_chunk(180),
     lambda o: "its statistics count 20 deals in 'pair', other than the 10 of its 1 finished chunks ('__done__')"),
    # bail_turn=4's difference from the defaults (line-up 0) raised by 2 (its squares' parity kept)
    ("tune", "stages/search/checkpoint.npz", _add("lu", (1, 3), 2),
     lambda o: f"'lu' counts {o['lu'][1, 3] + 2} points of the difference from line-up 0 (its points less line-up "
               f"0's), other than the {o['lu'][1, 3]} of 'lu'"),
    # the defaults' own sum raised by 2: every other line-up's difference should then be 2 less
    ("tune", "stages/search/checkpoint.npz", _add("lu", (0, 1), 2),
     lambda o: f"'lu' counts {o['lu'][1, 3]} points of the difference from line-up 0 (its points less line-up "
               f"0's), other than the {o['lu'][1, 3] - 2} of 'lu'"),
    # the defaults' difference from themselves: 0, and so its squares
    ("tune", "stages/search/checkpoint.npz", _add("lu", (0, 4), 2),
     lambda o: "'lu' counts 2 squared points of line-up 0's difference from itself, other than the 0 of 'lu'"),
    ("tune", "stages/confirm/checkpoint.npz", _add("lu", (1, 3), -2),
     lambda o: f"'lu' counts {o['lu'][1, 3] - 2} points of the difference from line-up 0 (its points less line-up "
               f"0's), other than the {o['lu'][1, 3]} of 'lu'"),
    # the search's second chunk forgotten (10 deals x 4 candidates = 40 rounds)
    ("tune", "stages/search/checkpoint.npz", _drop_last_chunk(40),
     lambda o: "its statistics count 20 deals in 'lu', other than the 10 of its 1 finished chunks ('__done__')"),
]


@pytest.mark.parametrize("command", ["report", "resume"])
@pytest.mark.parametrize("kind, name, change, reason", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_a_damaged_checkpoint_is_one_line_naming_the_array(tmp_path, runs, command, kind, name, change, reason):
    d = tmp_path / "d"
    shutil.copytree(runs[kind], d)
    original = _damage(d / name, change)
    before = _digests(d)
    args = ["report", str(d), "-q"] if command == "report" else [kind, "--resume", str(d), "-q"]
    r = CliRunner().invoke(cli, args)
    assert r.exit_code == 2, r.output
    shown = "report" if command == "report" else kind
    assert r.output == (f"Error: {d / name} is not a usable handsim checkpoint: its statistics cannot be used: "
                        f"{reason(original)} (see 'handsim {shown} --help')\n"
                        if "__done__" not in reason(original) else
                        f"Error: {d / name} is not a usable handsim checkpoint: {reason(original)} "
                        f"(see 'handsim {shown} --help')\n"), r.output
    assert _digests(d) == before  # nothing rewritten


@pytest.mark.parametrize("kind", ["tournament", "tune"])
def test_the_checkpoints_as_written_report(tmp_path, runs, kind):
    d = tmp_path / "d"
    shutil.copytree(runs[kind], d)
    r = CliRunner().invoke(cli, ["report", str(d), "-q"])
    assert r.exit_code == 0, r.output


def test_an_all_tables_tournament_reads(tmp_path):
    """--tables all: tables of three entries at three seats (each seating a permutation of its table),
    and tables of one entry: the score difference of a pair sums over every table both sit at."""
    d = tmp_path / "all"
    r = CliRunner().invoke(cli, T_ARGS + ["--tables", "all", "--deals", "6", "--chunk", "3", "--jobs", "1", "--out",
                                          str(d), "-q"])
    assert r.exit_code == 0, r.output
    assert CliRunner().invoke(cli, ["report", str(d), "-q"]).exit_code == 0
    original = _damage(d / "checkpoint.npz", _add("pair", (2, 1), 2))  # pair (random, hold-hand)
    before = _digests(d)
    r = CliRunner().invoke(cli, ["report", str(d), "-q"])
    assert r.exit_code == 2 and f"'pair' counts {original['pair'][2, 1] + 2} points of the score difference" in r.output
    assert _digests(d) == before


# ------------------------------------------------------------------ an edited run.json (cause 1's kind)


def _set(path, value):
    def edit(j):
        *head, last = path.split(".")
        node = j
        for k in head:
            node = node[k]
        old = node[last]
        node[last] = value(old) if callable(value) else value
        return old
    return edit


# (run, field, new value): the report states the checkpoint's (or the checked spec's) value and
# warns naming the field and both values; run.json is written back as the run wrote it
EDITS = [
    ("tournament", "rounds_played", lambda v: v + 1), ("tournament", "seconds", 99.0),
    ("tournament", "rounds_per_s", 1.0), ("tournament", "deals", 41), ("tournament", "seed", 5),
    ("tournament", "players", 4), ("tournament", "rules.hand_score", -90), ("tournament", "games_per_deal", 3),
    ("tune", "rounds_played", lambda v: v + 1), ("tune", "seconds", 99.0), ("tune", "candidates", 99),
    ("tune", "best", "hold-hand:bail_turn=9"), ("tune", "confirm.diff", 123.0), ("tune", "figure", "grid"),
]


@pytest.fixture(scope="module")
def reported(runs, tmp_path_factory):
    """Each run's folder after an unedited report: what every edited one must give."""
    out = {}
    for kind, src in runs.items():
        d = tmp_path_factory.mktemp("ref") / kind
        shutil.copytree(src, d)
        assert CliRunner().invoke(cli, ["report", str(d), "-q"]).exit_code == 0
        out[kind] = d
    return out


@pytest.mark.parametrize("kind, field, value", EDITS, ids=[f"{k}-{f}" for k, f, _ in EDITS])
def test_an_edited_run_json_field_is_named_and_not_reported(tmp_path, reported, kind, field, value):
    import json

    d = tmp_path / "d"
    shutil.copytree(reported[kind], d)
    j = json.loads((d / "run.json").read_text())
    was = _set(field, value)(j)
    now = _set(field, lambda v: v)(j)
    (d / "run.json").write_text(json.dumps(j, indent=2))
    r = CliRunner().invoke(cli, ["report", str(d), "-q"])
    assert r.exit_code == 0, r.output
    source = "the checkpoint" if kind == "tournament" else "the stages' checkpoints"
    assert r.stderr == (f"Warning: {d / 'run.json'} says {field} {json.dumps(now)}, {source} {json.dumps(was)}: "
                        f"the report uses {source}\n")
    assert _digests(d) == _digests(reported[kind])  # every output, run.json too, as the run wrote it


@pytest.mark.parametrize("kind", ["tournament", "tune"])
def test_a_run_json_field_the_run_does_not_write_is_left_out(tmp_path, reported, kind):
    import json

    d = tmp_path / "d"
    shutil.copytree(reported[kind], d)
    j = json.loads((d / "run.json").read_text())
    j["zzz"] = "added"
    (d / "run.json").write_text(json.dumps(j, indent=2))
    r = CliRunner().invoke(cli, ["report", str(d), "-q"])
    assert r.exit_code == 0, r.output
    what = "a tournament" if kind == "tournament" else "a tuning run"
    assert r.stderr == f"Warning: {d / 'run.json'} holds field {what} does not write, left out of the report: 'zzz'\n"
    assert _digests(d) == _digests(reported[kind])
