"""`handsim tournament` and `handsim tune` on the command line: outputs, one-line errors, resume,
best.toml as --policy input, --help coverage."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from handsim.cli import cli

ROOT = Path(__file__).resolve().parents[1]
FAST = ["--jobs", "1", "--no-progress"]


@pytest.fixture
def runner():
    return CliRunner()


def run(runner, *args):
    return runner.invoke(cli, [str(a) for a in args], catch_exceptions=True)


def assert_ok(result):
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert result.exit_code == 0, result.output


def assert_usage_error(result, *fragments):
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("Error: "), result.stderr
    for frag in fragments:
        assert frag in lines[0], (frag, lines[0])


@pytest.fixture(scope="module")
def tournament_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("t") / "t1"
    result = CliRunner().invoke(cli, ["tournament", "--policy", "greedy", "--policy", "random", "--players", "3",
                                      "--deals", "60", "--chunk", "20", "--seed", "4", "--out", str(out), *FAST])
    assert_ok(result)
    return out, result


def test_tournament_writes_its_outputs_and_prints_the_ratings(tournament_dir):
    out, result = tournament_dir
    for name in ("ratings.csv", "crosstable.csv", "tables.csv", "ratings.png", "crosstable.png", "report.md",
                 "report.html", "run.json", "checkpoint.npz"):
        assert (out / name).exists(), name
    assert "rank" in result.output and "greedy" in result.output and "Results:" in result.output
    # under each table, its units and which quantity the 95% CI is of (as simulate prints)
    lines = result.output.splitlines()
    ratings_end = next(i for i, ln in enumerate(lines) if ln.lstrip().startswith("2  random"))
    assert lines[ratings_end + 1] == (
        "Units: rating: Elo scale, the policies' mean is 0 (95% CI: of the rating, relative to that mean); finished "
        "ahead: share of its comparisons at the table (pairs of seats held by two policies) it finished ahead in, ties "
        "counted half.")
    cross_end = next(i for i, ln in enumerate(lines) if ln.startswith("greedy  random"))
    assert lines[cross_end + 1] == (
        "Units: score diff: the policy's mean score minus the opponent's, points per player-round (below 0: the policy "
        "scores less; 95% CI: of score diff, the deal as unit); deals ahead / tied / behind: shares of deals whose "
        "total over the seatings where both sat was lower / the same / higher for the policy.")
    # ahead, tied and behind together (the share ahead alone hid how many deals were tied)
    assert lines[cross_end - 2].rstrip().endswith("deals ahead / tied / behind"), lines[cross_end - 2]
    x = pd.read_csv(out / "crosstable.csv").set_index(["policy", "opponent"]).loc[("greedy", "random")]
    shares = f"{100 * x['p_deal_ahead']:.1f}% / {100 * x['p_deal_tied']:.1f}% / {100 * x['p_deal_behind']:.1f}%"
    assert lines[cross_end].endswith(shares), (lines[cross_end], shares)
    assert abs(x["p_deal_ahead"] + x["p_deal_tied"] + x["p_deal_behind"] - 1) < 1e-12
    info = json.loads((out / "run.json").read_text())
    assert info["kind"] == "tournament" and info["tournament"]["entries"] == ["greedy", "random"]
    assert info["games_per_deal"] == 6 and info["rounds_played"] == 360
    assert "spec" not in info  # not a study that 'simulate --resume' could take
    r = pd.read_csv(out / "ratings.csv")
    assert r["policy"].tolist() == ["greedy", "random"]


def test_simulate_resume_and_report_know_a_tournament_folder(runner, tournament_dir):
    out, _ = tournament_dir
    assert_usage_error(run(runner, "simulate", "--resume", out), "no study")
    before = (out / "crosstable.csv").read_bytes()
    report = (out / "report.md").read_bytes()
    for f in ("crosstable.csv", "report.md", "report.html", "ratings.png"):
        (out / f).unlink()
    result = run(runner, "report", out, "--format", "html")
    assert_ok(result)
    assert result.output.startswith(f"Report: {out / 'report.html'} (60 deals)")
    assert (out / "report.html").exists() and not (out / "report.md").exists() and not (out / "ratings.png").exists()
    assert_ok(run(runner, "report", out, "--format", "md", "-q"))
    assert (out / "crosstable.csv").read_bytes() == before and (out / "report.md").read_bytes() == report
    assert (out / "ratings.png").exists()


def test_existing_out_is_refused_and_force_replaces_it(runner, tournament_dir, tmp_path):
    out, _ = tournament_dir
    args = ["tournament", "--policy", "greedy", "--policy", "random", "--deals", "5", *FAST, "-q"]
    assert_usage_error(run(runner, *args, "--out", out), "already exists")
    other = tmp_path / "notes"
    other.mkdir()
    (other / "mine.txt").write_text("keep")
    assert_usage_error(run(runner, *args, "--out", other, "--force"), "replaces only")
    assert (other / "mine.txt").read_text() == "keep"


@pytest.mark.parametrize("args,fragments", [
    (["--policy", "greedy"], ["at least two policies"]),
    (["--policy", "greedy", "--policy", "nope"], ["unknown policy 'nope'"]),
    (["--policy", "greedy", "--policy", "random", "--players", "2v2", "--tables", "all"], ["'pairs' tables only"]),
    (["--policy", "greedy", "--policy", "random", "--set", "jokers=99"], ["jokers"]),
    (["--policy", "greedy", "--policy", "@missing.toml"], ["missing.toml", "No such file"]),
    (["--policy", "greedy", "--policy", "random", "--deals", "0"], ["out of range"]),
    # was: a whole tournament at 71, the --set silently dropped (breaker J07)
    (["--policy", "greedy", "--policy", "random", "--threshold", "71", "--set", "opening_threshold=91"],
     ["--threshold 71 contradicts --set opening_threshold=91"]),
])
def test_tournament_input_errors_are_one_line(runner, tmp_path, args, fragments):
    assert_usage_error(run(runner, "tournament", *args, "--out", tmp_path / "x", *FAST), *fragments)


def test_resume_finishes_an_interrupted_tournament_byte_identical(runner, tmp_path):
    """Interrupt a tournament after two of its chunks (as Ctrl-C would), then 'handsim tournament --resume'."""
    from handsim.simulate import run_study
    from handsim.tournament import make_tournament
    from handsim.tournament.core import _counters
    from handsim.tournament.accumulate import TournamentCounters

    args = ["--policy", "greedy", "--policy", "hold-hand", "--players", "2", "--deals", "60", "--chunk", "20",
            "--seed", "9", *FAST, "-q"]
    ref = tmp_path / "ref"
    assert_ok(run(runner, "tournament", *args, "--out", ref))
    part = tmp_path / "part"
    assert_ok(run(runner, "tournament", *args, "--out", part))  # the same run.json as an interrupted run has
    for name in ("crosstable.csv", "ratings.csv", "tables.csv", "checkpoint.npz", "report.md"):
        (part / name).unlink()
    spec = make_tournament(["greedy", "hold-hand"], players=2, deals=60, seed=9, chunk=20)

    class Stop(TournamentCounters):
        def add_chunk(self, blocks):
            if int(blocks[(0, 0)].deal[0]) >= 40:
                raise KeyboardInterrupt
            super().add_chunk(blocks)

    with pytest.raises(KeyboardInterrupt):
        run_study(spec.study(), jobs=1, executor="inline", out=part, accumulator=Stop(**_counters(spec)._meta_args()))
    with np.load(part / "checkpoint.npz") as z:
        assert len(z["__done__"]) == 2
    assert_ok(run(runner, "report", part))  # the partial tournament's report
    assert "Partial results" in (part / "report.md").read_text(encoding="utf-8")
    assert pd.read_csv(part / "ratings.csv")["deals"].tolist() == [40, 40]
    assert_usage_error(run(runner, "tournament", "--resume", part, "--deals", "5"), "drop --deals")
    started = json.loads((part / "run.json").read_text())["command"]
    result = run(runner, "tournament", "--resume", part, "--no-progress")  # 1 job as recorded (was: all cores)
    assert_ok(result)
    assert json.loads((part / "run.json").read_text())["jobs"] == 1
    for name in ("crosstable.csv", "ratings.csv", "tables.csv"):
        assert (part / name).read_bytes() == (ref / name).read_bytes(), name
    # the speed counts the rounds played now: the last 20 deals x 2 seatings (A B, B A), not the
    # 40 x 2 loaded from the checkpoint
    [speed] = [line for line in result.output.splitlines() if line.startswith("Speed: ")]
    assert re.fullmatch(r"Speed: [\d,.]+ rounds/s \(40 rounds played now in [\d.]+ s; 80 rounds loaded from the "
                        r"checkpoint\), 1 job", speed), speed
    info = json.loads((part / "run.json").read_text())
    assert info["command"] == started == f"handsim tournament {' '.join(map(str, args))} --out {part}"
    assert [r["command"] for r in info["resumed"]] == [f"handsim tournament --resume {part} --no-progress"]
    assert info["rounds_played"] == 120


def test_units_lines_of_2v2_name_the_team_round():
    """2 v 2 tournaments and tuning runs score teams: their units lines say points per team-round."""
    from handsim.cli.tournament import crosstable_units, tune_units

    assert "the opponent's, points per team-round (below 0" in crosstable_units(True)
    assert tune_units(True).startswith("Units: mean score: the tuned team's (both partners summed) points per "
                                       "team-round, lower is better")
    assert "points per player-round" in tune_units(False) and "team" not in tune_units(False)


# ------------------------------------------------------------------------------ tune


@pytest.fixture(scope="module")
def tune_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("u") / "u1"
    result = CliRunner().invoke(cli, ["tune", "hold-hand:bail_opponent_cards=0", "--param", "bail_turn=1:1000:999",
                                      "--against", "greedy,greedy", "--deals", "60", "--chunk", "30", "--seed", "2",
                                      "--out", str(out), *FAST])
    assert_ok(result)
    return out, result


def test_tune_refuses_a_threshold_that_contradicts_set(runner, tmp_path):
    assert_usage_error(run(runner, "tune", "hold-hand", "--param", "bail_turn=1:2", "--threshold", 71, "--set",
                           "opening_threshold=91", "--deals", 1, "--out", tmp_path / "t"),
                       "--threshold 71 contradicts --set opening_threshold=91")


def test_tune_writes_best_toml_that_simulate_and_tournament_read(runner, tune_dir, tmp_path):
    out, result = tune_dir
    for name in ("tune.csv", "best.toml", "tune.png", "confirm.png", "report.md", "report.html", "run.json"):
        assert (out / name).exists(), name
    assert "Confirmation on 60 fresh deals (seed 3)" in result.output
    # the header names the rules as the rest of the tool does; the edge-of-range note, as the report's
    assert "against greedy,greedy, rules classic, 60 deals, seed 2" in result.output.splitlines()[0]
    assert ("Note: The best candidate lies on the edge of the searched range: bail_turn = 1 is at the low end of "
            "its range (1..1000 step 999), the lowest value bail_turn allows (allowed: 1..1000). bail_turn is at the "
            "allowed limit: the range cannot be widened on that side.") in result.output.splitlines()
    lines = result.output.splitlines()
    last_row = max(i for i, ln in enumerate(lines) if ln.lstrip().startswith(("1  hold-hand", "2  hold-hand",
                                                                              "3  hold-hand")))
    assert lines[last_row + 1] == (
        "Units: mean score: the tuned player's points per player-round, lower is better (the 95% CI after it: of mean "
        "score); vs default: mean score minus the defaults' on the same deals, in the same unit (the 95% CI after "
        "it: of vs default, paired over the same deals).")
    assert re.search(r"Confirmation on 60 fresh deals \(seed 3\): .* = -?[0-9.]+ points per player-round, 95% CI",
                     result.output)
    assert "report.html" in result.output.split("Results:", 1)[1]
    best = out / "best.toml"
    assert "bail_turn = 1\n" in best.read_text()
    r = run(runner, "simulate", "--lineup", f"@{best},greedy,greedy", "--deals", "10", "--out", tmp_path / "s",
            *FAST, "-q")
    assert_ok(r)
    summary = pd.read_csv(tmp_path / "s" / "summary.csv")
    assert "hold-hand:bail_turn=1,bail_opponent_cards=0" in set(summary["policy"])
    r = run(runner, "tournament", "--policy", f"@{best}", "--policy", "greedy", "--players", "2", "--deals", "10",
            "--out", tmp_path / "t", *FAST, "-q")
    assert_ok(r)
    assert "hold-hand:bail_turn=1,bail_opponent_cards=0" in set(pd.read_csv(tmp_path / "t" / "ratings.csv")["policy"])
    r = run(runner, "show-deal", "--lineup", f"@{best},greedy,greedy", "--deal", "1", "--json")
    assert_ok(r)


def test_tune_resume_replays_finished_stages(runner, tune_dir):
    out, _ = tune_dir
    before = (out / "tune.csv").read_bytes()
    started = json.loads((out / "run.json").read_text())
    (out / "tune.csv").unlink()
    result = run(runner, "tune", "--resume", out, *FAST)
    assert_ok(result)
    assert (out / "tune.csv").read_bytes() == before
    # every stage was loaded from its checkpoint: nothing played now (the speed counted them as played
    # in the moment the resume took). Rounds: the search's 3 candidates (the defaults, bail_turn 1 and
    # 1000; each one line-up) x 60 deals + the confirmation's 2 x 60 deals
    assert started["rounds_played"] == 3 * 60 + 2 * 60 == 300
    assert ("Speed: no rounds played now (all 300 rounds loaded from the checkpoints), 1 job"
            in result.output.splitlines())
    info = json.loads((out / "run.json").read_text())
    assert info["command"] == started["command"] and info["command"].startswith("handsim tune hold-hand:")
    assert [r["command"] for r in info["resumed"]] == [f"handsim tune --resume {out} --jobs 1 --no-progress"]
    assert info["rounds_played"] == 300 and info["seconds"] == pytest.approx(started["seconds"], abs=0.5)
    assert "**Resumed:** 1 time: `handsim tune --resume" in (out / "report.md").read_text(encoding="utf-8")
    assert_usage_error(run(runner, "tune", "--resume", out, "--param", "bail_turn=1:3"), "drop --param")


def test_a_tuned_policy_used_under_other_rules_says_so(runner, tmp_path):
    """best.toml records the rules and players it was tuned for; a run under others prints one note
    (stderr) naming the file and both, and plays it anyway; a run that matches says nothing."""
    from handsim.games.hand.rules import Rules
    from handsim.tournament.best import tuned_notes

    best = tmp_path / "best.toml"
    best.write_text('[policy]\nname = "hold-hand"\nbail_turn = 1\n\n[tuned]\nplayers = 4\n'
                    'rules = "classic + opening_threshold=71"\n')
    at71 = Rules.preset("classic", opening_threshold=71)
    assert tuned_notes([f"@{best}"], [at71], 4) == []
    assert tuned_notes([f"@{best},greedy"], [Rules.preset("classic")], 3) == [
        f"{best} was tuned under classic + opening_threshold=71, this run plays classic; for 4 players, this run has 3: "
        "its parameters were chosen for another game"]
    assert tuned_notes(["greedy", "hold-hand"], [Rules.preset("classic")], 3) == []  # no file, nothing to say
    assert tuned_notes([f"@{best}"], [Rules.preset("classic"), at71], 4) == [  # a study of both thresholds
        f"{best} was tuned under classic + opening_threshold=71, this run plays classic as well: its parameters "
        "were chosen for another game"]
    fielded = tmp_path / "fielded.toml"
    fielded.write_text('[policy]\nname = "hold-hand"\n\n[tuned]\nplayers = 4\nrules = "classic"\n'
                       'against = "greedy,greedy,greedy"\n')
    classic = [Rules.preset("classic")]
    assert tuned_notes([f"greedy,@{fielded},greedy,greedy"], classic, 4) == []  # the same field, any seat
    assert tuned_notes([f"@{fielded}"], classic, 4) == []  # alone: a tournament pairs it with the others
    assert tuned_notes([f"@{fielded},card-reader,greedy,card-reader:joker_play=2"], classic, 4) == [
        f"{fielded} was tuned against greedy,greedy,greedy, this run plays it against "
        "card-reader,greedy,card-reader:joker_play=2: its parameters were chosen for another game"]
    other = tmp_path / "other.toml"
    other.write_text('[policy]\nname = "greedy"\n\n[tuned]\nplayers = "four"\nrules = 71\n')
    assert tuned_notes([f"@{other}"], [Rules.preset("classic")], 3) == []  # what it cannot read, it does not guess
    result = run(runner, "simulate", "--policy", f"@{best}", "--deals", "4", "--out", tmp_path / "s", *FAST)
    assert_ok(result)
    notes = [line for line in result.stderr.splitlines() if line.startswith("Note: ")]
    assert notes == [f"Note: {best} was tuned under classic + opening_threshold=71, this run plays classic: its "
                     "parameters were chosen for another game"]
    result = run(runner, "simulate", "--policy", f"@{best}", "--threshold", "71", "--deals", "4", "--out",
                 tmp_path / "t", *FAST)
    assert_ok(result)
    assert "Note:" not in result.stderr
    result = run(runner, "show-deal", "--lineup", f"greedy,@{best}", "--deal", "1", "--json")
    assert_ok(result)
    assert "tuned under classic + opening_threshold=71" in result.stderr and "for 4 players, this run has 2" in result.stderr
    json.loads(result.stdout)  # stdout is still the trace alone


def _edited_copy(folder: Path, out: Path, kind: str, edit) -> Path:
    """A copy of a tournament or tuning folder whose run.json's saved spec (``kind``) ``edit`` changed."""
    import shutil

    shutil.copytree(folder, out)
    info = json.loads((out / "run.json").read_text())
    edit(info[kind])
    (out / "run.json").write_text(json.dumps(info))
    return out


