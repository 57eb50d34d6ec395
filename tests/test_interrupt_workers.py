"""Worker processes and interruptions (issue 23, causes 4 and 5, a breaker's O1/I9/I13/I14):

- the pool stops at once when no worker is playing an item (an item waiting in the executor's
  queue is not one under way), and names only an item a worker really did not return from;
- a pool of many more items than fit in a pipe's buffer does not hang (each start was written to a
  queue nobody read: a --jobs 2 study of about 1,500 chunks or more hung);
- the worker processes end with the main process however it ends (kill -9 too), and never hold its
  folder lock (they kept a killed study's folder "in use by process <dead pid>").

The pool tests play a stand-in for a chunk (a sleep) in forked workers: no compile, milliseconds.
Time bounds are generous (a loaded 2-core machine): what they tell apart is 5 s of grace or an
endless wait from a fraction of a second.
"""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import handsim.study.executors as executors
from handsim._io import FolderLock, refuse_if_in_use
from test_resume import _done_chunks, _env, _finish, _start_held

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="fork and POSIX signals")


def _sleep_work(item):
    """A stand-in for :func:`handsim.study.chunks.work`: item = (key, seconds)."""
    time.sleep(item[1])
    return item[0], {"key": item[0]}, None


def _pool(monkeypatch, seconds, stop_after, jobs=2, grace=5.0):
    """Run ``seconds`` (one item each, keys (0,), (1,), ...) in a pool; after ``stop_after``
    accepted results the caller is interrupted (KeyboardInterrupt).  Returns (accepted keys, the
    exception's not_finished, seconds from the interruption to the end)."""
    monkeypatch.setattr(executors, "work", _sleep_work)  # (the workers are forked: they see it)
    got, when = [], []

    def accept(key, res):
        assert res == {"key": key}
        got.append(key)
        if len(got) == stop_after:
            when.append(time.monotonic())
            raise KeyboardInterrupt

    items = iter([((i,), s) for i, s in enumerate(seconds)])
    with pytest.raises(KeyboardInterrupt) as e:
        executors.run_pool(items, accept, jobs, grace=grace)
    return got, getattr(e.value, "not_finished", None), time.monotonic() - when[0]


def test_an_interrupted_pool_of_fast_items_stops_at_once_naming_nothing(monkeypatch):
    """Items of 0.05 s: at the interruption the items in the executor's queue are dropped and the
    two under way end within 0.05 s: nothing is named and no grace is waited (it was 5 s and '3
    chunks had not finished', every time: the cancelled items were waited for)."""
    got, stuck, took = _pool(monkeypatch, [0.05] * 60, stop_after=10)
    assert len(got) == 10 and stuck is None
    assert took < 2.0, took


def test_only_the_item_a_worker_did_not_return_from_is_named(monkeypatch):
    """Item 3 takes 1,000 s (a policy stuck in a decision); the other worker plays the rest.  After
    the grace (1 s here) its worker is killed and only item 3 is named: not the items waiting in
    the executor's queue, not the other worker's (finished) one."""
    seconds = [0.02] * 40
    seconds[3] = 1000.0
    got, stuck, took = _pool(monkeypatch, seconds, stop_after=12, grace=1.0)
    assert (3,) not in got and len(got) == 12
    assert stuck == [(3,)]
    assert 0.9 < took < 4.0, took  # the grace, then the kill (the worker ignores SIGTERM)


def test_a_pool_of_many_items_does_not_hang(monkeypatch):
    """5,000 items (a pipe holds about 1,500 of the starts the workers used to report): all are
    played and accepted, in well under the guard."""
    got, t0 = [], time.monotonic()
    monkeypatch.setattr(executors, "work", _sleep_work)
    executors.run_pool(iter([((i,), 0.0) for i in range(5000)]), lambda k, r: got.append(k), 2)
    assert sorted(got) == [(i,) for i in range(5000)]
    assert time.monotonic() - t0 < 60


