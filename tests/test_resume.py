"""Interruption and resume: a real `handsim simulate` process is stopped at an exact point (SIGKILL,
SIGINT to its whole process group as a terminal's Ctrl-C sends it, SIGTERM), resumed with
--resume, and its summary.csv must be byte-identical to an uninterrupted run's.

Nothing here races the clock: the test-only hook ``$HANDSIM_TEST_HOLD_AFTER=N`` makes the study
checkpoint and hold after N finished chunks, says so on stderr, and waits for the signal.  The child
gets default SIGINT handling explicitly (a test run started in the background of a script inherits
an ignored SIGINT, which a child would keep) and a process group of its own.
"""

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from handsim.simulate import CHECKPOINT, TEST_HOLD_ENV

DEALS, CHUNK = 2000, 250
N_CHUNKS = DEALS // CHUNK
ARGS = ["--lineup", "hold-hand,greedy,greedy", "--threshold", "51", "--threshold", "71",
        "--deals", str(DEALS), "--chunk", str(CHUNK), "--seed", "5", "--no-progress", "-q"]
HOLD_LINE = "handsim: test hold after "
#: Only a guard against a hung child (a broken test), never a measure: a loaded machine may take
#: minutes for what takes seconds alone.
HANG_GUARD = 1800


@contextlib.contextmanager
def sigint_for_children(handler):
    """Children started inside inherit SIGINT as default (``handler`` a Python function: it is reset
    to default at exec) or ignored (``signal.SIG_IGN``), whatever this process had."""
    old = signal.signal(signal.SIGINT, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, old)


def _env(**extra):
    env = dict(os.environ)
    env.pop(TEST_HOLD_ENV, None)
    env.update(extra)
    return env


def _run(args):
    return subprocess.run([sys.executable, "-m", "handsim", "simulate", *args], env=_env(), stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=HANG_GUARD)


def _start_held(args, hold: int, sigint=signal.default_int_handler, command: str = "simulate"):
    """Start a study (``handsim COMMAND``) that holds after ``hold`` finished chunks; return it once
    it holds, with its stderr so far."""
    with sigint_for_children(sigint):
        p = subprocess.Popen([sys.executable, "-m", "handsim", command, *args], env=_env(**{TEST_HOLD_ENV: str(hold)}),
                             stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                             start_new_session=True)
    lines = []
    guard = threading.Timer(HANG_GUARD, p.kill)  # a hung child ends, and the test fails, showing its stderr
    guard.start()
    try:
        for line in p.stderr:  # blocks until the child says it holds (or ends)
            lines.append(line)
            if HOLD_LINE in line:  # a progress bar may share the line
                break
        else:
            p.wait()
            pytest.fail(f"the study ended (exit {p.returncode}) without holding; stderr:\n{''.join(lines)}")
    finally:
        guard.cancel()
    return p, lines


def _finish(p, lines) -> str:
    """Wait for the child; all of its stderr."""
    try:
        _, rest = p.communicate(timeout=HANG_GUARD)
    except subprocess.TimeoutExpired:
        p.kill()
        _, rest = p.communicate()
        pytest.fail(f"the study did not stop; stderr:\n{''.join(lines) + rest}")
    return "".join(lines) + rest


def _done_chunks(out: Path) -> list[int]:
    with np.load(out / CHECKPOINT) as z:
        return sorted(int(i) for i in z["__done__"])


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    out = tmp_path_factory.mktemp("ref") / "study"
    r = _run([*ARGS, "--jobs", "1", "--out", str(out)])
    assert r.returncode == 0, r.stderr
    return (out / "summary.csv").read_bytes()


CASES = {
    # name: (signal, sent to, jobs, hold after N chunks, SIGINT of the child, exit code, more options)
    "SIGKILL": (signal.SIGKILL, "group", 1, 3, signal.default_int_handler, -signal.SIGKILL, []),
    "SIGINT": (signal.SIGINT, "group", 1, 3, signal.default_int_handler, 130, []),
    "SIGINT-2-jobs": (signal.SIGINT, "group", 2, 3, signal.default_int_handler, 130, []),
    "SIGINT-progress-bar": (signal.SIGINT, "group", 2, 3, signal.default_int_handler, 130, ["--progress"]),
    "SIGINT-after-the-last-chunk": (signal.SIGINT, "group", 1, N_CHUNKS, signal.default_int_handler, 130, []),
    # started with '&' in a script: SIGINT ignored, as the shell asks; `kill PID` stops it
    "SIGTERM-background": (signal.SIGTERM, "process", 2, 3, signal.SIG_IGN, 143, []),
}


