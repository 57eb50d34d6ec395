"""Hostile input, damaged files and races: nothing lost, never a traceback (issue 14).

Every case runs the command line as a user would: click's CliRunner for most, the real program
(``python -m handsim``) in a subprocess where a real file descriptor, a signal, argv bytes or a
second process matter.  Each checks the exit code (2 bad input, 1 a failure to write, 130
interrupted, 0 where an odd input is accepted on purpose), that stderr is one line naming the
problem (no traceback), and where files are involved that nothing was lost.

Kinds covered: --force and what a study folder is; two runs into one folder; deeply nested and
otherwise damaged JSON/TOML in every reader; damaged checkpoints; file-system trouble (long
names, symbolic links, non-UTF-8 arguments, a full device, closed or broken standard output,
read-only folders, a folder where a file belongs); Ctrl-C outside simulate; the arrange bound;
silent acceptance (empty policies, policy parameter spelling, contradicting options, wrongly
typed saved specs and traces, a report over two studies, a round that never happened, line-up
lengths, invisible characters).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from handsim.cli import cli

ROOT = Path(__file__).resolve().parents[1]
DEEP = "[" * 100_000 + "]" * 100_000  # far beyond Python's recursion limit
DEEP_OBJECT = '{"a":' * 5000 + "1" + "}" * 5000
MID = "[" * 200 + "]" * 200  # parses, but nests deeper than handsim's limit of 64
LONG_NUMBER = "1" + "0" * 5000  # more digits than Python converts to an int
STUDY = ["--deals", "5", "--jobs", "1", "--no-progress", "-q"]


# ------------------------------------------------------------------------------ helpers


@pytest.fixture
def runner():
    return CliRunner()


def run(runner, *args, input=None):
    return runner.invoke(cli, [str(a) for a in args], input=input, catch_exceptions=True)


def ok(result):
    assert result.exit_code == 0, result.output
    return result


def one_line(result, code: int, *fragments: str) -> str:
    """Exit ``code``; stderr holds exactly one non-blank line, starting 'Error: ' (or 'Interrupted.')
    and containing every fragment; no traceback anywhere."""
    stderr = result.stderr
    rc = result.exit_code if hasattr(result, "exit_code") else result.returncode
    assert rc == code, (rc, stderr)
    if hasattr(result, "exception") and result.exception is not None:
        assert isinstance(result.exception, SystemExit), repr(result.exception)
    assert "Traceback" not in stderr and "Exception ignored" not in stderr, stderr
    # a kernel not yet in the cache announces its compilation first (the order the tests run in
    # decides which test compiles it)
    lines = [line for line in stderr.splitlines() if line.strip() and not line.startswith("Compiling ")]
    assert len(lines) == 1, stderr
    assert lines[0].startswith("Error: ") or lines[0] == "Interrupted.", lines[0]
    for frag in fragments:
        assert frag in lines[0], (frag, lines[0])
    assert "allow_pickle" not in lines[0] and "set_int_max_str_digits" not in lines[0]
    return lines[0]


def program(*args, cwd=None, stdin=None, stdout=subprocess.PIPE, input=None, preexec_fn=None, timeout=600):
    """Run ``python -m handsim ARGS`` (bytes arguments are passed as they are)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    argv = [sys.executable, "-m", "handsim", *(a if isinstance(a, bytes) else str(a) for a in args)]
    return subprocess.run(argv, cwd=cwd, env=env, stdin=stdin, stdout=stdout, stderr=subprocess.PIPE,
                          input=input, preexec_fn=preexec_fn, timeout=timeout, text=input is None or isinstance(input, str))


