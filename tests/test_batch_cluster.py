"""A study file on a dask cluster: a LocalCluster of two worker processes whose kernel caches start
empty gives the results of the local run (slow: the workers compile the engine); and the lock that
makes the workers of one machine compile one after another (fast)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest
from click.testing import CliRunner

from handsim.cli import cli

FILE = """\
[defaults]
seed = 11
chunk = 50
players = 3

[run.study]
threshold = [51, 71]
lineup = [["hold-hand", "greedy", "greedy"]]
deals = 150

[run.ladder]
kind = "tournament"
policy = ["greedy", "random"]
deals = 40
"""
TABLES = {"study": ["summary.csv", "paired.csv", "versus.csv"], "ladder": ["ratings.csv", "crosstable.csv",
                                                                           "tables.csv"]}


@pytest.mark.slow
def test_a_study_file_on_a_cluster_with_empty_kernel_caches_matches_the_local_run(tmp_path):
    pytest.importorskip("dask.distributed")
    from distributed import LocalCluster

    file = tmp_path / "study.toml"
    file.write_text(FILE)
    r = CliRunner().invoke(cli, ["batch", str(file), "--out", str(tmp_path / "local"), "--jobs", "1", "-q"])
    assert r.exit_code == 0, r.output
    cache = tmp_path / "worker-cache"  # empty: both workers compile (one after the other) or load
    cache.mkdir()
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0",
                      env={"HANDSIM_CACHE_DIR": str(cache)}) as cluster:
        r = CliRunner().invoke(cli, ["batch", str(file), "--out", str(tmp_path / "cluster"), "--scheduler",
                                     cluster.scheduler_address, "-q"])
        assert r.exit_code == 0, r.output
    for part, names in TABLES.items():
        for name in names:
            assert (tmp_path / "cluster" / part / name).read_bytes() == (tmp_path / "local" / part / name).read_bytes()
    kernels = list(cache.glob("kernels-*"))
    assert len(kernels) == 1 and (kernels[0] / "compile.lock").exists()
    assert list(kernels[0].glob("**/*.nbi")), "the workers compiled kernels into their own cache"


def test_the_first_item_of_an_engine_in_a_worker_takes_the_kernel_cache_lock(monkeypatch):
    from handsim.study import executors

    calls = []

    class Lock:
        def __enter__(self):
            calls.append("lock")

        def __exit__(self, *exc):
            calls.append("unlock")

    monkeypatch.setattr(executors, "_WARM", set())
    monkeypatch.setattr(executors, "kernel_cache_lock", Lock)
    monkeypatch.setattr(executors, "work", lambda item: calls.append(item[0]) or item[0])
    items = [(k, None, None, None, 3, 0, 0, 10, m, ref, "hand") for k, m, ref in
             [(1, False, ()), (2, False, ()), (3, True, ()), (4, False, ((1,), (("p.py", "ab"),))), (5, True, ())]]
    assert [executors.work_on_cluster(it) for it in items] == [1, 2, 3, 4, 5]
    assert calls == ["lock", 1, "unlock", 2, "lock", 3, "unlock", "lock", 4, "unlock", 5]


def test_the_kernel_cache_lock_keeps_out_a_second_process(tmp_path):
    from handsim.study.executors import kernel_cache_lock

    probe = textwrap.dedent("""
        import fcntl, os, sys
        fd = os.open(sys.argv[1], os.O_RDWR)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            sys.exit(3)
    """)
    import numba

    path = os.path.join(numba.config.CACHE_DIR, "compile.lock")
    with kernel_cache_lock():
        held = subprocess.run([sys.executable, "-c", probe, path]).returncode
    free = subprocess.run([sys.executable, "-c", probe, path]).returncode
    assert (held, free) == (3, 0)
