"""A checkpoint whose arrays have the right names and shapes but impossible values (a float array,
a negative count, a value of 2**53 or more, totals that disagree) is refused as damaged when it is
loaded: one line naming the file and the array, exit 2, for classic studies, Russian Hand studies
and tournaments alike (it was read and reported, or failed deep in the statistics)."""

from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from handsim.cli import cli
from handsim.errors import StudyError
from handsim.simulate import CHECKPOINT, read_checkpoint
from handsim.tournament.accumulate import TournamentCounters

DEALS = 20


@pytest.fixture(scope="module")
def studies(tmp_path_factory):
    root = tmp_path_factory.mktemp("ckvalues")
    runs = {
        "classic": ["simulate", "--lineup", "greedy,greedy", "--deals", str(DEALS), "--chunk", "10"],
        "russian": ["simulate", "--preset", "russian", "--deals", str(DEALS), "--chunk", "10"],
        "tournament": ["tournament", "--policy", "greedy", "--policy", "hold-hand", "--deals", str(DEALS)],
    }
    out = {}
    for kind, args in runs.items():
        d = root / kind
        r = CliRunner().invoke(cli, args + ["--jobs", "1", "--seed", "3", "--out", str(d), "-q"])
        assert r.exit_code == 0, r.output
        out[kind] = d
    return out


def _damaged(src: Path, dst: Path, name: str, change) -> Path:
    z = dict(np.load(src / CHECKPOINT))
    z[name] = change(z[name].copy())
    dst.mkdir()
    np.savez(dst / CHECKPOINT, **z)
    return dst / CHECKPOINT


def _set(index, value):
    def change(a):
        a[index] = value
        return a
    return change


def _first(value):
    def change(a):
        a.flat[0] = value
        return a
    return change


def _add(index, amount):
    def change(a):
        a[index] += amount
        return a
    return change


def _float(a):
    return a.astype(np.float64)


# (kind, array, damage, the message's end); index 0 of the last axis is the deals (games) count of
# every array named here, 20 in the first row; the cases below were worked out from the layouts in
# handsim/stats.py, handsim/games/russian/stats.py and handsim/tournament/accumulate.py
CASES = [
    ("classic", "pool", _first(-7), "'pool' holds a negative count (-7)"),
    ("classic", "seat", _float, "'seat' holds float64 values, not the integers handsim writes"),
    ("classic", "joker_seat", _first(2**62),
     "'joker_seat' holds a value out of range (4611686018427387904; counters stay below 2**53 in size)"),
    ("classic", "joker_seat", _first(-5), "'joker_seat' holds a negative count (-5)"),
    ("classic", "meta", _float, "'meta' holds float64 values, not the integers handsim writes"),
    # one more round in the round-length histogram than the 20 deals played
    ("classic", "turns_hist", _add((0, 0, 5), 1), "'turns_hist' counts 21 rounds, other than the 20 of 'cl'"),
    # a score sum (column 1) of 10**12 with its sum of squares (column 2) unchanged and smaller
    ("classic", "pool", _set((0, 0, 0, 1), 10**12), "'pool' holds a sum (1000000000000) larger than its sum"),
    # issue 23's instance: 3 more deals in the first policy's count (summary.csv said 23 deals)
    ("classic", "pool", _add((0, 0, 0, 0), 3), "'pool' counts 23 rounds, other than the 20 of 'cl'"),
    ("classic", "__rounds__", _add(0, 3), "'__rounds__' counts 23 rounds, other than the 20 of its 2 finished chunks"),
    # one finished chunk forgotten: the statistics hold the deals of two
    ("classic", "__done__", lambda a: a[:1], "'__rounds__' counts 20 rounds, other than the 10 of its 1 finished"),
    ("russian", "pool", _add((0, 0, 0, 0), 3), "'pool' counts 23 games, other than the 20 of 'cl'"),
    ("russian", "pool", _first(-7), "'pool' holds a negative count (-7)"),
    ("russian", "stock_hist", _float, "'stock_hist' holds float64 values"),
    ("russian", "cl", _first(2**62), "'cl' holds a value out of range (4611686018427387904"),
    # seat 0 of the first line-up has won 21 of its 20 games
    ("russian", "seat", _set((0, 0, 0, 0, 1), 21), "'seat' counts 21 wins, more than the 20 of 'seat'"),
    ("tournament", "pair", _first(-7), "'pair' holds a negative count (-7)"),
    ("tournament", "table", _float, "'table' holds float64 values"),
    ("tournament", "ww", _first(2**62), "'ww' holds a value out of range (4611686018427387904"),
    # one more deal than the 20 played: ahead + behind + tied no longer add up to it
    ("tournament", "pair", _add((0, 0), 1), "'pair' counts 20 deals ahead or tied, other than the 21 of 'pair'"),
]


