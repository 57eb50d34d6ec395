"""`handsim batch FILE.toml`: a study file's parts run as one experiment, give what each command
gives alone, resume as a whole after Ctrl-C to the same bytes, and a malformed file is one line
naming the entry and the key, exit 2, before anything runs."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tomllib
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from handsim.cli import cli
from handsim.study import TEST_HOLD_ENV

FAST = ["--jobs", "1", "--no-progress"]

#: Three parts: a study, a tuning run and a study that plays the tuned policy ({tune} is the tuning
#: run's folder).  The first study has 1 chunk, the tuned one 4 (an interruption after 2 chunks
#: stops the third part).
FILE = """\
[batch]
title = "A small experiment"

[defaults]
deals = 200
chunk = 100
seed = 3
players = 3

[run.thresholds]
threshold = [51, 71]
lineup = [["hold-hand", "greedy", "greedy"]]
deals = 100

[run.tune]
kind = "tune"
policy = "hold-hand"
param = {bail_turn = "1:9:4"}
confirm_deals = 100

[run.tuned]
policy = "greedy"
lineup = [["@{tune}/best.toml", "greedy", "greedy"]]
vary = {joker_penalty = [15, 30]}
"""


def run(*args):
    return CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=True)


def write(tmp_path: Path, text: str, name: str = "study.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    base = tmp_path_factory.mktemp("batch")
    file = write(base, FILE)
    r = run("batch", file, "--out", base / "out", *FAST, "-q")
    assert r.exit_code == 0, r.output
    return base, file, base / "out"


def test_each_part_is_what_its_command_gives_alone(finished, tmp_path, monkeypatch):
    base, file, out = finished
    assert sorted(p.name for p in out.iterdir()) == ["batch.json", "index.html", "index.md", "thresholds", "tune",
                                                     "tuned"]
    alone = tmp_path / "alone"
    r = run("simulate", "--threshold", 51, "--threshold", 71, "--lineup", "hold-hand,greedy,greedy", "--deals", 100,
            "--chunk", 100, "--seed", 3, "--players", 3, "--out", alone, *FAST, "-q")
    assert r.exit_code == 0, r.output
    assert (out / "thresholds" / "summary.csv").read_bytes() == (alone / "summary.csv").read_bytes()
    # the tuned study read the tuning run's best.toml, as --lineup @DIR/best.toml does
    best = tomllib.loads((out / "tune" / "best.toml").read_text())["tuned"]["label"]
    spec = json.loads((out / "tuned" / "run.json").read_text())
    assert best.startswith("hold-hand:") and spec["spec"]["lineups"] == ["greedy,greedy,greedy", f"{best},greedy,greedy"]
    assert spec["command"] == ("handsim simulate --deals 200 --chunk 100 --seed 3 --players 3 --policy greedy --lineup "
                               f"@{out}/tune/best.toml,greedy,greedy --vary joker_penalty=15,30 --out {out}/tuned "
                               "--jobs 1 --no-progress -q")
    # the index links every part's report and gives the command that runs it alone
    md = (out / "index.md").read_text()
    assert md.startswith("# A small experiment\n\n3 of 3 parts done")
    for name, kind in (("thresholds", "simulate"), ("tune", "tune"), ("tuned", "simulate")):
        assert f"| `{name}` | handsim {kind} | done | [report.html]({name}/report.html) · [report.md]({name}/report.md) |" \
            in md
    assert f"`handsim tune hold-hand --deals 200 --chunk 100 --seed 3 --players 3 --param bail_turn=1:9:4 " \
           f"--confirm-deals 100 --out {out}/tune`" in md
    assert '<a href="tune/report.html">report.html</a>' in (out / "index.html").read_text()
    # the command the index gives to finish the batch works from any folder (it named the file alone, without --out)
    resume = f"handsim batch {file.resolve()} --out {out.resolve()} --resume"
    assert f"(`{resume}` finishes what is left)" in md
    monkeypatch.chdir(tmp_path)
    r = run(*resume.split()[1:], *FAST)
    assert r.exit_code == 0, r.output
    assert r.stdout.splitlines()[0] == f"Part 1 of 3, thresholds: done already ({out.resolve()}/thresholds)"
    record = json.loads((out / "batch.json").read_text())
    assert [p["name"] for p in record["parts"]] == ["thresholds", "tune", "tuned"]
    # run again: refused (the folder holds a batch); --resume of a finished batch plays nothing
    r = run("batch", file, "--out", out, *FAST)
    assert r.exit_code == 2 and "holds a batch already: --resume finishes it" in r.stderr, r.output
    r = run("batch", file, "--out", out, "--resume", *FAST)
    assert r.exit_code == 0, r.output
    assert r.stdout.splitlines()[:3] == [f"Part {i} of 3, {n}: done already ({out}/{n})"
                                         for i, n in enumerate(("thresholds", "tune", "tuned"), 1)]


def _files(folder: Path, names) -> dict:
    return {n: (folder / n).read_bytes() for n in names}


def test_interrupted_batch_resumes_to_the_same_results(finished, tmp_path):
    base, ref_file, ref = finished
    file = write(tmp_path, FILE)
    out = tmp_path / "out"
    env = dict(os.environ, **{TEST_HOLD_ENV: "2"})  # the first part has 1 chunk: the tuning run holds
    p = subprocess.Popen([sys.executable, "-m", "handsim", "batch", str(file), "--out", str(out), "-q", *FAST],
                         env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         start_new_session=True, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    lines = []
    for line in p.stderr:
        lines.append(line)
        if "handsim: test hold after" in line:
            break
    else:
        p.wait()
        pytest.fail(f"the batch ended (exit {p.returncode}) without holding:\n{''.join(lines)}")
    os.killpg(p.pid, signal.SIGINT)
    _, rest = p.communicate(timeout=600)
    err = "".join(lines) + rest
    assert p.returncode == 130, err
    assert f"Interrupted: 1 of 3 parts done; 'handsim batch {file} --out {out} --resume' finishes the rest.\n" in err
    assert (out / "thresholds" / "run.json").exists() and not (out / "tuned").exists()
    assert "1 of 3 parts done" in (out / "index.md").read_text()
    # a changed file is not resumed
    file.write_text(FILE.replace("seed = 3", "seed = 4"))
    r = run("batch", file, "--out", out, "--resume", *FAST)
    assert r.exit_code == 2 and "changed since the batch" in r.stderr, r.output
    file.write_text(FILE)
    r = run("batch", file, "--out", out, "--resume", *FAST, "-q")
    assert r.exit_code == 0, r.output
    for part, names in (("thresholds", ["summary.csv", "paired.csv"]), ("tune", ["tune.csv", "best.toml"]),
                        ("tuned", ["summary.csv", "paired.csv", "lineups.csv"])):
        assert _files(out / part, names) == _files(ref / part, names), part
    with np.load(out / "tuned" / "checkpoint.npz") as a, np.load(ref / "tuned" / "checkpoint.npz") as b:
        assert sorted(a.files) == sorted(b.files)
        for k in a.files:
            if k not in ("__seconds__", "__run__"):  # (the time the chunks took; the command, naming the folder)
                assert np.array_equal(a[k], b[k]), k
    assert (out / "index.md").read_text().replace(str(file.resolve()), "FILE").replace(str(out), "OUT") == \
        (ref / "index.md").read_text().replace(str(ref_file.resolve()), "FILE").replace(str(ref), "OUT")


GOOD = '[run.a]\nthreshold = [51]\n[run.t]\nkind = "tune"\npolicy = "hold-hand"\nparam = {bail_turn = "1:9:4"}\n'


@pytest.mark.parametrize("text, message", [
    ('[run.x]\ndeals = 0\n', "[run.x] deals: 0 is out of range: allowed 1..10^12"),
    ('[run.x]\nthresold = 51\n', "[run.x] thresold: unknown key for handsim simulate (keys: chunk, deals, jobs, "
                                 "joker_penalty, lineup, matches, per_deal, players, policy, policy_file, preset, "
                                 "rounds, rules, seed, set, standings, threshold, trace, vary)"),
    ('[run.x]\nkind = "simulation"\n', "[run.x] kind: unknown kind 'simulation' (allowed: simulate, tournament, tune)"),
    ('[run.x]\nper_deal = 1\n', "[run.x] per_deal: is a flag: give true or false"),
    ('[run.x]\nplayers = "6"\n', "[run.x] players: "),
    ('[run.x]\npolicy = ["nosuch"]\n', "[run.x] policy: unknown policy 'nosuch'"),
    ('[run.x]\nvary = {nosuch = [1, 2]}\n', "[run.x] vary: unknown rule 'nosuch'"),
    ('[run.x]\nset = {jokers = 9}\n', "[run.x] set: invalid value '9' for rule 'jokers'"),
    ('[run.x]\nlineup = [["greedy:zz=1", "greedy"]]\n', "[run.x] lineup: unknown parameter 'zz' for policy greedy"),
    ('[run.x]\nout = "t"\n', "[run.x] out: "),
    ('[run.x]\nout = "../elsewhere"\n', "[run.x] out: must be a folder inside the batch's folder"),
    ('[run.x]\nlineup = [["@{zz}/best.toml", "greedy"]]\n', "[run.x] lineup: {zz} names no part"),
    ('[run.x]\nlineup = [["@{y}/best.toml", "greedy"]]\n[run.y]\n', "[run.x] lineup: {y} names a part that does not "
                                                                     "run before this one"),
    ('[run.x]\nresume = true\n', "[run.x] resume: not a key of a study file (handsim batch --resume)"),
    ('[run.x]\ndeals = [1, 2]\n', "[run.x] deals: '1,2' is not an integer: allowed 1..10^12"),
    ('[defaults]\ndeal = 5\n', "[defaults] deal: unknown key: no part's command (simulate, tune) has that option"),
    ('[defaults]\ndeals = 0\n', "[defaults] deals: 0 is out of range"),
    ('[runs.x]\n', "[runs]: unknown table: a study file has [batch], [defaults] and [run.NAME] tables"),
    ('[batch]\nname = "x"\n', "[batch] name: unknown key (allowed: title)"),
])
def test_a_malformed_file_is_one_line_naming_entry_and_key_before_anything_runs(tmp_path, text, message):
    file = write(tmp_path, GOOD + text)
    r = run("batch", file, "--out", tmp_path / "out", *FAST)
    assert r.exit_code == 2, r.output
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"Error: {file}: "), r.stderr
    assert message in lines[0], lines[0]
    assert not (tmp_path / "out").exists()  # nothing ran, no folder made


def test_a_study_file_without_parts_or_with_a_full_part_folder_is_refused(tmp_path):
    r = run("batch", write(tmp_path, "[batch]\ntitle = 'x'\n"), "--out", tmp_path / "o", *FAST)
    assert r.exit_code == 2 and "no parts" in r.stderr, r.output
    (tmp_path / "o" / "a").mkdir(parents=True)
    (tmp_path / "o" / "a" / "notes.txt").write_text("mine")
    r = run("batch", write(tmp_path, GOOD), "--out", tmp_path / "o", *FAST)
    assert r.exit_code == 2 and "[run.a]: its folder" in r.stderr and "already exists and is not empty" in r.stderr
    assert not (tmp_path / "o" / "batch.json").exists()
    r = run("batch", write(tmp_path, GOOD), "--out", tmp_path / "new", "--resume", *FAST)
    assert r.exit_code == 2 and "nothing to resume" in r.stderr, r.output


def test_keys_become_the_commands_words():
    from handsim.cli.batch import part_argv
    from handsim.cli.simulate import simulate
    from handsim.cli.tournament import tune
    from handsim.study.batch import Part

    p = Part("x", "simulate", Path("o/x"), {"joker-penalty": [15, 30], "vary": {"opening_rule": ["fixed", "ascending"]},
                                            "set": {"jokers": 4, "go_out_requires_discard": True}, "per_deal": True,
                                            "matches": False, "lineup": [["hold-hand", "greedy"], "greedy,greedy"]})
    assert part_argv(p, simulate, "f") == [
        "--joker-penalty", "15", "--joker-penalty", "30", "--vary", "opening_rule=fixed,ascending",
        "--set", "jokers=4", "--set", "go_out_requires_discard=true", "--per-deal",
        "--lineup", "hold-hand,greedy", "--lineup", "greedy,greedy"]
    p = Part("t", "tune", Path("o/t"), {"against": ["greedy", "random"], "policy": "hold-hand",
                                        "param": {"bail_turn": "4:20:2"}})
    assert part_argv(p, tune, "f") == ["hold-hand", "--against", "greedy,random", "--param", "bail_turn=4:20:2"]


ROOT = Path(__file__).resolve().parents[1]
STUDY_FILES = sorted((ROOT / "results").glob("*/study.toml"))


def _committed(part, plan) -> dict:
    """The run.json of the committed run a part reproduces: in its folder, or (a folder that holds
    one study) the study folder itself."""
    for folder in (part.out, plan.out):
        if (folder / "run.json").is_file():
            return json.loads((folder / "run.json").read_text())
    raise AssertionError(f"{part.entry}: no committed run at {part.out} or {plan.out}")


#: Classic Hand's rule options added after the committed runs were played (issue 27): a committed
#: run.json names none of them, and played each at its default.
ADDED_SINCE = ("ascending_increment", "hand_waives_threshold", "out_score", "hand_score", "unopened_points",
               "set_joker_swap", "dealer_rotation", "decks", "ace_value", "elimination_score", "max_run_length",
               "opening_requires_discard_pickup")


def _with_added_defaults(obj):
    """``obj`` (a committed spec) with every classic Hand rules object in it completed by the
    options of :data:`ADDED_SINCE` at their defaults: what the run played under."""
    from handsim.games.hand.rules import PARAM_BY_NAME

    if isinstance(obj, list):
        return [_with_added_defaults(v) for v in obj]
    if not isinstance(obj, dict):
        return obj
    out = {k: _with_added_defaults(v) for k, v in obj.items()}
    rules = out.get("rules")
    if isinstance(rules, dict) and "joker_penalty" in rules and set(rules) <= set(PARAM_BY_NAME):
        out["rules"] = {**rules, **{k: PARAM_BY_NAME[k].default for k in ADDED_SINCE
                                    if k in PARAM_BY_NAME and k not in rules}}
    return out


def test_every_committed_study_has_a_study_file():
    studies = sorted(p.name for p in (ROOT / "results").iterdir() if (p / "README.md").is_file())
    assert [f.parent.name for f in STUDY_FILES] == studies
    assert not sorted((ROOT / "scripts").glob("study_*.sh"))


@pytest.mark.parametrize("file", STUDY_FILES, ids=[f.parent.name for f in STUDY_FILES])
def test_a_committed_study_file_builds_exactly_the_committed_runs(file, monkeypatch):
    """Each run of the study file, built by its command (nothing played), is the study, tournament
    or tuning run whose results are committed: the same rules, line-ups, deals and seed."""
    from handsim.cli.batch import part_spec
    from handsim.study.batch import load_plan

    monkeypatch.chdir(ROOT)  # the files name the tuned policies from the checkout's root
    plan = load_plan(file.relative_to(ROOT))
    for part in plan.parts:
        saved = _committed(part, plan)
        spec = part_spec(part, file).to_json()
        want = _with_added_defaults(saved["spec"] if part.kind == "simulate" else saved[part.kind])
        assert spec == want, part.entry
