"""Work items: one chunk of deals of one configuration and line-up, played by the study's game
(:meth:`handsim.games.base.Game.run_chunk`) in a worker process (:func:`work`); and the check,
before anything is written, that the user-written policies an engine plays compile
(:func:`check_policy_files`)."""

from __future__ import annotations

import time


def check_policy_files(engine) -> None:
    """Compile the decision functions of the user-written policies ``engine`` plays (numba-cached,
    reused by the engine), so that a policy file that does not compile is refused before anything
    in the output folder is deleted (``--force``) or created.

    Raises
    ------
    handsim.policies.files.PolicyFileError
        Naming the file, the policy and the function (:func:`handsim.policies.files.check_compiles`).
    """
    from ..policies.files import check_compiles

    for f in getattr(engine, "files", ()):  # (an engine of built-in policies has none)
        check_compiles(f)


def work(item):
    """Play one work item: ``(key, rv, pol, pp, players, seed, start, n, matches, engine_ref, game)``
    -> ``(key, result arrays, seconds)`` (a module-level function: the executors send it to worker
    processes by name)."""
    from ..games import get_game

    key, rv, pol, pp, players, seed, start, n, matches, engine_ref, game = item
    t0 = time.perf_counter()
    res = get_game(game).run_chunk(rv, pol, pp, players, seed, start, n, matches, engine_ref)
    return key, res, time.perf_counter() - t0