@pytest.mark.parametrize("case", list(CASES))
def test_stopped_run_resumes_to_identical_summary(tmp_path, reference, case):
    sig, target, jobs, hold, sigint, code, more = CASES[case]
    out = tmp_path / "study"
    p, lines = _start_held([*ARGS, *more, "--jobs", str(jobs), "--out", str(out)], hold, sigint)
    held = _done_chunks(out)  # checkpointed before the hold; 2 workers may finish chunks out of order
    assert (held == list(range(hold))) if jobs == 1 else (len(held) == hold), "".join(lines)
    if target == "group":
        os.killpg(p.pid, sig)  # as a terminal's Ctrl-C: the study and its worker processes
    else:
        p.send_signal(sig)
    err = _finish(p, lines)
    assert p.returncode == code, err
    assert _done_chunks(out) == held, err  # exactly what was finished: nothing lost, nothing half-merged
    assert not (out / "summary.csv").exists(), err  # no half-study passed off as a result
    if code > 0:
        word = "Terminated" if sig == signal.SIGTERM else "Interrupted"
        assert f"\n{word}: partial results are checkpointed in {out}; 'handsim simulate --resume {out}' continues.\n" \
            in err, err
        assert "Traceback" not in err and "Error" not in err, err  # also nothing from the worker processes
    r = _run(["--resume", str(out)])
    assert r.returncode == 0, r.stderr
    assert (out / "summary.csv").read_bytes() == reference, r.stderr
    # without --jobs the resume uses the recorded jobs (was: all cores), and its speed counts only its own
    # rounds: each chunk is 250 deals x 2 configurations = 500 rounds
    lines = r.stdout.splitlines()
    job_text = f"{jobs} job{'s' if jobs != 1 else ''}"
    assert lines[0].endswith(f", {job_text} -> {out}"), lines[0]
    assert json.loads((out / "run.json").read_text())["jobs"] == jobs
    speed = next(line for line in lines if line.startswith("Speed: "))
    loaded, now = 500 * len(held), 500 * (N_CHUNKS - len(held))
    if now:
        assert f" rounds/s ({now:,} rounds played now in " in speed, speed
        assert speed.endswith(f" s; {loaded:,} rounds loaded from the checkpoint), {job_text}"), speed
    else:
        assert speed == f"Speed: no rounds played now (all {loaded:,} rounds loaded from the checkpoint), {job_text}"


@pytest.mark.parametrize("command, args", [
    ("tournament", ["--policy", "greedy", "--policy", "random", "--players", "3", "--deals", "400", "--chunk", "50"]),
    ("tune", ["hold-hand", "--param", "bail_turn=1:9:4", "--deals", "400", "--chunk", "50", "--confirm-deals", "100"]),
])
def test_kill_stops_a_tournament_or_a_tuning_run_like_ctrl_c(tmp_path, command, args):
    """`kill PID` (SIGTERM) on tournament / tune: it used to kill the main process outright, keep
    none of the finished chunks and leave the worker processes running (found by a review)."""
    out = tmp_path / "run"
    p, lines = _start_held([*args, "--seed", "3", "--jobs", "2", "--no-progress", "-q", "--out", str(out)], 2,
                           signal.SIG_IGN, command=command)
    p.send_signal(signal.SIGTERM)  # the main process only, as `kill PID` does
    err = _finish(p, lines)
    assert p.returncode == 143, err
    assert f"\nTerminated: finished work is checkpointed in {out}; 'handsim {command} --resume {out}' continues.\n" \
        in err, err
    assert "Traceback" not in err and "Error" not in err, err
    with pytest.raises(ProcessLookupError):  # no worker process left in its process group
        for _ in range(50):
            os.killpg(p.pid, 0)
            threading.Event().wait(0.1)
    r = subprocess.run([sys.executable, "-m", "handsim", command, "--resume", str(out), "--no-progress", "-q"],
                       env=_env(), stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=HANG_GUARD)
    assert r.returncode == 0, r.stderr


def test_interrupt_before_any_finished_chunk_leaves_nothing_to_resume(tmp_path):
    out = tmp_path / "study"
    p, lines = _start_held([*ARGS, "--jobs", "1", "--out", str(out)], 0)
    os.killpg(p.pid, signal.SIGINT)
    err = _finish(p, lines)
    assert p.returncode == 130, err
    assert err.endswith(f"\nInterrupted before any work was finished: nothing to resume in {out}.\n"), err
    assert not (out / CHECKPOINT).exists(), err


