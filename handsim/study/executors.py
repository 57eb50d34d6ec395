"""Where a study's work items run: a local pool of worker processes (:func:`run_pool`) or a
dask.distributed cluster (:func:`run_dask`, its address checked first by
:func:`check_scheduler`).  Both keep a bounded number of items in flight and hand each finished
one to ``accept(key, result)`` in this process; results do not depend on the executor."""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import itertools
import multiprocessing as mp
import os
import signal

from ..errors import StudyError
from .._interrupt import interruptible  # noqa: F401  (the runner's warm-up; lives where the CLI reaches it lightly)
from .chunks import work


#: Address schemes of dask.distributed (``tcp://`` when none is given).
_SCHEDULER_SCHEMES = ("tcp", "tls", "ws", "wss", "inproc", "ucx")


def check_scheduler(address: str, timeout: float = 5.0) -> None:
    """Check a dask.distributed scheduler address (``[scheme://]host:port``) and that something
    accepts a connection there, within ``timeout`` seconds, without importing dask.

    Raises
    ------
    StudyError
        A malformed address, an unknown host, or nothing listening (one line naming the address).
    """
    text = str(address).strip()
    hint = "give the address of a running dask scheduler, e.g. tcp://scheduler-host:8786"
    if not text:
        raise StudyError(f"the scheduler address is empty: {hint}")
    scheme, sep, loc = text.partition("://")
    scheme = scheme.lower() if sep else "tcp"
    loc = loc if sep else text
    if scheme not in _SCHEDULER_SCHEMES:
        raise StudyError(f"scheduler address {text!r}: unknown scheme {scheme + '://'!r}: allowed "
                         + ", ".join(s + "://" for s in _SCHEDULER_SCHEMES))
    if scheme in ("inproc", "ucx"):
        return  # not plain TCP: dask checks these itself
    if loc.startswith("["):  # IPv6: [::1]:8786
        host, _, rest = loc[1:].partition("]")
        port = rest[1:] if rest.startswith(":") else ""
    else:
        host, _, port = loc.rpartition(":")
        if ":" in host:
            host = ""  # an IPv6 address without brackets
    if not host or any(c.isspace() or c in "/[]@" for c in host):
        raise StudyError(f"scheduler address {text!r}: expected [scheme://]host:port (IPv6 as [::1]:8786): {hint}")
    if not (port.isascii() and port.isdigit() and 1 <= int(port) <= 65535):
        raise StudyError(f"scheduler address {text!r}: the port must be a number from 1 to 65535: {hint}")
    import socket

    try:
        with socket.create_connection((host, int(port)), timeout=timeout):
            pass
    except socket.gaierror:
        raise StudyError(f"scheduler address {text!r}: unknown host {host!r}: {hint}") from None
    except ConnectionRefusedError:
        raise StudyError(f"scheduler address {text!r}: nothing listens on {host} port {port}: {hint}") from None
    except TimeoutError:
        raise StudyError(f"scheduler address {text!r}: no answer from {host} port {port} in {timeout:g} s: {hint}") from None
    except (OSError, UnicodeError) as e:
        why = getattr(e, "strerror", None) or str(e)
        raise StudyError(f"scheduler address {text!r}: cannot connect to {host} port {port} ({why}): {hint}") from None
    if scheme == "tcp":
        _check_dask_answers(text, f"{scheme}://{loc}", timeout, hint)


def _check_dask_answers(text: str, address: str, timeout: float, hint: str) -> None:
    """Ask what listens at ``address`` (dask's ``identity`` message) and refuse anything that is not a
    dask scheduler answering within ``timeout`` seconds (a web server, say, would hold dask's client
    forever).  Skipped without dask.distributed (the run then says to install it)."""
    try:
        from distributed.comm import connect
    except ImportError:
        return
    import asyncio

    async def identity():
        comm = await connect(address, timeout=timeout)
        try:
            await comm.write({"op": "identity", "reply": True})
            return await comm.read()
        finally:
            comm.abort()

    try:
        answer = asyncio.run(asyncio.wait_for(identity(), timeout))
    except Exception:  # a timeout, a closed connection, an answer dask cannot read
        answer = None
    if not (isinstance(answer, dict) and answer.get("type") == "Scheduler"):
        raise StudyError(f"scheduler address {text!r}: what listens there is not a dask scheduler (no answer to "
                         f"dask's greeting in {timeout:g} s): {hint}")