@pytest.mark.parametrize("edit, fragments", [
    (lambda t: t["params"][0].__setitem__(1, "four"), ["the saved tuning run's 'params' item 1 must be [name, low, high, "
                                                       "step]", '"four"']),
    (lambda t: t.pop("deals"), ["the saved tuning run has no 'deals' field"]),
    (lambda t: t.__setitem__("params", 3), ["the saved tuning run's 'params' must be a non-empty array", "not the "
                                                                                                        "number 3"]),
    (lambda t: t.__setitem__("trials", "64"), ["the saved tuning run's 'trials' must be an integer, not the string "
                                               '"64"']),
    (lambda t: t.__setitem__("confirm_seed", None), ["'confirm_seed' must be an integer, not null"]),
    (lambda t: t["rules"].__setitem__("hand_size", "14"), ["the saved tuning run's rule 'hand_size' must be an integer"]),
], ids=["non-numeric-param", "missing-field", "wrong-type", "trials-str", "seed-null", "rule-str"])
def test_tune_resume_of_a_damaged_run_json_is_one_line(runner, tune_dir, tmp_path, edit, fragments):
    """A hand-edited run.json: one line naming the folder (was 'internal error: ValueError', exit 1)."""
    out = _edited_copy(tune_dir[0], tmp_path / "u", "tune", edit)
    assert_usage_error(run(runner, "tune", "--resume", out, *FAST, "-q"), "cannot resume the tuning run", str(out),
                       "damaged or incomplete", *fragments)