def test_recorded_jobs_come_from_the_checkpoint_else_run_json(tmp_path):
    """What 'simulate --resume' uses without --jobs: the last invocation's jobs, kept in the checkpoint's run
    history; a finished study's run.json says it too; a value that cannot be jobs counts as none."""
    from handsim.simulate import make_spec, recorded_jobs, run_study

    spec = make_spec(lineups=["greedy,greedy"], players=2, deals=20, seed=1, chunk=10)
    (tmp_path / "a").mkdir()
    run_study(spec, jobs=3, executor="inline", out=tmp_path / "a", command="handsim simulate --jobs 3")
    assert recorded_jobs(tmp_path / "a") == 3
    run_study(spec, jobs=1, executor="inline", out=tmp_path / "a", resume=True, command="handsim simulate --resume a")
    assert recorded_jobs(tmp_path / "a") == 1  # the latest invocation's
    for i, (run_json, want) in enumerate([({"jobs": 5}, 5), ({"jobs": True}, None), ({"jobs": 0}, None),
                                          ({"jobs": "2"}, None), ([], None)]):
        folder = tmp_path / f"r{i}"
        folder.mkdir()
        (folder / "run.json").write_text(json.dumps(run_json))
        assert recorded_jobs(folder) == want, run_json
    (tmp_path / "r0" / CHECKPOINT).write_bytes(b"damaged")  # damage is the resume's to report
    assert recorded_jobs(tmp_path / "r0") == 5
    assert recorded_jobs(tmp_path / "none") is None


def test_signal_while_a_chunk_is_merged_is_acted_on_after_it(tmp_path, monkeypatch):
    """A SIGINT that lands between a finished chunk's merge and its entry in the checkpoint's list
    of finished chunks must wait for both (else the resumed study counts that chunk twice)."""
    from handsim.simulate import make_spec, run_study
    from handsim.stats import StudyAccumulator

    spec = make_spec(vary={"opening_threshold": [51, 71]}, lineups=["hold-hand,greedy,greedy"], players=3,
                     deals=60, seed=5, chunk=10)
    reference = run_study(spec, jobs=1, executor="inline").summary
    merge = StudyAccumulator.add_chunk
    merged = []

    def merge_then_signal(self, blocks):
        merge(self, blocks)
        merged.append(len(merged))
        if len(merged) == 3:
            os.kill(os.getpid(), signal.SIGINT)
            for _ in range(3):  # Python runs the signal's handler here at the latest
                pass

    monkeypatch.setattr(StudyAccumulator, "add_chunk", merge_then_signal)
    with sigint_for_children(signal.default_int_handler), pytest.raises(KeyboardInterrupt):
        run_study(spec, jobs=1, executor="inline", out=tmp_path, checkpoint_every=3600)
    assert _done_chunks(tmp_path) == [0, 1, 2]
    monkeypatch.undo()
    resumed = run_study(spec, jobs=1, executor="inline", out=tmp_path, resume=True).summary
    pd.testing.assert_frame_equal(resumed, reference, check_exact=True)


def test_saved_spec_keeps_the_order_of_the_varied_options():
    # run.json and the checkpoint are written with sorted keys; the configurations are the
    # product of the varied options with the first varying slowest, so a reordering would file
    # the chunks played after a resume under the wrong configurations.
    from handsim.simulate import StudySpec, make_spec

    spec = make_spec(vary={"opening_threshold": [51, 71], "joker_penalty": [15, 30]}, deals=10)
    again = StudySpec.from_json(json.loads(json.dumps(spec.to_json(), sort_keys=True)))
    assert again.vary == (("opening_threshold", (51, 71)), ("joker_penalty", (15, 30)))
    assert [(r.opening_threshold, r.joker_penalty) for r in again.configs()] == [(51, 15), (51, 30), (71, 15), (71, 30)]