@pytest.mark.parametrize("kind, name, change, message", CASES,
                         ids=[f"{c[0]}-{c[1]}-{i}" for i, c in enumerate(CASES)])
def test_impossible_values_are_refused_when_loaded(tmp_path, studies, kind, name, change, message):
    path = _damaged(studies[kind], tmp_path / "d", name, change)
    with pytest.raises(StudyError) as e:
        read_checkpoint(path, TournamentCounters if kind == "tournament" else None)
    text = str(e.value)
    assert text.startswith(f"{path} is not a usable handsim checkpoint: ")
    assert message in text, text
    assert "\n" not in text


def test_the_files_as_written_load(studies):
    assert read_checkpoint(studies["classic"] / CHECKPOINT).accumulator.deals().min() == DEALS
    assert read_checkpoint(studies["russian"] / CHECKPOINT).rounds == DEALS
    assert read_checkpoint(studies["tournament"] / CHECKPOINT, TournamentCounters).accumulator._pair[0, 0] == DEALS


@pytest.mark.parametrize("kind, command", [("classic", "report"), ("russian", "report"), ("tournament", "resume")])
def test_the_commands_exit_2_with_one_line(tmp_path, studies, kind, command):
    d = tmp_path / "d"
    _damaged(studies[kind], d, "pool" if kind != "tournament" else "pair", _first(-7))
    (d / "run.json").write_bytes((studies[kind] / "run.json").read_bytes())
    args = ["report", str(d), "-q"] if command == "report" else ["tournament", "--resume", str(d), "-q"]
    r = CliRunner().invoke(cli, args)
    assert r.exit_code == 2, r.output
    lines = r.output.strip().splitlines()
    assert len(lines) == 1 and "holds a negative count (-7)" in lines[0] and CHECKPOINT in lines[0], r.output


def test_statistics_of_other_deals_than_the_finished_chunks_are_refused(tmp_path, studies):
    """Every count consistent with the others, but not with the chunks the checkpoint says are
    finished (one forgotten, the rounds count changed to match): the deals of the statistics decide."""
    def change(z):
        z["__done__"] = z["__done__"][:1]
        z["__rounds__"] = z["__rounds__"] // 2
        return z

    src = dict(np.load(studies["classic"] / CHECKPOINT))
    (tmp_path / "d").mkdir()
    np.savez(tmp_path / "d" / CHECKPOINT, **change(src))
    with pytest.raises(StudyError, match=r"its statistics count 20 rounds of configuration 1, line-up 1 \('cl'\), "
                                         r"other than the 10 of its 1 finished chunks"):
        read_checkpoint(tmp_path / "d" / CHECKPOINT)


def test_resume_of_an_interrupted_study_refuses_a_damaged_count(tmp_path, studies):
    """No run.json (the run stopped before its outputs): --resume reads the checkpoint and refuses it."""
    d = tmp_path / "d"
    _damaged(studies["classic"], d, "pool", _add((0, 0, 0, 0), 3))
    r = CliRunner().invoke(cli, ["simulate", "--resume", str(d), "--jobs", "1", "-q"])
    assert r.exit_code == 2, r.output
    lines = r.output.strip().splitlines()
    assert len(lines) == 1 and str(d / CHECKPOINT) in lines[0], r.output
    assert "'pool' counts 23 rounds, other than the 20 of 'cl'" in lines[0], r.output
    assert sorted(p.name for p in d.iterdir()) == [CHECKPOINT]  # nothing written