@pytest.mark.parametrize("edit, fragments", [
    (lambda t: t.__setitem__("deals", "x"), ["the saved tournament's 'deals' must be an integer, not the string \"x\""]),
    (lambda t: t.pop("deals"), ["the saved tournament has no 'deals' field"]),
    (lambda t: t.__setitem__("entries", "greedy"), ["'entries' must be a non-empty array of policy strings"]),
    (lambda t: t.__setitem__("players", "three"), ["'players' must be an integer or \"2v2\", not the string"]),
    (lambda t: t.__setitem__("seed", 1.5), ["'seed' must be an integer, not the number 1.5"]),
    (lambda t: t["rules"].__setitem__("jokers", "2"), ["rule 'jokers' must be an integer (an integer from 0 to 8)"]),
], ids=["deals-str", "no-deals", "entries-str", "players-str", "seed-float", "rule-str"])
def test_tournament_resume_of_a_hand_edited_run_json_names_the_field(runner, tournament_dir, tmp_path, edit, fragments):
    """Was 'TypeError: ...' or 'no field ...' without the spec's name: one line naming the field, exit 2."""
    out = _edited_copy(tournament_dir[0], tmp_path / "t", "tournament", edit)
    assert_usage_error(run(runner, "tournament", "--resume", out, *FAST, "-q"), "cannot resume the tournament",
                       str(out), *fragments)
    assert_usage_error(run(runner, "report", out), "cannot read the tournament", *fragments)