def run_dask(items, accept, jobs: int, scheduler: str | None) -> None:
    """Run the work items on a dask.distributed cluster, keeping a bounded number in flight."""
    if scheduler:
        check_scheduler(scheduler)  # fails fast, with one line, before dask tries for 30 s
    try:
        from dask.distributed import Client, LocalCluster, as_completed
    except ImportError:
        raise StudyError("the dask executor needs dask.distributed: pip install \"handsim[cluster]\"") from None
    if scheduler:
        try:
            client = Client(scheduler, timeout="10s")
        except (OSError, ValueError) as e:  # TimeoutError is an OSError
            raise StudyError(f"cannot connect to the dask scheduler at {scheduler!r}: {' '.join(str(e).split())}") from None
        cluster = None
    else:
        # ":0": the dashboard on any free port (None means port 8787, and a warning when it is taken)
        cluster = LocalCluster(n_workers=jobs, threads_per_worker=1, processes=True, dashboard_address=":0")
        client = Client(cluster)
    try:
        width = max(2 * len(client.scheduler_info().get("workers", {})), 2 * jobs)
        futures = [client.submit(work_on_cluster, item, pure=False) for item in itertools.islice(items, width)]
        pending = as_completed(futures)
        for f in pending:
            key, res, _ = f.result()
            accept(key, res)
            nxt = next(items, None)
            if nxt is not None:
                pending.add(client.submit(work_on_cluster, nxt, pure=False))
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


#: The engines (game, match or not, engine reference) this process has played a work item of: their
#: kernels are compiled or loaded.
_WARM: set = set()


def work_on_cluster(item):
    """:func:`handsim.study.chunks.work` on a dask worker, whose kernels may not be compiled yet.

    The first work item of each engine in a worker process runs under an exclusive lock on the
    kernel cache folder (``compile.lock`` in it), so that the workers of one machine that start
    with an empty cache compile one after another: the first compiles and writes the cache, the
    next load it.  Processes that compile the same functions at once write numba's cache files
    over each other (an index and its data can then disagree: numba issues #4807 and #10128), and
    each spends a minute compiling what one could.  (Local worker processes are forked from a
    process that compiled or loaded the kernels already.)
    """
    engine = (item[-1], item[-3], item[-2])  # game, matches, engine reference
    if engine in _WARM:
        return work(item)
    with kernel_cache_lock():
        out = work(item)
    _WARM.add(engine)
    return out


@contextlib.contextmanager
def kernel_cache_lock():
    """Hold an exclusive lock on this process's kernel cache folder (``$HANDSIM_CACHE_DIR/kernels-*``)
    for the block: one process at a time compiles into it.  A folder that cannot be written (or a
    system without ``flock``) takes no lock: numba then reports the cache itself."""
    import numba

    import handsim._kernels  # noqa: F401  (points numba's cache at the kernel cache folder)

    try:
        import fcntl

        fd = os.open(os.path.join(numba.config.CACHE_DIR, "compile.lock"), os.O_RDWR | os.O_CREAT, 0o644)
    except (ImportError, OSError):
        yield
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # (drops the lock)


#: Seconds the work items under way get to finish after an interruption (or an error) before
#: their worker processes are stopped: compiled code cannot be interrupted, and a policy stuck in
#: a decision would hold the study forever.
GRACE_SECONDS = 5.0