def test_a_forked_child_does_not_hold_the_folder_lock(tmp_path):
    """A process forked while this one holds a folder's lock closes its copy of the lock file: the
    folder is free the moment this one releases it, though the child lives on."""
    lock = FolderLock(tmp_path).acquire("test")
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: says whether it still has the descriptor, then waits to be killed
        try:
            os.fstat(lock.fd) if lock.fd is not None else None
            os.write(w, b"kept" if lock.fd is not None else b"closed")
        finally:
            time.sleep(60)
            os._exit(0)
    try:
        assert os.read(r, 10) == b"closed"
        lock.release()
        refuse_if_in_use(tmp_path)  # nobody holds it: the child's copy is gone
        FolderLock(tmp_path).acquire("again").release()
    finally:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        os.close(r)
        os.close(w)


ARGS = ["--lineup", "hold-hand,greedy,greedy", "--threshold", "51", "--threshold", "71",
        "--deals", "2000", "--chunk", "250", "--seed", "5", "--no-progress", "-q", "--jobs", "2"]


def _group_alive(pgid: int) -> list[int]:
    """The processes of group ``pgid`` still running (a zombie, ended but not yet reaped, is not)."""
    alive = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[2]) == pgid and fields[0] != "Z":
                alive.append(int(name))
    return alive


def _children(pid: int) -> list[int]:
    out = subprocess.run(["ps", "-o", "pid=", "--ppid", str(pid)], capture_output=True, text=True).stdout
    return [int(x) for x in out.split()]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="ps --ppid, /proc")