def test_report_on_the_stages_folder_points_to_the_tuning_run(runner, tune_dir):
    out, _ = tune_dir
    assert_usage_error(run(runner, "report", out / "stages"), "holds the stages of a tuning run",
                       f"handsim report {out.resolve()}")
    # a stage folder itself (it holds a checkpoint): was 'unsupported state format 1 ... saved by another version'
    for stage in ("search", "confirm"):
        assert_usage_error(run(runner, "report", out / "stages" / stage),
                           f"{out / 'stages' / stage} is a stage of the tuning run in {out.resolve()}",
                           f"handsim report {out.resolve()}")


def test_resume_of_the_wrong_kind_of_folder_says_what_it_holds(runner, tune_dir, tournament_dir):
    assert_usage_error(run(runner, "tune", "--resume", tournament_dir[0], *FAST),
                       f"{tournament_dir[0]} holds no tuning run (run.json of handsim tune): its run.json is of a "
                       "tournament")
    assert_usage_error(run(runner, "tournament", "--resume", tune_dir[0], *FAST),
                       f"{tune_dir[0]} holds no tournament (run.json of handsim tournament): its run.json is of a "
                       "tuning run")


def test_tournament_labels_that_do_not_match_the_entries_are_refused(runner, tournament_dir, tmp_path):
    """The labels name the entries in order: permuted in run.json they credited one policy's results to
    another (report and resume exited 0). Refused, naming 'labels'; without 'labels' they are derived."""
    src = tournament_dir[0]
    ratings = (src / "ratings.csv").read_bytes()
    out = _edited_copy(src, tmp_path / "t", "tournament", lambda t: t.__setitem__("labels", ["random", "greedy"]))
    frag = ["the saved tournament's 'labels' [\"random\", \"greedy\"] do not match its 'entries' (labels "
            "[\"greedy\", \"random\"])"]
    assert_usage_error(run(runner, "report", out, "-q"), "cannot read the tournament", *frag)
    assert_usage_error(run(runner, "tournament", "--resume", out, *FAST, "-q"), "cannot resume the tournament", *frag)
    assert (out / "ratings.csv").read_bytes() == ratings
    bar = _edited_copy(src, tmp_path / "b", "tournament", lambda t: t.__setitem__("labels", ["greedy", "a|b"]))
    assert_usage_error(run(runner, "report", bar, "-q"), "'labels' [\"greedy\", \"a|b\"] do not match")
    gone = _edited_copy(src, tmp_path / "g", "tournament", lambda t: t.pop("labels"))
    assert_ok(run(runner, "report", gone, "-q"))
    assert (gone / "ratings.csv").read_bytes() == ratings