def test_interrupted_run_on_a_dask_cluster_resumes_to_identical_summary(tmp_path, reference):
    """--scheduler: the study is interrupted while its chunks run on a dask.distributed cluster (here
    a local one, in this process), then resumed without the cluster."""
    distributed = pytest.importorskip("dask.distributed")
    out = tmp_path / "study"
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0") as cluster:
        p, lines = _start_held([*ARGS, "--scheduler", cluster.scheduler_address, "--out", str(out)], 3)
        os.killpg(p.pid, signal.SIGINT)
        err = _finish(p, lines)
    assert p.returncode == 130, err
    assert len(_done_chunks(out)) == 3, err
    assert "--resume" in err and "Traceback" not in err, err
    r = _run(["--resume", str(out)])
    assert r.returncode == 0, r.stderr
    assert (out / "summary.csv").read_bytes() == reference, r.stderr


def test_the_traces_of_an_interrupted_study_are_written_by_its_resume(tmp_path):
    """--trace N was not kept: a study started with --trace, interrupted and resumed had no traces.jsonl
    (issue 23, a breaker's item). The run history keeps N; the resume, without --trace, writes the
    same file as a run that was not interrupted, and the interruption says it will."""
    args = ["--policy", "greedy", "--players", "2", "--deals", "40", "--chunk", "10", "--seed", "2", "--trace", "3",
            "--jobs", "1", "--no-progress", "-q"]
    ref = tmp_path / "ref"
    r = _run([*args, "--out", str(ref)])
    assert r.returncode == 0, r.stderr
    out = tmp_path / "study"
    p, lines = _start_held([*args, "--out", str(out)], 2)
    os.killpg(p.pid, signal.SIGINT)
    err = _finish(p, lines)
    assert p.returncode == 130, err
    assert (f"\nInterrupted: partial results are checkpointed in {out}; 'handsim simulate --resume {out}' continues "
            "(and writes the --trace 3 deals).\n") in err, err
    assert not (out / "traces.jsonl").exists()
    r = _run(["--resume", str(out), "-q"])
    assert r.returncode == 0, r.stderr
    assert (out / "traces.jsonl").read_bytes() == (ref / "traces.jsonl").read_bytes()
    assert len((out / "traces.jsonl").read_text().splitlines()) == 3  # 3 deals x 1 configuration x 1 line-up
    assert json.loads((out / "run.json").read_text())["trace"] == 3


def test_ctrl_c_while_a_kernel_compiles_is_not_swallowed():
    """Ctrl-C during the first compilation was sometimes lost (issue 23, a breaker's item): numba's
    compiler runs finalizers (llvmlite's __del__), and a KeyboardInterrupt raised inside one is
    printed as 'Exception ignored' and dropped. The warm-up now compiles in a helper thread while the
    main thread waits, so the handler's exception is raised in the waiting thread. Here the work
    swallows every KeyboardInterrupt that reaches it, as a finalizer does."""
    import time

    from handsim.study.executors import interruptible

    finished = []

    def swallowing_work():
        for _ in range(600):  # 60 s at most: a guard, not a measure
            try:
                time.sleep(0.1)
            except KeyboardInterrupt:
                pass
        finished.append(True)

    def interrupt(signum, frame):
        raise KeyboardInterrupt

    old = signal.signal(signal.SIGALRM, interrupt)
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.3)
        with pytest.raises(KeyboardInterrupt):
            interruptible(swallowing_work)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    assert finished == []  # the interruption came while the work was still under way


def test_ctrl_c_during_the_first_compile_of_a_study_exits_130_leaving_no_folder(tmp_path):
    """An empty kernel cache: the study compiles its engine (a minute); Ctrl-C then ends it with 130,
    says nothing was finished, shows no 'Exception ignored' and leaves no folder behind."""
    out = tmp_path / "study"
    env = _env(HANDSIM_CACHE_DIR=str(tmp_path / "cache"))
    with sigint_for_children(signal.default_int_handler):
        p = subprocess.Popen([sys.executable, "-m", "handsim", "simulate", "--policy", "greedy", "--players", "2",
                              "--deals", "20", "--jobs", "1", "--no-progress", "--out", str(out)],
                             env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True, start_new_session=True)
    first = p.stderr.readline()
    assert first == ("Compiling the simulation engine for greedy, hold-hand, random (once for these players, 1 to 2 "
                     "minutes; cached afterwards)...\n"), first
    os.killpg(p.pid, signal.SIGINT)
    _, err = p.communicate(timeout=HANG_GUARD)
    err = first + err
    assert p.returncode == 130, err
    assert "Exception ignored" not in err and "Traceback" not in err, err
    assert err.endswith(f"\nInterrupted before any work was finished: nothing to resume in {out}.\n"), err
    assert not out.exists()