def run_pool(items, accept, jobs: int, grace: float | None = None) -> None:
    """Run the work items in a local pool of ``jobs`` worker processes, a bounded number in flight.

    The workers ignore SIGINT and SIGTERM (a Ctrl-C reaches the whole process group; this process
    decides): both are blocked while they are forked, so that none arrives before a worker has set
    them aside.  They end with this process however it ends, even killed (SIGKILL), and hold none
    of its folder locks (:func:`handsim._interrupt.worker_guard`).  On an interruption (or an
    error) the items no worker plays yet are dropped at once; those a worker is playing get
    ``grace`` seconds (default :data:`GRACE_SECONDS`; no wait when none is under way), are
    dropped, and the worker processes still playing one then are killed; the exception raised
    carries the keys of the items they were playing as ``not_finished`` (a list, in key order).

    Each worker says in shared memory which item it plays (its sequence number, -1 when idle), so
    that an item waiting in the executor's queue (which ``concurrent.futures`` counts as running)
    is never taken for one under way.
    """
    ctx = mp.get_context("fork") if "fork" in mp.get_all_start_methods() else mp.get_context()
    # playing[w]: the sequence number of the item worker w plays (-1: none); playing[jobs]: 1 once
    # the study stops (a worker then skips the items still queued); pids[w]: worker w's process.
    playing = ctx.Array("q", [-1] * jobs + [0], lock=False)
    pids = ctx.Array("q", [0] * jobs, lock=False)
    guard = ctx.Lock()  # a worker's claim of an item and the stop are taken under it: one or the other first
    slots = ctx.Value("i", 0)
    ex = cf.ProcessPoolExecutor(max_workers=jobs, mp_context=ctx, initializer=_worker_start,
                                initargs=(playing, pids, guard, slots, os.getpid()))
    futures: dict = {}  # future -> key of its work item
    keys: dict = {}  # sequence number -> key of its work item
    seq = itertools.count()

    def submit(item):
        n = next(seq)
        keys[n] = item[0]
        futures[ex.submit(_tracked_work, n, item)] = item[0]

    try:
        with _blocked(signal.SIGINT, signal.SIGTERM):  # the first submit forks the workers
            for item in itertools.islice(items, jobs * 4):
                submit(item)
        while futures:
            finished, _ = cf.wait(futures, return_when=cf.FIRST_COMPLETED)
            for f in sorted(finished, key=futures.get):  # (several at once: in the order of the study)
                del futures[f]
                key, res, _ = f.result()
                accept(key, res)
            for item in itertools.islice(items, len(finished)):
                submit(item)
    except BaseException as e:
        stuck = _stop_workers(ex, futures, playing, pids, guard, keys, GRACE_SECONDS if grace is None else grace)
        if stuck:
            e.not_finished = stuck
        raise
    finally:
        ex.shutdown(wait=True, cancel_futures=True)


def _stop_workers(ex: cf.ProcessPoolExecutor, futures: dict, playing, pids, guard, keys: dict, grace: float) -> list:
    """Drop the items no worker plays yet, give those under way ``grace`` seconds, then kill the
    worker processes still playing one; returns the keys of the items they were playing (in key
    order).  Another interruption during the wait kills them at once."""
    import time

    jobs = len(pids)
    for f in futures:
        f.cancel()  # (those not handed to the executor's queue yet)
    with guard:
        playing[jobs] = 1  # the items in the executor's queue: each is skipped by the worker that takes it
    ex.shutdown(wait=False, cancel_futures=True)
    deadline = time.monotonic() + grace
    under_way = [w for w in range(jobs) if playing[w] >= 0]
    try:
        while under_way and time.monotonic() < deadline:
            time.sleep(0.02)
            under_way = [w for w in range(jobs) if playing[w] >= 0]
    finally:
        now = {w: (playing[w], pids[w]) for w in range(jobs) if playing[w] >= 0}
        for _, pid in now.values():
            if pid > 0:
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)  # (it ignores SIGTERM; what it plays is dropped anyway)
    return sorted(keys[n] for n, _ in now.values() if n in keys)


_TRACK = None


def _worker_start(playing, pids, guard, slots, parent: int) -> None:
    """Worker process start: end with the main process and drop its folder locks
    (:func:`handsim._interrupt.worker_guard`), ignore SIGINT and SIGTERM (:func:`_worker_signals`),
    take a slot in the shared table of what each worker plays."""
    global _TRACK
    from .._interrupt import worker_guard

    worker_guard(parent)
    _worker_signals()
    with slots.get_lock():
        slot = slots.value
        slots.value += 1
    if slot < len(pids):
        pids[slot] = os.getpid()
        _TRACK = (playing, guard, slot, len(pids))


def _tracked_work(n: int, item):
    """:func:`~handsim.study.chunks.work`, with this worker's slot saying that it plays item ``n``;
    ``None`` without playing it once the study stops."""
    if _TRACK is None:
        return work(item)
    playing, guard, slot, stop = _TRACK
    with guard:
        if playing[stop]:
            return None
        playing[slot] = n
    try:
        return work(item)
    finally:
        playing[slot] = -1


@contextlib.contextmanager
def _blocked(*signals):
    """Block ``signals`` in this thread (they stay pending and arrive when the block ends)."""
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    old = signal.pthread_sigmask(signal.SIG_BLOCK, signals)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def _worker_signals() -> None:
    """Worker process start: ignore SIGINT and SIGTERM, then unblock them (see :func:`run_pool`)."""
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, (signal.SIGINT, signal.SIGTERM))