@pytest.mark.parametrize("field, value, shown", [
    ("confirm_deals", 7, "'confirm_deals' 7 but stage confirm was played with 60"),
    ("confirm_seed", 9, "'confirm_seed' 9 but stage confirm was played with 3"),
    ("strategy", "tpe", "'strategy' \"tpe\" but stage confirm was played with \"grid\""),
    ("against", ["greedy", "random"], "'against' [\"greedy\", \"random\"] but stage confirm was played with "
                                      "[\"greedy\", \"greedy\"]"),
    ("seed", 5, "'seed' 5 but stage confirm was played with 2"),
])
def test_tune_resume_and_report_refuse_a_run_json_edited_against_its_stages(runner, tune_dir, tmp_path, field, value,
                                                                             shown):
    """Each of these changed what a resume plays or what the report states (a confirmation 'on 7 fresh deals'
    of 60 played): refused before anything is played or written, naming the field."""
    src = tune_dir[0]
    out = _edited_copy(src, tmp_path / "u", "tune", lambda t: t.__setitem__(field, value))
    before = {f: (out / f).read_bytes() for f in ("tune.csv", "report.md", "best.toml")}
    for args, help_of in ((["report", out, "-q"], "report"), (["tune", "--resume", out, *FAST, "-q"], "tune")):
        assert_usage_error(run(runner, *args), f"{out}/run.json's tuning run has {shown} "
                           f"({out}/stages/confirm/checkpoint.npz): restore run.json's value, or run the tuning again")
    assert {f: (out / f).read_bytes() for f in before} == before
    assert sorted(p.name for p in (out / "stages").iterdir()) == ["confirm", "search"]