def test_workers_end_with_a_study_killed_with_sigkill_and_the_folder_is_free(tmp_path):
    """kill -9 of the main process of a --jobs 2 study (held after 2 chunks): within a few seconds
    no process of its group is left (its 2 workers lived on as orphans, holding the folder's lock),
    and 'report' reads the checkpoint instead of saying the folder is in use."""
    out = tmp_path / "study"
    p, lines = _start_held([*ARGS, "--out", str(out)], 2)
    workers = _children(p.pid)
    assert len(workers) >= 2, (workers, "".join(lines))
    os.kill(p.pid, signal.SIGKILL)
    p.wait(timeout=30)
    p.stderr.close()  # (an orphan would keep its write end open: reading it to the end hung)
    t0 = time.monotonic()
    while _group_alive(p.pid) and time.monotonic() - t0 < 10:
        time.sleep(0.05)
    assert not _group_alive(p.pid), subprocess.run(["ps", "-o", "pid,ppid,stat,cmd", "-g", str(p.pid)],
                                                   capture_output=True, text=True).stdout
    assert time.monotonic() - t0 < 5
    refuse_if_in_use(out)
    assert len(_done_chunks(out)) == 2
    r = subprocess.run([sys.executable, "-m", "handsim", "report", str(out), "--format", "md", "-q"], env=_env(),
                       stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc")
def test_ctrl_c_of_a_study_of_fast_chunks_stops_at_once(tmp_path):
    """Ctrl-C (SIGINT to the group) of a --jobs 2 study of 500 chunks of about 0.03 s (the whole
    study plays for about 15 s), once it has checkpointed (after a second of play): exit 130 in well
    under the 5-s grace, no chunk said to be unfinished (it waited the whole grace and said '3
    chunks had not finished ... a slow chunk': the chunks waiting in the executor's queue were
    waited for), the chunks finished kept, no process of the group left."""
    out = tmp_path / "study"
    args = [*ARGS[:ARGS.index("--deals")], "--deals", "100000", "--chunk", "200", *ARGS[ARGS.index("--seed"):],
            "--out", str(out)]
    p = subprocess.Popen([sys.executable, "-m", "handsim", "simulate", *args],
                         env=_env(HANDSIM_CHECKPOINT_EVERY="1"), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, text=True, start_new_session=True,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        t0 = time.monotonic()
        while not (out / "checkpoint.npz").exists() and p.poll() is None and time.monotonic() - t0 < 900:
            time.sleep(0.05)
        time.sleep(0.5)
        assert p.poll() is None, p.stderr.read()
        t0 = time.monotonic()
        os.killpg(p.pid, signal.SIGINT)
        err = _finish(p, [])
        took = time.monotonic() - t0
    finally:
        if p.poll() is None:
            p.kill()
    assert p.returncode == 130, err
    assert took < 3.0, (took, err)
    assert "had not finished" not in err and "Traceback" not in err, err
    assert f"Interrupted: partial results are checkpointed in {out}" in err, err
    assert 0 < len(_done_chunks(out)) < 500
    assert not _group_alive(p.pid)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc")
def test_a_lock_held_by_a_leftover_of_an_ended_study_says_which_process_to_end(tmp_path):
    """The lock file names a process that has ended, but another process still holds the lock (a
    worker left by an older handsim): 'report' says so and names the process to end (it said 'in
    use by another handsim process (... process <dead pid> ...): wait for it to finish' forever)."""
    import socket

    folder = tmp_path / "left"
    folder.mkdir()
    ended = subprocess.Popen(["true"])
    ended.wait()
    lock = folder / ".handsim.lock"
    lock.write_text(f"handsim simulate: process {ended.pid} on {socket.gethostname()} since 2026-12-04 02:03:05\n")
    holder = subprocess.Popen([sys.executable, "-c", "import fcntl, os, sys, time; fd = os.open(sys.argv[1], os.O_RDWR); "
                               "fcntl.flock(fd, fcntl.LOCK_EX); print('held', flush=True); time.sleep(120)", str(lock)],
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline() == "held\n"
        r = subprocess.run([sys.executable, "-m", "handsim", "report", str(folder)], env=_env(),
                           stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=600)
    finally:
        holder.kill()
        holder.wait()
        holder.stdout.close()
    assert r.returncode == 2, r.stderr
    assert r.stderr.strip().splitlines() == [
        f"Error: {folder} is locked by a process left over from handsim process {ended.pid}, which has ended "
        f"(handsim simulate: process {ended.pid} on {socket.gethostname()} since 2026-12-04 02:03:05): end the leftover "
        f"(process {holder.pid}), then try again (see 'handsim report --help')"], r.stderr


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="ps --ppid, /proc")
@pytest.mark.parametrize("sig, code", [(signal.SIGKILL, -9), (signal.SIGINT, 130)], ids=["kill-9", "ctrl-c"])
def test_check_policy_workers_end_with_it(tmp_path, sig, code):
    """check-policy --jobs 2 (a pool of its own) stopped while its workers play: killed, its workers
    end with it (they lived on, playing every batch submitted); Ctrl-C: exit 130 without playing
    the batches not started (thousands of deals: minutes)."""
    policy = Path(__file__).resolve().parent.parent / "examples" / "policies" / "joker_keeper.py"
    p = subprocess.Popen([sys.executable, "-m", "handsim", "check-policy", str(policy), "joker-keeper:release_turn=6",
                          "--deals", "40000", "--jobs", "2"], env=_env(), stdin=subprocess.DEVNULL,
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, start_new_session=True,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        t0 = time.monotonic()
        while len(_children(p.pid)) < 2 and p.poll() is None and time.monotonic() - t0 < 900:
            time.sleep(0.1)
        time.sleep(1.0)  # the workers play their first batches
        assert p.poll() is None, p.stderr.read()
        t0 = time.monotonic()
        os.kill(p.pid, sig) if sig == signal.SIGKILL else os.killpg(p.pid, sig)
        p.wait(timeout=120)
        took = time.monotonic() - t0
        while _group_alive(p.pid) and time.monotonic() - t0 < 10:
            time.sleep(0.05)
        assert not _group_alive(p.pid)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
        p.stderr.close()
    assert p.returncode == code
    assert took < 8.0, took  # (at most the grace: a batch under way is not waited for longer)