def tree(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` (not following links) with its content."""
    return {str(p.relative_to(folder)): (p.read_bytes() if p.is_file() and not p.is_symlink() else b"<link>")
            for p in sorted(folder.rglob("*")) if not p.is_dir() or p.is_symlink()}


@pytest.fixture(scope="module")
def study(tmp_path_factory) -> Path:
    """A finished two-player study (5 deals)."""
    out = tmp_path_factory.mktemp("study") / "s"
    ok(run(CliRunner(), "simulate", "--policy", "greedy", "--players", "2", "--seed", "3", "--out", out, *STUDY))
    return out


@pytest.fixture(scope="module")
def other_study(tmp_path_factory) -> Path:
    """Another study: 7 deals, otherwise the same."""
    out = tmp_path_factory.mktemp("other") / "s"
    ok(run(CliRunner(), "simulate", "--policy", "greedy", "--players", "2", "--seed", "3", "--out", out,
           "--deals", "7", "--jobs", "1", "--no-progress", "-q"))
    return out


@pytest.fixture
def copy(study, tmp_path):
    """A fresh copy of the study, to damage."""
    dst = tmp_path / "copy"
    shutil.copytree(study, dst)
    return dst


def user_files(folder: Path) -> dict[str, bytes]:
    """A user's own files, including a nested one."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "notes.txt").write_text("my notes\n")
    (folder / "data.csv").write_text("a,b\n1,2\n")
    (folder / "sub").mkdir(exist_ok=True)
    (folder / "sub" / "deep.txt").write_text("deep\n")
    return tree(folder)


# ------------------------------------------------------------------------------ data loss: --force


@pytest.mark.parametrize("run_json", [
    b"",                                                   # the example: an empty run.json
    b"{}",                                                 # JSON, but no study
    b'{"spec": null}',
    b'{"spec": {"rules": {}}}',                            # a study spec without line-ups
    b'{"kind": "tournament"}',                             # names a tournament, holds none
    b"\xff\xfe not text",
    DEEP.encode(),
], ids=["empty", "object", "null-spec", "partial-spec", "kind-only", "binary", "deep"])
def test_force_never_deletes_a_folder_that_merely_holds_a_run_json(runner, tmp_path, run_json):
    folder = tmp_path / "mine"
    user_files(folder)
    (folder / "run.json").write_bytes(run_json)
    before = tree(folder)
    line = one_line(run(runner, "simulate", "--policy", "greedy", "--out", folder, "--force", *STUDY), 2,
                    "--force replaces only a handsim output folder", "nothing was deleted")
    assert "run.json" in line
    assert tree(folder) == before


@pytest.mark.parametrize("content", [b"", b"PK\x03\x04 truncated", os.urandom(2000)], ids=["empty", "zip-head", "random"])
def test_force_never_deletes_a_folder_that_merely_holds_a_checkpoint_npz(runner, tmp_path, content):
    folder = tmp_path / "mine"
    user_files(folder)
    (folder / "checkpoint.npz").write_bytes(content)
    before = tree(folder)
    one_line(run(runner, "simulate", "--policy", "greedy", "--out", folder, "--force", *STUDY), 2,
             "not a usable handsim checkpoint", "nothing was deleted")
    assert tree(folder) == before


@pytest.mark.parametrize("extra", ["file", "folder", "link", "per_deal-file", "per_deal-folder", "hidden"])
def test_force_refuses_a_real_study_folder_holding_other_files(runner, copy, tmp_path, extra):
    """A real study plus anything a study does not write: refused, and not one file deleted."""
    outside = tmp_path / "precious.csv"
    outside.write_text("keep me\n")
    if extra == "file":
        (copy / "notes.txt").write_text("mine\n")
    elif extra == "folder":
        (copy / "analysis").mkdir()
        (copy / "analysis" / "fit.py").write_text("print(1)\n")
    elif extra == "link":
        (copy / "summary.csv").unlink()
        (copy / "summary.csv").symlink_to(outside)  # a study never writes a link
    elif extra == "per_deal-file":
        (copy / "per_deal").mkdir()
        (copy / "per_deal" / "my-notes.txt").write_text("mine\n")
    elif extra == "per_deal-folder":
        (copy / "per_deal" / "keep").mkdir(parents=True)
    else:
        (copy / ".git-keep").write_text("")
    before = tree(copy)
    one_line(run(runner, "simulate", "--policy", "greedy", "--out", copy, "--force", *STUDY), 2,
             "--force deletes only the files handsim writes", "nothing was deleted")
    assert tree(copy) == before
    assert outside.read_text() == "keep me\n"


def test_force_replaces_only_a_studys_own_files(runner, copy):
    (copy / ".summary.csv.123.0123456789abcdef0123456789abcdef.tmp").write_bytes(b"half")  # a killed run's leftovers
    (copy / ".handsim.lock").write_text("handsim simulate: process 1 (killed)\n")
    ok(run(runner, "simulate", "--policy", "greedy", "--players", "3", "--out", copy, "--force", *STUDY))
    assert json.loads((copy / "run.json").read_text())["spec"]["players"] == 3
    names = {p.name for p in copy.iterdir()}
    assert not any(n.endswith(".tmp") for n in names) and ".handsim.lock" not in names
    assert "summary.csv" in names and "report.md" in names


def test_force_refuses_the_working_folder_and_its_ancestors(study, tmp_path):
    inner = tmp_path / "a" / "b"
    shutil.copytree(study, inner)
    before = tree(tmp_path)
    for out in (".", "..", str(inner), str(tmp_path)):
        p = program("simulate", "--policy", "greedy", "--out", out, "--force", *STUDY, cwd=inner)
        one_line(p, 2, "--force will not replace", "working folder")
    assert tree(tmp_path) == before


def test_force_through_a_symbolic_link_replaces_the_study_it_points_to(runner, copy, tmp_path):
    link = tmp_path / "link"
    link.symlink_to(copy)
    ok(run(runner, "simulate", "--policy", "greedy", "--players", "4", "--out", link, "--force", *STUDY))
    assert link.is_symlink() and json.loads((copy / "run.json").read_text())["spec"]["players"] == 4


@pytest.mark.parametrize("kind", ["dangling-link", "file", "empty", "blank", "too-long", "too-long-inside"])
def test_bad_out_names_are_one_line(runner, tmp_path, kind):
    if kind == "dangling-link":
        out = tmp_path / "link"
        out.symlink_to(tmp_path / "gone")
        frag = "symbolic link"
    elif kind == "file":
        out = tmp_path / "f.txt"
        out.write_text("x")
        frag = "is a file"
    elif kind in ("empty", "blank"):
        out, frag = ("" if kind == "empty" else "   "), "--out is empty"
    elif kind == "too-long":
        out, frag = tmp_path / ("x" * 300), "File name too long"
    else:
        out, frag = tmp_path / ("y" * 300) / "study", "File name too long"
    one_line(run(runner, "simulate", "--policy", "greedy", "--out", out, *STUDY), 2, frag)
    if kind == "file":
        assert (tmp_path / "f.txt").read_text() == "x"


@pytest.mark.parametrize("args", [
    ["simulate", "--players", "2v2", "--rounds", "2", "--lineup", "hold-hand,greedy,greedy,greedy",
     "--lineup", "greedy,greedy,greedy,greedy", "--vary", "joker_penalty=15,30", "--deals", "3", "--per-deal"],
    ["simulate", "--players", "3", "--vary", "opening_threshold=51,71", "--policy", "greedy", "--policy", "hold-hand",
     "--deals", "4", "--trace", "2", "--per-deal"],
    ["tournament", "--policy", "greedy", "--policy", "random", "--players", "2", "--deals", "3"],
    ["tune", "hold-hand:bail_opponent_cards=0", "--param", "bail_turn=1:1000:999", "--against", "greedy",
     "--deals", "3"],
    ["tune", "hold-hand", "--param", "bail_turn=1:3", "--param", "bail_opponent_cards=0:1", "--against", "greedy",
     "--deals", "3"],
], ids=["2v2-matches", "singles-traces", "tournament", "tune-one-parameter", "tune-grid"])
def test_every_file_handsim_writes_is_known_to_force(runner, tmp_path, args):
    """--force deletes only the files handsim writes: a new output file must join OUTPUT_FILES
    (else --force refuses such a folder: safe, but this test says so first)."""
    from handsim.simulate import study_files

    out = tmp_path / "out"
    ok(run(runner, *args, "--out", out, "--jobs", "1", "--no-progress", "-q"))
    assert (out / "report.md").exists() and (out / "report.html").exists()
    own, other = study_files(out)
    assert other == [] and len(own) > 5
    if args[0] == "tune":  # both figures of a tuning run, and its stages
        assert {"tune.png", "confirm.png", "checkpoint.npz"} <= {p.name for p in own}
    ok(run(runner, *args, "--out", out, "--force", "--jobs", "1", "--no-progress", "-q"))


def test_existing_study_without_force_is_refused_and_untouched(runner, copy):
    before = tree(copy)
    one_line(run(runner, "simulate", "--policy", "greedy", "--out", copy, *STUDY), 2, "already exists", "--force")
    one_line(run(runner, "simulate", "--resume", copy, "--force"), 2, "--force and --resume")
    assert tree(copy) == before


@pytest.fixture
def spec_seen(monkeypatch) -> dict:
    """simulate runs nothing: the study it would run is kept in ``spec_seen["spec"]``, then Ctrl-C."""
    import handsim.study.runner

    seen = {}

    def interrupted(spec, **kw):
        seen["spec"] = spec
        raise KeyboardInterrupt

    monkeypatch.setattr(handsim.study.runner, "run_study", interrupted)
    return seen


def test_a_new_folder_left_empty_is_removed(runner, tmp_path, spec_seen):
    """Interrupted before any work: the new folder this run made (and claimed) is not left behind."""
    out = tmp_path / "new" / "deeper"
    result = run(runner, "simulate", "--policy", "greedy", "--out", out, *STUDY)
    assert result.exit_code == 130 and "nothing to resume" in result.stderr
    assert not out.exists()


# ------------------------------------------------------------------------------ data loss: two runs at once


def test_second_run_into_a_claimed_folder_is_refused(runner, tmp_path):
    """A folder another process holds (its lock taken here by a second open file, which conflicts
    like another process would) is refused with one line, for simulate and report alike."""
    from handsim._io import FolderLock

    out = tmp_path / "busy"
    out.mkdir()
    with FolderLock(out).acquire("handsim simulate"):
        line = one_line(run(runner, "simulate", "--policy", "greedy", "--out", out, *STUDY), 2, "is in use by another")
        assert f"process {os.getpid()}" in line
    ok(run(runner, "simulate", "--policy", "greedy", "--out", out, *STUDY))  # released: now it works
    with FolderLock(out).acquire("handsim simulate"):
        one_line(run(runner, "report", out), 2, "is in use by another")
        one_line(run(runner, "simulate", "--resume", out), 2, "is in use by another")


def _hold_then(out: Path, gate: Path, then: str) -> subprocess.Popen:
    """A real ``handsim simulate`` into ``out`` that, once it holds the folder, waits for ``gate``
    to exist (no timing: the test decides when it goes on), then finishes or dies (``then``)."""
    code = textwrap.dedent(f"""
        import os, signal, sys, time
        from pathlib import Path
        import handsim.study.runner as S
        real = S.run_study
        def gated(spec, **kw):
            Path({str(out)!r}, "ready").write_text("")  # not a study file: only for this test
            while not Path({str(gate)!r}).exists():
                time.sleep(0.02)
            if {then!r} == "die":
                os.kill(os.getpid(), signal.SIGKILL)
            os.unlink(Path({str(out)!r}, "ready"))
            return real(spec, **kw)
        S.run_study = gated
        from handsim.cli import main
        main(["simulate", "--policy", "greedy", "--out", {str(out)!r}, "--deals", "5", "--jobs", "1", "-q"])
    """)
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.Popen([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)


def _wait_for(path: Path, proc: subprocess.Popen) -> None:
    """Wait until ``path`` exists (a condition, not a time), failing if ``proc`` ends first."""
    import time

    while not path.exists():
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.02)


def test_two_real_runs_into_one_new_folder(tmp_path):
    """The issue's race: the first run holds the new folder, the second is refused with one line
    and the first finishes with its own study."""
    out, gate = tmp_path / "race", tmp_path / "gate"
    first = _hold_then(out, gate, "finish")
    _wait_for(out / "ready", first)
    second = program("simulate", "--policy", "hold-hand", "--out", out, *STUDY)
    one_line(second, 2, "is in use by another handsim process")
    gate.write_text("")
    _, err = first.communicate(timeout=600)
    assert first.returncode == 0, err
    assert json.loads((out / "run.json").read_text())["spec"]["lineups"] == ["greedy,greedy,greedy,greedy"]


def test_a_killed_runs_claim_is_not_stale(tmp_path):
    """A run killed while it holds the folder (SIGKILL: no clean-up at all) leaves its lock file;
    the operating system has dropped the claim, so the next run goes ahead."""
    out, gate = tmp_path / "killed", tmp_path / "gate"
    first = _hold_then(out, gate, "die")
    _wait_for(out / "ready", first)
    gate.write_text("")
    first.communicate(timeout=600)
    assert first.returncode == -signal.SIGKILL
    assert (out / ".handsim.lock").exists()
    (out / "ready").unlink()
    p = program("simulate", "--policy", "greedy", "--out", out, *STUDY)
    assert p.returncode == 0, p.stderr
    assert not (out / ".handsim.lock").exists() and (out / "summary.csv").is_file()


def test_python_api_claims_and_refuses_too(tmp_path):
    import handsim
    from handsim.simulate import StudyError

    out = tmp_path / "api"
    user_files(out)
    before = tree(out)
    with pytest.raises(StudyError, match="already exists"):
        handsim.simulate(lineups=["greedy"], deals=3, jobs=1, out=out)
    with pytest.raises(StudyError, match="not one"):
        handsim.simulate(lineups=["greedy"], deals=3, jobs=1, out=out, force=True)
    assert tree(out) == before


# ------------------------------------------------------------------------------ deep and damaged JSON / TOML


def test_deep_json_on_standard_input(runner):
    """The issue's example: python3 -c "print('['*100000+']'*100000)" | handsim score -"""
    p = program("score", "-", input=DEEP + "\n")
    one_line(p, 2, "nests arrays or objects too deeply", "standard input")


@pytest.mark.parametrize("text, frag", [
    (DEEP, "too deeply"), (DEEP_OBJECT, "too deeply"), (MID, "more than 64 levels"),
    ('{"out": ' + LONG_NUMBER + "}", "too many digits"),
    ("", "malformed JSON"), ("   \n", "malformed JSON"), ("null", "expected a JSON object"),
    ('"text"', "expected a JSON object"), ("[]", "expected a JSON object"), ("{}", "missing field"),
    ('{"out": 1, "hand_finish": false, "hands": ["KS", ""], "opened": [true, true], "x": 1}', "unknown field 'x'"),
    ('{"out": "1", "hand_finish": false, "hands": ["KS", ""], "opened": [true, true]}', "out"),
    ('{"out": true, "hand_finish": false, "hands": ["KS", ""], "opened": [true, true]}', "out"),
    ('{"out": NaN, "hand_finish": false, "hands": ["KS", ""], "opened": [true, true]}', "out"),
    ('{"out": 1e999, "hand_finish": false, "hands": ["KS", ""], "opened": [true, true]}', "out"),
    ('{"out": 1, "hand_finish": 0, "hands": ["KS", ""], "opened": [true, true]}', "hand_finish"),
    ('{"out": 1, "hand_finish": false, "hands": "KS", "opened": [true, true]}', "hands"),
    ('{"out": 1, "hand_finish": false, "hands": [5, ""], "opened": [true, true]}', "hands[0]"),
    ('{"out": 1, "hand_finish": false, "hands": ["KS", ""], "opened": [true]}', "opened"),
    ('{"out": 1, "hand_finish": false, "hands": ["KS", "", "", "", ""], "opened": [1,1,1,1,1]}', "hands"),
    ('{"out": 1, "hand_finish": false, "hands": ["KS\u200b", ""], "opened": [true, true]}', "U+200B ZERO WIDTH SPACE"),
    ('{"out":\u00a01, "hand_finish": false, "hands": ["KS", ""], "opened": [true, true]}', "U+00A0 NO-BREAK SPACE"),
    ('{"out": 1, "hand_finish": false, "hands": ["' + "K" * 5000 + 'S", ""], "opened": [true, true]}', "bad card"),
], ids=lambda x: x[:30] if isinstance(x, str) else None)
def test_score_input(runner, text, frag):
    one_line(run(runner, "score", "-", input=text), 2, frag)


def test_score_reads_a_byte_order_mark_and_emoji_suits(runner, tmp_path):
    body = '{"out": 1, "hand_finish": false, "hands": ["K♠️ 7♥️ 9♦︎", ""], "opened": [false, true]}'
    path = tmp_path / "bom.json"
    path.write_bytes(b"\xef\xbb\xbf" + body.encode())
    assert json.loads(ok(run(runner, "score", path, "--json")).stdout) == {"scores": [126, -30]}
    one_line(run(runner, "score", "-", input=b"\xff\xfe{}"), 2, "not UTF-8 text", "byte 0xff")


def _trace_line(runner) -> dict:
    return json.loads(ok(run(runner, "show-deal", "--players", "2", "--deal", "1", "--json")).stdout)


@pytest.mark.parametrize("change, frag", [
    (lambda t: DEEP, "too deeply"),
    (lambda t: MID, "more than 64 levels"),
    (lambda t: dict(t, rules="classic"), "its 'rules' is a JSON string, not an object"),
    (lambda t: dict(t, rules=[]), "its 'rules' is a JSON array, not an object"),
    (lambda t: dict(t, players="2"), "its 'players' is a JSON string, not an integer"),
    (lambda t: dict(t, players=True), "its 'players' is a JSON boolean, not an integer"),
    (lambda t: dict(t, dealer=None), "its 'dealer' is null, not an integer"),
    (lambda t: dict(t, deck={}), "its 'deck' is a JSON object, not an array"),
    (lambda t: dict(t, events="turn"), "its 'events' is a JSON string, not an array"),
    (lambda t: dict(t, result=[]), "its 'result' is a JSON array, not an object"),
    (lambda t: dict(t, hands="KS"), "its 'hands' is a JSON string, not an array"),
    (lambda t: dict(t, policies=5), "its 'policies' is a JSON number, not an array"),
    (lambda t: '{"players": ' + LONG_NUMBER + "}", "too many digits"),
    (lambda t: "\x00\x01", "malformed JSON"),
], ids=["deep", "mid", "rules-str", "rules-list", "players-str", "players-bool", "dealer-null", "deck-obj",
        "events-str", "result-list", "hands-str", "policies-num", "long-number", "control"])
def test_check_refuses_what_is_not_a_trace(runner, tmp_path, change, frag):
    new = change(_trace_line(runner))
    path = tmp_path / "t.jsonl"
    path.write_text((new if isinstance(new, str) else json.dumps(new)) + "\n")
    one_line(run(runner, "check", path), 2, frag)


def _russian_line(runner) -> dict:
    return json.loads(ok(run(runner, "show-deal", "--preset", "russian", "--players", "3", "--deal", "1",
                             "--json")).stdout)


def _with(t: dict, path: str, value) -> dict:
    """A deep copy of trace ``t`` with the field at ``path`` (``"rules.hand_size"``, ``"events.2.card"``) set."""
    t = json.loads(json.dumps(t))
    *keys, last = path.split(".")
    obj = t
    for k in keys:
        obj = obj[int(k)] if isinstance(obj, list) else obj[k]
    if isinstance(obj, list):
        obj[int(last)] = value
    elif value is _DROP:
        del obj[last]
    else:
        obj[last] = value
    return t


_DROP = object()


def _event_index(t: dict, kind: str) -> int:
    return next(i for i, e in enumerate(t["events"]) if e["type"] == kind)


@pytest.mark.parametrize("game, change, frags", [
    # a string where an integer belongs is not read as the integer (it was: exit 0, "0 discrepancies")
    ("classic", lambda t: _with(t, "rules.hand_size", "14"),
     ["line 1", "rule 'hand_size' must be an integer (an integer from 3 to 20), not the string \"14\""]),
    ("classic", lambda t: _with(t, "rules.joker_swap", "true"), ["rule 'joker_swap' must be true or false, not the string"]),
    ("classic", lambda t: _with(t, "rules.starter", 0), ["rule 'starter' must be a string (dealer_right or dealer)"]),
    ("classic", lambda t: _with(t, "deal", "x"), ["line 1", "its 'deal' is a JSON string, not an integer"]),
    ("classic", lambda t: _with(t, "seed", 1.5), ["its 'seed' is a JSON number, not an integer"]),
    ("classic", lambda t: json.dumps(t).replace('"deal": 1,', '"deal": NaN,'), ["its 'deal' is NaN or Infinity"]),
    ("classic", lambda t: json.dumps(_with(t, "result.scores.1", 1e999)),
     ["its 'result.scores[1]' is NaN or Infinity"]),
    ("classic", lambda t: _with(t, "rules", {}), ["line 1", "its 'rules' is an empty object"]),
    ("classic", lambda t: _with(t, "rules", _DROP), ["line 1", "no 'rules' field"]),
    ("classic", lambda t: _with(t, "rules.house_rule", 1), ["unknown option 'house_rule'"]),
    ("classic", lambda t: _with(t, "hands.0", ["KS", 5]), ["its 'hands' is an array holding an array, not an array of hands"]),
    ("classic", lambda t: _with(t, "deck.3", ["KS"]), ["its 'deck' is an array holding an array, not an array of cards"]),
    ("classic", lambda t: _with(t, "events.1", "discard"), ["its event 2 is a JSON string, not an object"]),
    ("classic", lambda t: _with(t, "events.1.card", 5), ["the 'card' of its event 2 is a JSON number, not a string"]),
    ("classic", lambda t: _with(t, "events.0.seat", "0"), ["the 'seat' of its event 1 is a JSON string, not an integer"]),
    ("classic", lambda t: _with(t, f"events.{_event_index(t, 'out')}.hand", 0),
     ["the 'hand' of its event", "is a JSON number, not true or false"]),
    ("classic", lambda t: _with(t, "result.turns", "5"), ["the 'turns' of its result is a JSON string, not an integer"]),
    ("classic", lambda t: _with(t, "result.opened", [1, 0]), ["the 'opened' of its result is an array holding the number 1"]),
    ("russian", lambda t: _with(t, "rules.hand_size", "7"),
     ["line 1", "rule 'hand_size' must be an integer (an integer from 3 to 20), not the string \"7\""]),
    ("russian", lambda t: _with(t, "rules.first_round", True), ["rule 'first_round' must be a string"]),
    ("russian", lambda t: _with(t, "rules", {}), ["its 'rules' is an empty object"]),
    ("russian", lambda t: _with(t, "rules", _DROP), ["no 'rules' field"]),
    ("russian", lambda t: _with(t, "deal", "x"), ["its 'deal' is a JSON string, not an integer"]),
    ("russian", lambda t: json.dumps(t).replace('"deal": 1,', '"deal": Infinity,'), ["its 'deal' is NaN or Infinity"]),
    ("russian", lambda t: _with(t, "result.cards_left.0", "3"), ["the 'cards_left' of its result is an array holding"]),
], ids=["hand_size-str", "joker_swap-str", "starter-int", "deal-str", "seed-float", "deal-nan", "score-inf",
        "rules-empty", "rules-missing", "rules-unknown", "hand-card-int", "deck-card-list", "event-str",
        "event-card-int", "event-seat-str", "out-hand-int", "result-turns-str", "result-opened-ints",
        "ru-hand_size-str", "ru-first_round-bool", "ru-rules-empty", "ru-rules-missing", "ru-deal-str", "ru-deal-inf",
        "ru-cards_left-str"])
def test_check_refuses_wrongly_typed_content_with_exit_2(runner, tmp_path, game, change, frags):
    """Wrongly typed content is bad input (one line naming the field and the line, exit 2), not a rule
    discrepancy (exit 1) nor, worse, read as something else ("hand_size": "14" as 14: exit 0)."""
    new = change(_trace_line(runner) if game == "classic" else _russian_line(runner))
    path = tmp_path / "t.jsonl"
    path.write_text((new if isinstance(new, str) else json.dumps(new)) + "\n")
    one_line(run(runner, "check", path), 2, f"{path}, line 1: not a deal trace", *frags)


def test_the_checkers_do_not_read_text_as_a_rule_value(runner):
    """The libraries too: a wrongly typed or empty rules object is a discrepancy, not read as the value."""
    from handsim.games.hand.checker import check_deal
    from handsim.games.russian.checker import check_deal as check_russian

    t = _trace_line(runner)
    assert check_deal(t) == []
    assert check_deal(_with(t, "rules.hand_size", "14")) == [
        "deal 1: rules: rule 'hand_size' must be an integer (an integer from 3 to 20), not the string \"14\""]
    assert check_deal(_with(t, "rules", {})) == [
        "deal 1: rules: an empty object: a trace names the rules it was played under"]
    r = _russian_line(runner)
    assert check_russian(r) == []
    assert check_russian(_with(r, "rules.hand_size", "7")) == [
        "deal 1: its rules cannot be read: rule 'hand_size' must be an integer (an integer from 3 to 20), not the "
        "string \"7\""]
    assert check_russian(_with(r, "rules", {})) == [
        "deal 1: its rules must be an object naming the rules it was played under, not {}"]


def test_check_reads_standard_input(runner):
    """'handsim check -' reads the move log from standard input: the same answers as from a file."""
    t = _trace_line(runner)
    assert ok(run(runner, "check", "-", input=json.dumps(t) + "\n")).stdout == "1 deal checked, 0 discrepancies\n"
    r = _russian_line(runner)
    text = "\ufeff" + json.dumps(r) + "\n\n" + json.dumps(r) + "\n"  # a byte-order mark, a blank line
    assert ok(run(runner, "check", "-", input=text.encode())).stdout == "2 games checked, 0 discrepancies\n"
    broken = _with(t, "result.scores.0", t["result"]["scores"][0] + 1)  # a real discrepancy: exit 1
    result = run(runner, "check", "-", input=json.dumps(broken) + "\n")
    assert result.exit_code == 1
    assert result.stdout.splitlines() == [
        f"deal 1: result: scores is {json.dumps(broken['result']['scores'])}, but the replay gives "
        f"{json.dumps(t['result']['scores'])}", "1 deal checked, 1 discrepancy"]
    one_line(run(runner, "check", "-", input="\n" + json.dumps(_with(t, "deal", "x")) + "\n"), 2,
             "standard input, line 2: not a deal trace: its 'deal' is a JSON string, not an integer")
    one_line(run(runner, "check", "-", input=b"\xff{}\n"), 2, "standard input is not UTF-8 text")
    one_line(run(runner, "check", "-", input=""), 2, "standard input holds no deal")


def test_check_reads_a_byte_order_mark_and_the_library_names_bad_rules(runner, tmp_path):
    from handsim.games.hand.checker import check_deal, check_file

    t = _trace_line(runner)
    path = tmp_path / "bom.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(t).encode() + b"\n")
    assert ok(run(runner, "check", path)).stdout.strip() == "1 deal checked, 0 discrepancies"
    assert check_deal(dict(t, rules="classic")) == [
        "deal 1: rules: rules must be a mapping of option names to values such as {\"jokers\": 2}, not 'classic'"]
    deep = tmp_path / "deep.jsonl"
    deep.write_text(DEEP + "\n")
    n, problems = check_file(deep)  # the library: a problem, not a RecursionError
    assert n == 1 and "too deeply" in problems[0][1]


@pytest.mark.parametrize("body, frag", [
    (DEEP, "too deeply"), (DEEP_OBJECT, "too deeply"), (MID, "more than 64 levels"),
    ('{"spec": ' + DEEP + "}", "too deeply"),
    ('{"spec": ' + LONG_NUMBER + "}", "too many digits"),
    ("", "malformed JSON"), ("[]", "expected a JSON object"), ('"run"', "expected a JSON object"),
    ("{}", 'holds no study "spec"'),
    ('{"spec": null}', "a study spec is a JSON object, not null"),
    ('{"spec": []}', "a study spec is a JSON object, not an array"),
    ('{"spec": {"lineups": ["greedy"], "players": 4, "deals": 5}}', "has no 'rules' field"),
    ('{"spec": {"rules": [], "lineups": ["greedy"], "players": 4, "deals": 5}}', "'rules' must be an object"),
    ('{"spec": {"rules": "classic", "lineups": ["greedy"], "players": 4, "deals": 5}}', "not the string \"classic\""),
    ('{"spec": {"rules": {}, "lineups": "greedy", "players": 4, "deals": 5}}', "'lineups' must be a non-empty array"),
    ('{"spec": {"rules": {}, "lineups": [], "players": 4, "deals": 5}}', "'lineups' must be a non-empty array"),
    ('{"spec": {"rules": {}, "lineups": [4], "players": 4, "deals": 5}}', "'lineups' must be a non-empty array"),
    ('{"spec": {"rules": {}, "lineups": ["greedy"], "players": "4", "deals": 5}}', "'players' must be an integer"),
    ('{"spec": {"rules": {}, "lineups": ["greedy"], "players": true, "deals": 5}}', "'players' must be an integer"),
    ('{"spec": {"rules": {}, "lineups": ["greedy"], "players": 4, "deals": 5.0}}', "'deals' must be an integer"),
    ('{"spec": {"rules": {}, "lineups": ["greedy"], "players": 4, "deals": 5, "seed": null}}', "'seed' must be"),
    ('{"spec": {"rules": {}, "lineups": ["greedy"], "players": 4, "deals": 5, "matches": "yes"}}', "'matches' must"),
    ('{"spec": {"rules": {}, "vary": "jokers", "lineups": ["greedy"], "players": 4, "deals": 5}}', "'vary' must"),
    ('{"spec": {"rules": {}, "vary": [["jokers", 2]], "lineups": ["greedy"], "players": 4, "deals": 5}}', "'vary' must"),
    ('{"spec": {"rules": {"jokers": "2"}, "lineups": ["greedy"], "players": 4, "deals": 5}}', "rule 'jokers' must be an integer"),
    ('{"spec": {"rules": {"joker_swap": 1}, "lineups": ["greedy"], "players": 4, "deals": 5}}', "rule 'joker_swap' must be true or false"),
    ('{"spec": {"rules": {"starter": 0}, "lineups": ["greedy"], "players": 4, "deals": 5}}', "rule 'starter' must be a string"),
    ('{"spec": {"rules": {"nope": 1}, "lineups": ["greedy"], "players": 4, "deals": 5}}', "unknown rule 'nope'"),
    ('{"spec": {"rules": {}, "lineups": ["nope"], "players": 4, "deals": 5}}', "unknown policy 'nope'"),
    ('{"spec": {"rules": {}, "lineups": ["greedy"], "players": 9, "deals": 5}}', "invalid players 9"),
], ids=lambda x: x[:40] if isinstance(x, str) else None)
def test_saved_specs_from_run_json(runner, tmp_path, body, frag):
    """--from a run.json and --resume of a folder holding it: one line naming the field, nothing run."""
    path = tmp_path / "run.json"
    path.write_text(body)
    one_line(run(runner, "simulate", "--from", path, "--out", tmp_path / "never", *STUDY[-2:]), 2, frag)
    one_line(run(runner, "simulate", "--resume", tmp_path, "-q"), 2, frag)
    assert not (tmp_path / "never").exists()


def test_resume_from_a_checkpoint_with_a_wrongly_typed_spec(runner, copy):
    from handsim.simulate import read_checkpoint

    (copy / "run.json").unlink()
    with np.load(copy / "checkpoint.npz") as z:
        state = {k: z[k] for k in z.files}
    spec = json.loads(bytes(state["__spec__"]))
    spec["lineups"] = "greedy"
    state["__spec__"] = np.frombuffer(json.dumps(spec).encode(), np.uint8)
    np.savez(copy / "checkpoint.npz", **state)
    one_line(run(runner, "simulate", "--resume", copy, "-q"), 2, "'lineups' must be a non-empty array")
    with pytest.raises(ValueError, match="not the string"):
        read_checkpoint(copy / "checkpoint.npz")


@pytest.mark.parametrize("text, frag", [
    ("a = " + DEEP, "too deeply"),
    ("a = " + "{b = " * 3000 + "1" + "}" * 3000, "too deeply"),
    ("a = " + MID, "more than 64 levels"),
    ("[" + ".".join(["t"] * 100) + "]\nx = 1", "more than 64 levels"),
    ("jokers = " + LONG_NUMBER, "too many digits"),
    ("jokers = 4\u200b", "U+200B ZERO WIDTH SPACE"),
    ("jokers\u00a0= 4", "U+00A0 NO-BREAK SPACE"),
    ("\u200ejokers = 4", "U+200E LEFT-TO-RIGHT MARK"),
    ("jokers = 4\njokers = 2", "malformed TOML"),
    ("jokers = [4]", "must be a TOML integer"),
    ("preset = 5", "invalid preset"),
    ("rules = 5", "unknown rule 'rules'"),
    # a key above the [rules] table: it was 'unknown key(s) jokers ... put rule options under [rules]' (jokers is one)
    ("jokers = 4\n[rules]\njoker_penalty = 30", "r.toml: rule option 'jokers' is at top level, outside the [rules] "
     "table that holds the others: a rules file holds its rule options either all at top level or all in its [rules] "
     "table (preset = \"name\" may stand at top level, before the table)"),
    ("colour = 4\npreset = \"saudi\"\n[rules]\njokers = 4", "r.toml: unknown top-level key 'colour' beside the [rules] "
     "table: a rules file holds its rule options either all at top level or all in its [rules] table"),
], ids=["deep-array", "deep-table", "mid", "dotted-100", "long-number", "zwsp", "nbsp", "lrm", "twice", "array",
        "preset-int", "rules-int", "option-beside-the-table", "key-beside-the-table"])
def test_rules_files(runner, tmp_path, text, frag):
    path = tmp_path / "r.toml"
    path.write_text(text + "\n", encoding="utf-8")
    for cmd in (["meld", "5H 6H 7H"], ["arrange", "5H 6H 7H"]):
        one_line(run(runner, *cmd, "--rules", path), 2, frag)
    one_line(run(runner, "simulate", "--rules", path, "--out", path.parent / "never", *STUDY), 2, frag)


def test_rules_file_with_a_byte_order_mark_is_read(runner, tmp_path):
    """Windows editors write a BOM: accepted (jokers = 4 allows four jokers)."""
    path = tmp_path / "bom.toml"
    path.write_bytes(b"\xef\xbb\xbfjokers = 4\n")
    ok(run(runner, "arrange", "JK JK JK 5H", "--rules", path))
    one_line(run(runner, "arrange", "JK JK JK 5H"), 2, "the deck holds only 2 jokers")


def test_policy_files_are_read_by_the_same_reader(runner, tmp_path):
    for text, frag in (("[policy]\nname = " + DEEP, "too deeply"), ("\u200b[policy]", "U+200B"),
                       ("[policy]\nname = \"hold-hand\"\nbail_turn = " + LONG_NUMBER, "too many digits")):
        path = tmp_path / "p.toml"
        path.write_text(text + "\n")
        one_line(run(runner, "show-deal", "--policy", f"@{path}"), 2, frag)
    path.write_bytes(b"\xef\xbb\xbf[policy]\nname = \"hold-hand\"\nbail_turn = 3\n")
    assert json.loads(ok(run(runner, "show-deal", "--policy", f"@{path}", "--players", "2", "--json")).stdout)[
        "policies"] == ["hold-hand:bail_turn=3"] * 2


# ------------------------------------------------------------------------------ damaged checkpoints


def _npz(state: dict) -> bytes:
    import io

    buf = io.BytesIO()
    np.savez(buf, **state)
    return buf.getvalue()


def _damage(study: Path, how: str) -> bytes:
    good = (study / "checkpoint.npz").read_bytes()
    with np.load(study / "checkpoint.npz") as z:
        state = {k: z[k] for k in z.files}
    if how == "truncated":
        return good[:500]
    if how == "empty":
        return b""
    if how == "other-npz":
        return _npz({"a": np.arange(3)})
    if how == "random":
        return np.random.default_rng(1).bytes(3000)
    if how == "pickle":
        import io

        buf = io.BytesIO()
        np.save(buf, np.array([{"a": 1}], dtype=object), allow_pickle=True)
        return buf.getvalue()
    if how == "pickle-in-zip":
        import io

        buf = io.BytesIO()
        np.savez(buf, **dict(state, meta=np.array([{"a": 1}], dtype=object)))
        return buf.getvalue()
    if how == "text":
        return b"checkpoint\n"
    if how == "bad-member":
        data = bytearray(good)
        i = data.find(b"__done__.npy") + 200
        data[i:i + 40] = b"\x00" * 40
        return bytes(data)
    if how == "spec-not-json":
        return _npz(dict(state, __spec__=np.frombuffer(b"{not json", np.uint8)))
    if how == "spec-deep":
        return _npz(dict(state, __spec__=np.frombuffer(DEEP.encode(), np.uint8)))
    if how == "spec-float":
        return _npz(dict(state, __spec__=np.zeros(3)))
    if how == "done-out-of-range":
        return _npz(dict(state, __done__=np.array([0, 99], np.int64)))
    if how == "done-2d":
        return _npz(dict(state, __done__=np.zeros((2, 2), np.int64)))
    if how == "no-meta":
        return _npz({k: v for k, v in state.items() if k != "meta"})
    if how == "meta-not-json":
        return _npz(dict(state, meta=np.frombuffer(b"[[[", np.uint8)))
    if how == "meta-other-format":
        meta = json.loads(bytes(state["meta"]))
        meta["format"] = 1
        return _npz(dict(state, meta=np.frombuffer(json.dumps(meta).encode(), np.uint8)))
    if how == "meta-empty-object":
        return _npz(dict(state, meta=np.frombuffer(b'{"format": 3}', np.uint8)))
    if how == "array-shape":
        from handsim.stats import StudyAccumulator

        name = StudyAccumulator.ARRAYS[0]
        return _npz(dict(state, **{name: state[name][..., None]}))
    if how == "negative-rounds":
        return _npz(dict(state, __rounds__=np.array([-5], np.int64)))
    if how == "zip-bomb-header":
        import io

        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
            zf.writestr("meta.npy", b"\x00" * (2**30 + 10))
        return buf.getvalue()
    raise AssertionError(how)


DAMAGE = ["truncated", "empty", "other-npz", "random", "pickle", "pickle-in-zip", "text", "bad-member",
          "spec-not-json", "spec-deep", "spec-float", "done-out-of-range", "done-2d", "no-meta", "meta-not-json",
          "meta-other-format", "meta-empty-object", "array-shape", "negative-rounds"]


@pytest.mark.parametrize("how", DAMAGE)
def test_damaged_checkpoint(runner, copy, how):
    """report, --resume and --force all read a damaged checkpoint as what it is: one line, exit 2,
    never numpy's advice; --force then deletes nothing (the run.json says study, the checkpoint does
    not agree: the folder is left alone only if neither can be read, so here it is replaced)."""
    (copy / "checkpoint.npz").write_bytes(_damage(copy, how))
    before = tree(copy)
    one_line(run(runner, "report", copy), 2, "checkpoint.npz is not a usable handsim checkpoint")
    one_line(run(runner, "simulate", "--resume", copy, "-q"), 2, "checkpoint.npz is not a usable handsim checkpoint")
    assert tree(copy) == before


def test_zip_bomb_checkpoint_is_not_unpacked(copy):
    from handsim.simulate import StudyError, read_checkpoint

    (copy / "checkpoint.npz").write_bytes(_damage(copy, "zip-bomb-header"))
    with pytest.raises(StudyError, match="would unpack to more than 1024 MB"):
        read_checkpoint(copy / "checkpoint.npz")


def test_force_over_a_study_whose_checkpoint_alone_is_damaged(runner, copy):
    """run.json still says 'a handsim study' and every file is a study's: --force may replace it."""
    (copy / "checkpoint.npz").write_bytes(b"")
    ok(run(runner, "simulate", "--policy", "greedy", "--out", copy, "--force", *STUDY))
    assert (copy / "checkpoint.npz").stat().st_size > 0


# ------------------------------------------------------------------------------ report: the two files must agree


@pytest.mark.parametrize("edit, frag", [
    (lambda j: dict(j, spec=dict(j["spec"], deals=9)), "deals: 9 in run.json, 5 in the checkpoint"),
    (lambda j: dict(j, spec=dict(j["spec"], seed=4)), "seed: 4 in run.json, 3 in the checkpoint"),
    (lambda j: dict(j, spec=dict(j["spec"], rules=dict(j["spec"]["rules"], jokers=4))),
     "rule jokers: 4 in run.json, 2 in the checkpoint"),
    (lambda j: dict(j, spec=dict(j["spec"], lineups=["hold-hand,greedy"])), "lineups:"),
    (lambda j: {k: v for k, v in j.items() if k != "spec"}, 'holds no study "spec"'),
    (lambda j: dict(j, spec=dict(j["spec"], lineups="greedy")), "'lineups' must be a non-empty array"),
], ids=["deals", "seed", "rule", "lineups", "no-spec", "typed"])
def test_report_refuses_run_json_and_checkpoint_of_different_studies(runner, copy, edit, frag):
    run_json = copy / "run.json"
    run_json.write_text(json.dumps(edit(json.loads(run_json.read_text()))))
    before = tree(copy)
    one_line(run(runner, "report", copy), 2, frag)
    assert tree(copy) == before


@pytest.mark.parametrize("edit, frag", [
    (lambda j: dict(j, spec=dict(j["spec"], deals=9)), "(deals: 9 in run.json, 5 in the checkpoint)"),
    (lambda j: dict(j, spec=dict(j["spec"], seed=4)), "(seed: 4 in run.json, 3 in the checkpoint)"),
    (lambda j: dict(j, spec=dict(j["spec"], rules=dict(j["spec"]["rules"], opening_threshold=71))),
     "(rule opening_threshold: 71 in run.json, 51 in the checkpoint)"),
], ids=["deals", "seed", "rule"])
def test_resume_after_an_edited_spec_names_the_field(runner, copy, edit, frag):
    """--resume of a folder whose run.json "spec" was edited names the field, the value found and the
    checkpoint's (it said only 'belongs to a different study'); nothing is run or rewritten."""
    run_json = copy / "run.json"
    run_json.write_text(json.dumps(edit(json.loads(run_json.read_text()))))
    before = tree(copy)
    one_line(run(runner, "simulate", "--resume", copy, "-q"), 2, "belong to different studies", frag)
    assert tree(copy) == before


@pytest.mark.parametrize("edit, frag", [
    (lambda j: dict(j, seed=4), 'its "seed" is 4 but its study "spec" (what the study ran) has 3'),
    (lambda j: dict(j, deals=50), 'its "deals" is 50 but its study "spec" (what the study ran) has 5'),
    (lambda j: dict(j, players=4), 'its "players" is 4 but its study "spec" (what the study ran) has 2'),
    (lambda j: dict(j, seed="3"), 'its "seed" is "3" but its study "spec" (what the study ran) has 3'),
    (lambda j: dict(j, rules=dict(j["rules"], joker_penalty=30)),
     'its rule joker_penalty is 30 but its study "spec" (what the study ran) has 15'),
], ids=["seed", "deals", "players", "typed", "rule"])
@pytest.mark.parametrize("command", ["resume", "from"])
def test_an_edited_record_in_run_json_is_refused_not_rewritten(runner, copy, tmp_path, edit, frag, command):
    """run.json's top-level players / deals / seed / rules are a record of its "spec": a resume used to
    rewrite an edited one silently (and --from ran the spec, not the edit).  Both refuse it with one
    line naming the field, the value found and the spec's; the folder is unchanged.  (report writes no
    run.json and states the spec's values: test_report_leaves_out_wrongly_typed_run_json_fields.)"""
    run_json = copy / "run.json"
    run_json.write_text(json.dumps(edit(json.loads(run_json.read_text()))))
    before = tree(copy)
    args = {"resume": ["simulate", "--resume", copy, "-q"],
            "from": ["simulate", "--from", copy, "--out", tmp_path / "new", "--jobs", "1", "--no-progress", "-q"]}[command]
    one_line(run(runner, *args), 2, f"{run_json}: {frag}", "not its settings")
    assert tree(copy) == before
    assert not (tmp_path / "new").exists()


def test_an_unedited_record_resumes_and_reports(runner, copy):
    """The check refuses only an edit: the study's own run.json resumes (nothing left to play) and reports."""
    ok(run(runner, "simulate", "--resume", copy, "-q"))
    ok(run(runner, "report", copy, "-q"))
    assert json.loads((copy / "run.json").read_text())["seed"] == 3


def test_report_of_another_studys_checkpoint(runner, copy, other_study):
    shutil.copy(other_study / "checkpoint.npz", copy / "checkpoint.npz")
    one_line(run(runner, "report", copy), 2, "belong to different studies", "deals: 5 in run.json, 7 in the checkpoint")


_RUNS = {
    "tournament": (["tournament", "--policy", "greedy", "--policy", "random", "--players", "2", "--deals", "3"],
                   "checkpoint.npz"),
    "tune": (["tune", "hold-hand", "--param", "bail_turn=1:3", "--against", "greedy", "--deals", "3"],
             "stages/search/checkpoint.npz"),
}


@pytest.mark.parametrize("kind", sorted(_RUNS))
def test_resume_and_report_of_another_runs_checkpoint_name_the_field(runner, tmp_path, kind):
    """A tournament's or tuning run's checkpoint swapped for another run's (another seed): --resume
    (the study driver's check, every caller's) and report (the run.json's own) each refuse it in one
    line naming the field that differs and its two values (both said only 'a different study' /
    'another run'); nothing is rewritten."""
    args, ck = _RUNS[kind]
    a, b = tmp_path / "a", tmp_path / "b"
    for out, seed in ((a, "3"), (b, "4")):
        ok(run(runner, *args, "--seed", seed, "--out", out, "--jobs", "1", "--no-progress", "-q"))
    shutil.copy(b / ck, a / ck)
    before = tree(a)
    # (a tuning run's own record of each stage decides first, naming the field too)
    what = {"tournament": ["belong to different tournaments (seed: 3 in run.json, 4 in the checkpoint)"],
            "tune": ["run.json's tuning run has '", "but stage search was played with ", f"({a / ck})"]}[kind]
    one_line(run(runner, "report", a), 2, *what)
    assert tree(a) == before
    # a resume records itself in run.json at once (an interrupted one too): the checkpoint is kept
    resumed = run(runner, kind, "--resume", a, "--jobs", "1", "--no-progress", "-q")
    if kind == "tournament":
        one_line(resumed, 2, f"checkpoint {a / ck} belongs to a different study (seed: 3 in the study resumed, 4 in "
                             "the checkpoint): resume with the same arguments")
    else:
        one_line(resumed, 2, *what)
    assert (a / ck).read_bytes() == before[ck]


def test_resume_of_another_studys_checkpoint_through_the_library_names_the_field(tmp_path):
    """The study driver's own refusal (simulate's library call, every resume's): the field and both values."""
    from handsim.errors import StudyError
    from handsim.study import make_spec, run_study

    def spec(deals):
        return make_spec(lineups=["greedy"], players=2, deals=deals, seed=3, chunk=5)

    out = tmp_path / "s"
    out.mkdir()
    run_study(spec(5), out=out, jobs=1)
    with pytest.raises(StudyError, match=r"^checkpoint .*checkpoint\.npz belongs to a different study \(deals: 7 in "
                                         r"the study resumed, 5 in the checkpoint\): resume with the same arguments$"):
        run_study(spec(7), out=out, resume=True, jobs=1)


def test_report_of_a_russian_checkpoint_in_a_classic_folder(runner, copy, tmp_path):
    """The two games' rules have different fields: still the one-line refusal (was KeyError 'jokers', exit 1)."""
    rus = tmp_path / "rus"
    ok(run(runner, "simulate", "--preset", "russian", "--players", "2", "--seed", "3", "--out", rus, *STUDY))
    shutil.copy(rus / "checkpoint.npz", copy / "checkpoint.npz")
    before = tree(copy)
    one_line(run(runner, "report", copy), 2, "belong to different studies")
    assert tree(copy) == before


def test_report_on_a_folder_of_studies_names_them(runner, study, tmp_path):
    parent = tmp_path / "many"
    for name in ("p3", "p2"):
        shutil.copytree(study, parent / name)
    one_line(run(runner, "report", parent), 2, f"{parent} is not a study folder but holds 2 of them",
             f"e.g. handsim report {parent / 'p2'} ({parent / 'p2'}, {parent / 'p3'})")
    one_line(run(runner, "report", tmp_path), 2, "holds 2 of them")  # two levels down
    (parent / "p2" / "checkpoint.npz").unlink()
    (parent / "p3" / "checkpoint.npz").unlink()
    one_line(run(runner, "report", parent), 2, "is not a study folder: no checkpoint.npz")


def test_report_leaves_out_wrongly_typed_run_json_fields(runner, copy):
    run_json = copy / "run.json"
    info = json.loads(run_json.read_text())
    info.update(seconds="fast", rounds_per_s=[1], command={"x": 1}, version=7, policies=["greedy"], deals="five")
    run_json.write_text(json.dumps(info))
    ok(run(runner, "report", copy))
    text = (copy / "report.md").read_text(encoding="utf-8")
    assert "fast" not in text and "**Deals:** 5 per configuration" in text
    assert json.loads(run_json.read_text())["deals"] == "five"  # report rewrites no run.json field


# ------------------------------------------------------------------------------ file-system trouble


def test_non_utf8_bytes_in_arguments(tmp_path):
    """A non-UTF-8 byte in --out (or any argument): one line, exit 2, and no folder half-written."""
    out = os.fsencode(tmp_path) + b"/st\xffudy"
    p = program("simulate", "--policy", "greedy", "--out", out, *STUDY)
    one_line(p, 2, "is not UTF-8 text", "st\\xffudy")
    assert list(tmp_path.iterdir()) == []
    one_line(program("arrange", b"5H 6H 7\xe9H"), 2, "argument 2", "not UTF-8")
    one_line(program("check", b"/tmp/caf\xe9.jsonl"), 2, "not UTF-8")


@pytest.mark.parametrize("args", [["rules"], ["rules", "--markdown"], ["policies"], ["--version"], ["--help"],
                                  ["arrange", "QH KH AH"], ["meld", "5H 6H 7H"], ["show-deal", "--players", "2"],
                                  ["show-deal", "--players", "2", "--json"]])
def test_full_device(args):
    """handsim rules > /dev/full: one line, exit 1."""
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full here")
    with open("/dev/full", "w") as full:
        one_line(program(*args, stdout=full), 1, "cannot write to standard output", "No space left on device")


@pytest.mark.parametrize("args", [["show-deal", "--json"], ["rules"], ["policies"], ["--version"],
                                  ["arrange", "QH KH AH", "--json"], ["score", "-"]])
def test_closed_standard_output(args):
    """handsim show-deal --json >&- : exit 1, one line, not a silent 0."""
    stdin = '{"out": 1, "hand_finish": false, "hands": ["KS", ""], "opened": [true, true]}'
    p = program(*args, input=stdin if args[0] == "score" else None, preexec_fn=lambda: os.close(1),
                stdout=None)
    one_line(p, 1, "cannot write to standard output: it is closed")


def test_closed_standard_output_is_fine_when_nothing_is_printed(tmp_path):
    p = program("simulate", "--policy", "greedy", "--out", tmp_path / "q", *STUDY, preexec_fn=lambda: os.close(1),
                stdout=None)
    assert p.returncode == 0 and p.stderr == ""


def test_reader_gone_from_the_pipe_is_quiet():
    """handsim rules | head -0: the reader closed the pipe first; no message, no traceback."""
    r, w = os.pipe()
    os.close(r)
    try:
        p = program("rules", stdout=w)
    finally:
        os.close(w)
    assert p.returncode == 1 and p.stderr == ""


@pytest.mark.parametrize("command", ["report", "resume"])
def test_read_only_study_folder(runner, copy, monkeypatch, command):
    """A study folder handsim may not write to (read-only, immutable): one line, exit 1."""
    import handsim._io

    real_open = os.open

    def refuse(path, *a, **kw):
        if str(path).endswith(handsim._io.LOCK_NAME):
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(path, *a, **kw)

    monkeypatch.setattr(handsim._io.os, "open", refuse)
    before = tree(copy)
    args = ["report", copy] if command == "report" else ["simulate", "--resume", copy, "-q"]
    one_line(run(runner, *args), 1, f"cannot write {copy}: Permission denied")
    assert tree(copy) == before


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only folders")
def test_read_only_study_folder_for_real(copy):  # pragma: no cover - CI runs as root here
    os.chmod(copy, 0o555)
    try:
        one_line(program("report", copy), 1, "Permission denied")
        one_line(program("simulate", "--resume", copy, "-q"), 1, "Permission denied")
    finally:
        os.chmod(copy, 0o755)


@pytest.mark.parametrize("name", ["report.md", "report.html", "summary.csv", "a figure"])
def test_a_folder_where_an_output_file_belongs(runner, copy, name):
    if name == "a figure":
        name = sorted(p.name for p in copy.glob("*.png"))[0]
    (copy / name).unlink()
    (copy / name).mkdir()
    (copy / name / "mine.txt").write_text("keep\n")
    one_line(run(runner, "report", copy), 1, f"cannot write {copy / name}", "directory")
    assert (copy / name / "mine.txt").read_text() == "keep\n"
    assert not [p for p in copy.iterdir() if p.name.endswith(".tmp")]  # no temporary file left behind


def test_write_error_in_the_library_names_the_file(tmp_path):
    from handsim._io import WriteError, atomic_write

    (tmp_path / "x").mkdir()
    with pytest.raises(WriteError, match=r"cannot write .*/x: Is a directory"):
        atomic_write(tmp_path / "x", b"data")
    with pytest.raises(WriteError, match="No such file or directory"):
        atomic_write(tmp_path / "missing" / "y", b"data")


def test_atomic_write_takes_a_writer(tmp_path):
    """A function that writes to the open file (a checkpoint: np.savez straight into it, not into
    a buffer first); one that fails leaves the old file and no temporary file."""
    from handsim._io import atomic_write

    atomic_write(tmp_path / "z", lambda f: (f.write(b"ab"), f.write(b"cd")))
    assert (tmp_path / "z").read_bytes() == b"abcd"

    def half(f):
        f.write(b"torn")
        raise RuntimeError("stopped half way")

    with pytest.raises(RuntimeError, match="half way"):
        atomic_write(tmp_path / "z", half)
    assert (tmp_path / "z").read_bytes() == b"abcd"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["z"]


# ------------------------------------------------------------------------------ Ctrl-C outside simulate


@pytest.mark.parametrize("args, target", [
    (["report", "{study}"], "handsim.stats.StudyAccumulator.write_report"),
    (["show-deal", "--players", "2"], "handsim.games.hand.trace.trace_deal"),
    (["arrange", "QH KH AH"], "handsim.games.hand.arrange.arrange"),
    (["meld", "QH KH AH"], "handsim.melds.interpret_meld"),
    (["check", "{trace}"], "handsim.movelog.check_file"),
    (["score", "{score}"], "handsim.games.hand.scoring.round_end_from_json"),
    (["rules"], "handsim.games.hand.rules.Rules.preset"),
])
def test_ctrl_c_is_exit_130(runner, monkeypatch, tmp_path, copy, args, target):
    """Ctrl-C while any command works: 'Interrupted.', exit 130 (not click's 'Aborted!', exit 1)."""
    def interrupted(*a, **kw):
        raise KeyboardInterrupt

    monkeypatch.setattr(target, interrupted)
    trace = tmp_path / "t.jsonl"
    trace.write_text('{"players": 2, "rules": {"jokers": 2}, "dealer": 0, "starter": 1, "deck": [], "events": [], '
                     '"result": {}}\n')
    score = tmp_path / "s.json"
    score.write_text('{"out": 1, "hand_finish": false, "hands": ["KS", ""], "opened": [true, true]}')
    args = [a.format(study=copy, trace=trace, score=score) for a in args]
    assert one_line(run(runner, *args), 130) == "Interrupted."


def test_real_sigint_during_report(copy):
    """A real SIGINT arriving while handsim report draws (the child restores Python's default
    handler first: a child of a background job starts with SIGINT ignored)."""
    code = textwrap.dedent(f"""
        import os, signal
        signal.signal(signal.SIGINT, signal.default_int_handler)
        import handsim.stats
        def draw(self, *a, **kw):
            import time
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(600)  # the interrupt ends the wait
            raise AssertionError("the interrupt did not arrive")
        handsim.stats.StudyAccumulator.write_report = draw
        from handsim.cli import main
        main(["report", {str(copy)!r}])
    """)
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    p = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=600)
    assert one_line(p, 130) == "Interrupted."
    assert not (copy / ".handsim.lock").exists()


# ------------------------------------------------------------------------------ arrange is bounded


def _cards(n: int) -> str:
    """``n`` natural cards (n <= 104): every card once, then the second copies."""
    from handsim.cards import format_card

    return " ".join(format_card(t) for t in (list(range(52)) * 2)[:n])


@pytest.mark.parametrize("n, settings, code", [
    (15, [], 0), (16, [], 2), (21, ["--set", "hand_size=20"], 0), (22, ["--set", "hand_size=20"], 2),
    (60, [], 2), (104, [], 2),
])
def test_arrange_takes_at_most_hand_size_plus_one_cards(runner, n, settings, code):
    result = run(runner, "arrange", _cards(n), *settings, "--json")
    if code == 0:
        assert ok(result) and json.loads(result.stdout)["max_melded_value"] > 0
    else:
        one_line(result, 2, f"{n} cards, but a player holds at most hand_size + 1")


def test_whole_deck_is_refused_at_once_by_the_real_program():
    from handsim.cards import format_card

    deck = " ".join(format_card(t) for t in list(range(52)) * 2) + " JK JK"
    one_line(program("arrange", deck, timeout=120), 2, "106 cards")


def test_arrange_library_bound():
    from handsim.games.hand.arrange import MAX_CARDS, arrange
    from handsim.cards import CardError

    assert MAX_CARDS == 21
    with pytest.raises(CardError, match="22 cards: the arrangement search takes at most 21"):
        arrange(list(range(22)))


# ------------------------------------------------------------------------------ silent acceptance


@pytest.mark.parametrize("args, frag", [
    (["--policy", ""], "unknown policy ''"),
    (["--policy", "  "], "unknown policy ''"),
    (["--lineup", ""], "empty policy in line-up ''"),
    (["--lineup", ","], "empty policy"),
    (["--lineup", "greedy,"], "empty policy"),
    (["--lineup", ",greedy,greedy"], "empty policy"),
    (["--lineup", "greedy,,greedy"], "empty policy"),
    (["--policy", "", "--lineup", ""], "either --policy or --lineup"),
])
def test_show_deal_refuses_empty_policies(runner, args, frag):
    one_line(run(runner, "show-deal", *args), 2, frag)


@pytest.mark.parametrize("value", ["1e1", "1_0", "0x10", "8.0", "8.", ".8", "\u0668", "inf", "nan", "", "+", "-",
                                   "1e400", "9" * 500, " 8 8", "8\u200b", "٫8", "１０"])
def test_policy_parameters_are_plain_whole_numbers(runner, tmp_path, value):
    for cmd in (["show-deal"], ["simulate", "--out", tmp_path / "never", *STUDY]):
        line = one_line(run(runner, *cmd, "--policy", f"hold-hand:bail_turn={value}"), 2, "hold-hand:bail_turn")
        assert "expected a whole number from 1 to 1000" in line


@pytest.mark.parametrize("text", ["hold-hand:bail_turn=8,bail_turn=9", "hold-hand:bail_turn=8,bail-turn=8",
                                  "hold-hand:bail_turn=8,bail_opponent_cards=3,bail_turn=8"])
def test_policy_parameter_given_twice(runner, tmp_path, text):
    one_line(run(runner, "show-deal", "--policy", text), 2, "parameter bail_turn is given twice")
    one_line(run(runner, "simulate", "--lineup", f"{text},greedy", "--out", tmp_path / "never", *STUDY), 2,
             "given twice")


def test_policy_parameters_still_accept_plain_numbers(runner):
    trace = json.loads(ok(run(runner, "show-deal", "--players", "2", "--policy", "hold-hand:bail_turn=+08", "--json")).stdout)
    assert trace["policies"] == ["hold-hand:bail_turn=8"] * 2


@pytest.mark.parametrize("args, frag", [
    (["--rounds", "3", "--set", "rounds=5"], "--rounds 3 contradicts --set rounds=5"),
    (["--standings", "last-loses", "--set", "standings=lowest_wins"], "contradicts --set standings=lowest_wins"),
    (["--set", "jokers=2", "--set", "jokers=4"], "--set jokers is given twice"),
    (["--set", "jokers=2", "--set", "jokers=2"], "--set jokers is given twice"),
    (["--set", "joker-penalty=20", "--set", "joker_penalty=30"], "--set joker_penalty is given twice"),
    (["--set", "opening_threshold=71", "--threshold", "51", "--threshold", "91"],
     "opening_threshold is both fixed (--set opening_threshold=...) and varied (--threshold)"),
    (["--set", "joker_penalty=30", "--joker-penalty", "15", "--joker-penalty", "30"], "varied (--joker-penalty)"),
    (["--set", "jokers=4", "--vary", "jokers=2,4"], "jokers is both fixed"),
    (["--players", "2v2", "--set", "partnership=false"], "partnership=false"),
    # a repeated value or line-up was dropped silently (the study had fewer configurations than asked)
    (["--vary", "jokers=2,2"], "jokers is varied over 2 twice: give each value once"),
    (["--vary", "jokers=2,4,02"], "jokers is varied over the same value twice (2 and 02): give each value once"),
    (["--threshold", "51", "--threshold", "71", "--threshold", "51"], "opening_threshold is varied over 51 twice"),
    (["--vary", "joker_swap=true,false,True"], "joker_swap is varied over the same value twice (true and True)"),
    (["--lineup", "greedy,random", "--lineup", "greedy,random"],
     "line-up 'greedy,random' is given twice: give each line-up once"),
    (["--seed", "1", "--seed", "2"], "--seed is given twice (--seed 1 and --seed 2): give it once"),
])
def test_contradicting_options_are_refused(runner, tmp_path, args, frag):
    one_line(run(runner, "simulate", *args, "--out", tmp_path / "never", *STUDY), 2, frag)
    assert not (tmp_path / "never").exists()


def test_an_option_of_one_value_given_twice_is_refused_unless_it_is_the_same(runner, tmp_path, spec_seen):
    """--resume A --resume B resumed B (click keeps the last value of an option that takes one);
    every command refuses it, before anything is read; the same value twice says one thing."""
    a, b = tmp_path / "a", tmp_path / "b"
    one_line(run(runner, "simulate", "--resume", a, "--resume", b), 2,
             f"--resume is given twice (--resume {a} and --resume {b}): give it once (see 'handsim simulate --help')")
    one_line(run(runner, "tournament", "--resume", a, "--resume=" + str(b)), 2, f"--resume is given twice (--resume {a} "
             f"and --resume {b}): give it once")
    one_line(run(runner, "report", a, "--format", "md", "--format", "html"), 2,
             "--format is given twice (--format md and --format html)")
    # a value that looks like the option is a value, not the option again
    one_line(run(runner, "simulate", "--lineup", "greedy,greedy", "--out", "--out", "--out", tmp_path / "x", *STUDY), 2,
             f"--out is given twice (--out --out and --out {tmp_path / 'x'})")
    run(runner, "simulate", "--seed", "3", "--seed", "3", "--out", tmp_path / "same", *STUDY)
    assert spec_seen["spec"].seed == 3


@pytest.mark.parametrize("cmd", [["meld", "5H 6H 7H"], ["arrange", "5H 6H 7H"], ["score", "-"], ["show-deal"]])
def test_set_given_twice_in_every_command(runner, cmd):
    one_line(run(runner, *cmd, "--set", "jokers=2", "--set", "jokers=3", input="{}"), 2, "--set jokers is given twice")


def test_the_same_value_twice_is_no_contradiction(runner, tmp_path, spec_seen):
    """--rounds 5 --set rounds=5 says one thing twice: a match study of 5 rounds."""
    seen = spec_seen
    run(runner, "simulate", "--rounds", "5", "--set", "rounds=5", "--out", tmp_path / "a", *STUDY)
    assert seen["spec"].matches and seen["spec"].rules.rounds == 5
    run(runner, "simulate", "--players", "2v2", "--set", "partnership=true", "--out", tmp_path / "b", *STUDY)
    assert seen["spec"].rules.partnership


@pytest.mark.parametrize("args, frag", [
    (["--lineup", "greedy,greedy,greedy,greedy,greedy,greedy"],
     "line-up 'greedy,greedy,greedy,greedy,greedy,greedy' has 6 policies: allowed 2 to 5"),
    (["--lineup", "greedy"], "has 1 policy: allowed 2 to 5"),
    (["--lineup", "greedy,greedy,greedy,greedy", "--lineup", "greedy,greedy,greedy"],
     "'greedy,greedy,greedy' has 3 policies but the first --lineup has 4"),
    (["--lineup", "greedy,greedy,greedy", "--players", "2"], "has 3 policies but --players is 2"),
    (["--lineup", "greedy,greedy,greedy", "--players", "2v2"], "but --players is 2v2 (4 seats)"),
])
def test_line_up_length_is_blamed_on_the_line_up(runner, tmp_path, args, frag):
    line = one_line(run(runner, "simulate", *args, "--out", tmp_path / "never", *STUDY), 2, frag)
    assert "invalid players" not in line


@pytest.mark.parametrize("cards, same_as", [
    ("5♥️ 6♥️ 7♥️", "5H 6H 7H"), ("5♥︎ 6♥︎ 7♥︎", "5H 6H 7H"), ("Q♠️ K♠️ A♠️", "QS KS AS"),
    ("🃏️ 5♦ 6♦", "JK 5D 6D"), ("10♣️ J♣️ Q♣️", "10C JC QC"),
])
def test_emoji_suits_read_as_the_suit(runner, cards, same_as):
    """U+FE0F (emoji) or U+FE0E (text) presentation after a suit symbol, as phones type it: the
    same card (accepted on purpose)."""
    a = json.loads(ok(run(runner, "meld", cards, "--json")).stdout)
    assert a == json.loads(ok(run(runner, "meld", same_as, "--json")).stdout)
    assert json.loads(ok(run(runner, "arrange", cards, "--json")).stdout) == \
        json.loads(ok(run(runner, "arrange", same_as, "--json")).stdout)


@pytest.mark.parametrize("card, name", [
    ("5\u200b♥", "U+200B ZERO WIDTH SPACE"), ("5H\u200d", "U+200D ZERO WIDTH JOINER"), ("\ufeff5H", "U+FEFF"),
    ("5H\u00ad", "U+00AD SOFT HYPHEN"), ("5\u200fH", "U+200F RIGHT-TO-LEFT MARK"), ("5\ufe0fH", "U+FE0F VARIATION SELECTOR-16"),
    ("5H\u0301", "U+0301 COMBINING ACUTE ACCENT"), ("5H\x07", "U+0007"), ("5H\ue000", "U+E000"),
])
def test_invisible_characters_in_cards_are_named(runner, card, name):
    for cmd in ("meld", "arrange"):
        one_line(run(runner, cmd, f"{card} 6H 7H"), 2, "bad card", name)


def test_show_deal_round_that_never_happened(runner):
    """A match that ended after its regular rounds has no tie-break round; one that needed
    tie-breaks has exactly those (counted by the engine that plays match studies).  Random play
    with no reshuffle leaves void rounds (everyone 0: a tie) often enough to need tie-breaks."""
    from handsim.policies import lineup_arrays, parse_policy
    from handsim.games.hand.rules import Rules
    from handsim.simulate import run_match_chunk

    rules = Rules.preset("classic", rounds=1, max_reshuffles=0)
    pol, pp = lineup_arrays([parse_policy("random")] * 2)
    tiebreaks = [int(run_match_chunk(rules.to_vector(), pol, pp, 2, 0, m, 1)["tiebreaks"][0]) for m in range(30)]
    args = ["show-deal", "--players", "2", "--policy", "random", "--set", "rounds=1", "--set", "max_reshuffles=0"]
    plain = tiebreaks.index(0)
    one_line(run(runner, *args, "--deal", plain, "--round", 2), 2,
             f"match {plain} (seed 0) ended after round 1 (1 regular round, no tie-break needed): allowed --round 1..1")
    tied = next(m for m, t in enumerate(tiebreaks) if t > 0)
    n = 1 + tiebreaks[tied]
    trace = json.loads(ok(run(runner, *args, "--deal", tied, "--round", n, "--json")).stdout)
    assert (trace["match"], trace["round"]) == (tied, n - 1)
    one_line(run(runner, *args, "--deal", tied, "--round", n + 1), 2,
             f"match {tied} (seed 0) ended after round {n} (1 regular round and {n - 1} tie-break round",
             f"allowed --round 1..{n}")


# ------------------------------------------------------------------------------ every command, odd input


@pytest.mark.parametrize("args, frag", [
    (["meld", ""], "no cards given"), (["meld", " \t "], "no cards given"), (["meld", "JKK"], "bad card 'JKK'"),
    (["meld", "5X 6H 7H"], "bad card '5X'"), (["meld", "11H 6H 7H"], "bad card '11H'"), (["meld", "1H 2H 3H"], "bad card '1H'"),
    (["meld", "0H 2H 3H"], "bad card '0H'"), (["meld", "10 J Q"], "bad card '10'"), (["meld", "H"], "bad card 'H'"),
    (["meld", "5♥♥ 6H"], "bad card '5♥♥'"), (["meld", "Z" * 10000], "bad card 'ZZZZ"), (["meld", "5H 5H 5H"], "appears 3 times"),
    (["meld", "JK JK JK"], "only 2 jokers"), (["arrange", ""], "no cards given"), (["arrange", "5H,,6H,7H"], None),
    (["show-deal", "--seed", "-1"], "--seed"), (["show-deal", "--seed", str(2**63)], "out of range"),
    (["show-deal", "--deal", "1e3"], "not an integer"), (["show-deal", "--players", "6"], "--players"),
    (["show-deal", "--players", "2v2", "--lineup", "greedy,greedy,greedy"], "3 policies but --players is 4"),
    (["show-deal", "--round", "0"], "--round"), (["show-deal", "--round", str(10**7)], "--round"),
    (["show-deal", "--preset", "bogus"], "bogus"), (["show-deal", "--set", "nope=1"], "unknown rule 'nope'"),
    (["show-deal", "--set", "=1"], "unknown rule ''"), (["show-deal", "--set", "jokers"], "expected key=value"),
    (["show-deal", "--set", "jokers=" + "9" * 5000], "jokers"),
    (["check", "{empty}"], "holds no deal"), (["check", "{blank}"], "holds no deal"), (["check", "{dir}"], "directory"),
    (["check", "{binary}"], "not UTF-8"), (["report", "{file}"], "is a file"), (["report", "{dir}"], "no checkpoint.npz"),
    (["rules", "--preset", "bogus"], "bogus"), (["score", "{dir}"], "directory"), (["score", "{binary}"], "not UTF-8"),
    (["simulate", "--deals", "0"], "out of range"), (["simulate", "--deals", "-1"], "out of range"),
    (["simulate", "--deals", "1e3"], "not an integer"), (["simulate", "--deals", str(10**13)], "out of range"),
    (["simulate", "--deals", "\u0663"], "not an integer"), (["simulate", "--chunk", "0"], "out of range"),
    (["simulate", "--jobs", "0"], "out of range"), (["simulate", "--jobs", "513"], "out of range"),
    (["simulate", "--seed", str(2**63)], "out of range"), (["simulate", "--trace", "-1"], "out of range"),
    (["simulate", "--trace", "9", "--deals", "5"], "more than the 5 deals"),
    (["simulate", "--vary", "jokers"], "expected KEY=V1,V2"), (["simulate", "--vary", "jokers="], "expected KEY=V1,V2"),
    (["simulate", "--vary", "jokers=2,,4"], "expected KEY=V1,V2"), (["simulate", "--vary", "nope=1,2"], "unknown rule 'nope'"),
    (["simulate", "--scheduler", "tcp://"], "scheduler address"), (["simulate", "--scheduler", "nohost:0"], "port"),
    (["simulate", "--from", "{file}", "--resume", "{dir}"], "either --resume or --from"),
    (["simulate", "--from", "{dir}"], "no run.json in that folder"),
    (["simulate", "--resume", "{dir}"], "no run.json or checkpoint.npz"),
])
def test_odd_input_to_every_command(runner, tmp_path, args, frag):
    files = {"empty": tmp_path / "empty.jsonl", "blank": tmp_path / "blank.jsonl", "dir": tmp_path / "d",
             "binary": tmp_path / "bin.dat", "file": tmp_path / "f.json"}
    files["empty"].write_text("")
    files["blank"].write_text("\n \n\t\n")
    files["dir"].mkdir()
    files["binary"].write_bytes(b"\x80\x81\xfe\xff")
    files["file"].write_text("{}")
    args = [a.format(**files) for a in args]
    if args[0] == "simulate" and "--resume" not in args:
        args += ["--out", str(tmp_path / "never"), "-q"]
    result = run(runner, *args)
    if frag is None:  # odd but valid
        ok(result)
    else:
        one_line(result, 2, frag)
    assert not (tmp_path / "never").exists()