def test_tune_confirm_deals_0_in_run_json_is_refused(runner, tune_dir, tmp_path):
    """Was accepted (0 meant 'the search's deals'): the report said 'confirmed on 0 fresh deals' of 60."""
    out = _edited_copy(tune_dir[0], tmp_path / "u", "tune", lambda t: t.__setitem__("confirm_deals", 0))
    assert_usage_error(run(runner, "report", out, "-q"), "cannot read the tuning run", "invalid confirm_deals 0: "
                       "allowed 1..10^12")
    assert_usage_error(run(runner, "tune", "--resume", out, *FAST, "-q"), "invalid confirm_deals 0: allowed 1..10^12")


def test_an_interrupted_tune_keeps_the_confirmation_it_was_started_with(runner, tune_dir, tmp_path):
    """The search played, the confirmation not yet (its stage removed): only the search's checkpoint records
    confirm_deals and confirm_seed; an edit of either is refused, and an unedited resume plays the recorded ones."""
    import shutil

    src = tune_dir[0]
    for field, value, was in (("confirm_deals", 7, 60), ("confirm_seed", 9, 3)):
        out = _edited_copy(src, tmp_path / field, "tune", lambda t: t.__setitem__(field, value))
        shutil.rmtree(out / "stages" / "confirm")
        assert_usage_error(run(runner, "tune", "--resume", out, *FAST, "-q"),
                           f"has '{field}' {value} but stage search was played with {was} "
                           f"({out}/stages/search/checkpoint.npz)")
        assert not (out / "stages" / "confirm").exists()
    out = tmp_path / "plain"
    shutil.copytree(src, out)
    shutil.rmtree(out / "stages" / "confirm")
    assert_ok(run(runner, "tune", "--resume", out, *FAST, "-q"))
    assert (out / "tune.csv").read_bytes() == (src / "tune.csv").read_bytes()
    assert json.loads((out / "run.json").read_text())["confirm"] == json.loads((src / "run.json").read_text())["confirm"]


def test_a_tuning_run_saved_before_the_stages_kept_their_spec_is_still_checked(runner, tmp_path):
    """results/ holds tuning runs whose stage checkpoints predate the record: they report as before
    (byte-identical tables), and an edit is checked on what the stages show (their seeds and deals, the
    stage names)."""
    import shutil

    src = ROOT / "results" / "hold-hand-bailout" / "vs-greedy" / "tune-51"
    out = tmp_path / "r"
    shutil.copytree(src, out)
    assert_ok(run(runner, "report", out, "-q"))
    for name in ("tune.csv", "best.toml"):
        assert (out / name).read_bytes() == (src / name).read_bytes(), name
    for field, value, was, stage in (("confirm_seed", 9, 20261205, "confirm"), ("confirm_deals", 7, 20000, "confirm"),
                                     ("strategy", "tpe", '"grid"', "search"), ("deals", 100, 20000, "search")):
        edited = _edited_copy(src, tmp_path / field, "tune", lambda t: t.__setitem__(field, value))
        assert_usage_error(run(runner, "report", edited, "-q"),
                           f"has '{field}' {json.dumps(value)} but stage {stage} was played with {was}")


def test_report_rebuilds_a_tuning_run_from_its_stages(runner, tune_dir, tmp_path):
    """'handsim report' on a finished tuning run replays its stages' checkpoints (nothing is played): the same
    tune.csv and report; with a stage missing it says how to finish the run."""
    import shutil

    src, _ = tune_dir
    out = tmp_path / "u"
    shutil.copytree(src, out)
    before = {f: (out / f).read_bytes() for f in ("tune.csv", "report.md", "best.toml", "run.json")}
    for f in ("tune.csv", "report.md", "report.html", "tune.png", "confirm.png"):
        (out / f).unlink()
    result = run(runner, "report", out, "--format", "html")
    assert_ok(result)
    assert "report.html (3 candidates)" in result.output
    assert (out / "report.html").exists() and not (out / "report.md").exists() and not (out / "tune.png").exists()
    assert_ok(run(runner, "report", out, "-q"))
    for f, data in before.items():
        assert (out / f).read_bytes() == data, f
    assert (out / "tune.png").exists() and (out / "confirm.png").exists()
    shutil.rmtree(out / "stages" / "confirm")
    assert_usage_error(run(runner, "report", out), "not finished", "stage confirm was not played", "tune --resume")


@pytest.mark.parametrize("args,fragments", [
    ([], ["give the POLICY to tune"]),
    (["hold-hand"], ["nothing to tune"]),
    (["hold-hand", "--param", "bail_turn=0:5"], ["allowed values of bail_turn are 1 to 1000"]),
    (["hold-hand", "--param", "bail_turn=1:5", "--against", "greedy", "--players", "4"], ["need 3"]),
    (["nope", "--param", "x=1:2"], ["unknown policy 'nope'"]),
    (["hold-hand", "--param", "bail_turn=1:3", "--preset", "russian"], ["'handsim tune' is for classic Hand",
                                                                        "played by simulate"]),
])
def test_tune_input_errors_are_one_line(runner, tmp_path, args, fragments):
    assert_usage_error(run(runner, "tune", *args, "--out", tmp_path / "x", *FAST), *fragments)


def test_tune_refuses_a_range_the_rules_forbid_before_creating_anything(runner, tmp_path):
    """support_hand=0:1 outside 2 v 2: the candidate support_hand=1 is refused before --out is created, so
    the same --out works for the corrected command (was: a run.json with status "running" left behind)."""
    out = tmp_path / "x"
    assert_usage_error(run(runner, "tune", "greedy", "--param", "support_hand=0:1", "--deals", 10, "--out", out, *FAST),
                       "greedy:support_hand=1 works only in 2 v 2 play")
    assert not out.exists()
    assert_ok(run(runner, "tune", "greedy", "--param", "support_hand=0:1", "--players", "2v2", "--deals", 10,
                  "--out", out, *FAST, "-q"))
    info = json.loads((out / "run.json").read_text())
    assert info["kind"] == "tune" and "status" not in info and info["candidates"] == 2  # finished


def test_tournament_and_tune_offer_the_classic_presets_only(runner, tmp_path):
    """They play classic Hand: --preset no longer lists russian only to refuse it later."""
    for cmd in ("tournament", "tune"):
        text = run(runner, cmd, "--help").output
        assert "qahwa" in text and "russian|" not in text and "|russian" not in text, cmd
    assert_usage_error(run(runner, "tournament", "--policy", "greedy", "--policy", "random", "--preset", "russian",
                           "--out", tmp_path / "t", *FAST), "'handsim tournament' is for classic Hand")
    assert_usage_error(run(runner, "tune", "hold-hand", "--param", "bail_turn=1:3", "--preset", "rus",
                           "--out", tmp_path / "u", *FAST), "'rus' is not one of 'classic', 'saudi', 'qahwa', 'partnership', 'hand71', 'levant', 'jawaker_saudi', 'kuwait', 'konkan'.")


# ------------------------------------------------------------------------------ help (the CLI reference: tests/test_docs.py)


@pytest.mark.parametrize("cmd", ["tournament", "tune"])
def test_help_has_an_example(runner, cmd):
    result = run(runner, cmd, "--help")
    assert_ok(result)
    assert "Examples:" in result.output and f"$ handsim {cmd}" in result.output


def test_an_interruption_before_any_chunk_says_resume_starts_it(runner, tmp_path, monkeypatch):
    """The tournament's run.json is written before anything plays, so the folder is resumable: it
    said 'nothing to resume' (issue 23, a breaker's pass)."""
    import handsim.tournament

    def interrupted(spec, **kw):
        raise KeyboardInterrupt

    monkeypatch.setattr(handsim.tournament, "run_tournament", interrupted)
    out = tmp_path / "t"
    result = run(runner, "tournament", "--policy", "greedy", "--policy", "random", "--deals", "5", "--out", out, *FAST)
    assert result.exit_code == 130, result.output
    assert result.stderr.strip() == (f"Interrupted before any work was finished; the run is set up in {out}: "
                                     f"'handsim tournament --resume {out}' starts it.")
    assert (out / "run.json").exists()
