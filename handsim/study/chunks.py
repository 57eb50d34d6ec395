"""Work items: one chunk of deals (or matches) of one configuration and line-up, played by the
engine (:func:`run_chunk`, :func:`run_match_chunk`, :func:`work` in a worker process), the
compilation before workers fork (:func:`warm_up`), the error a chunk's engine error becomes
(:func:`deal_failure`) and a chunk's per-deal rows (:func:`write_per_deal`)."""

from __future__ import annotations

import io
import time
from pathlib import Path

import numpy as np

from .._io import atomic_write
from ..errors import StudyEngineError
from ..policies import lineup_arrays, lineup_label, parse_policy
from ..rules import Rules


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

    for f in getattr(engine, "files", ()):  # (Russian Hand's engine plays no policy files)
        check_compiles(f)


def warm_up(matches: bool = False, engine=None) -> None:
    """Compile (or load from cache) the engine's driver once, before the clock starts and workers
    fork; for an engine of policy files, check first that their functions compile."""
    from ..policies.engines import builtin_engine

    engine = engine or builtin_engine()
    check_policy_files(engine)
    fn = run_match_chunk if matches else run_chunk
    greedy = [parse_policy("greedy")] * 2
    fn(Rules.preset("classic", rounds=1).to_vector(), *lineup_arrays(greedy, engine), 2, 0, 0, 1, engine)


def _engine(engine):
    """An :class:`~handsim.policies.engines.Engine` from an engine, its ``ref()`` or None (built-in)."""
    from ..policies.engines import builtin_engine, engine_from_ref

    if engine is None:
        return builtin_engine()
    if isinstance(engine, tuple):
        return engine_from_ref(engine)
    return engine


def run_chunk(rv: np.ndarray, pol: np.ndarray, pp: np.ndarray, players: int, seed: int, start: int, n: int,
              engine=None):
    """Play deals ``start .. start+n-1`` of one configuration and line-up.

    ``engine``: the engine whose policy ids ``pol`` holds (:meth:`StudySpec.engine`, or its
    ``ref()``); default the built-in one.

    Returns
    -------
    dict of ndarray
        ``score int32[n, P]``, ``flags uint8[n, P]`` (by seat relative to the starter; the bits
        :data:`handsim.stats.FLAG_OPENED`, ``FLAG_OUT``, ``FLAG_HAND``, ``FLAG_JOKER_LEFT``),
        ``turns int16[n]``, ``void uint8[n]``, ``reshuffles int8[n]``, ``err int8[n]``.
    """
    play_deals = _engine(engine).play_deals

    out = {
        "score": np.zeros((n, players), np.int32),
        "flags": np.zeros((n, players), np.uint8),
        "turns": np.zeros(n, np.int16),
        "void": np.zeros(n, np.uint8),
        "reshuffles": np.zeros(n, np.int8),
        "err": np.zeros(n, np.int8),
    }
    play_deals(
        np.uint64(seed), np.int64(start), np.int64(n), np.int64(players), rv, pol, pp,
        out["score"], out["flags"], out["turns"], out["void"], out["reshuffles"], out["err"],
    )
    return out


def run_match_chunk(rv: np.ndarray, pol: np.ndarray, pp: np.ndarray, players: int, seed: int, start: int, n: int,
                    engine=None):
    """Play matches ``start .. start+n-1`` of one configuration and line-up (``engine``: as for
    :func:`run_chunk`).

    Returns
    -------
    dict of ndarray
        One row per regular round (``n * rounds`` rows): ``score``, ``flags``, ``turns``,
        ``void``, ``reshuffles``, ``policy`` (line-up position by relative seat), ``match_win``
        / ``match_lose`` (uint8, 255 except on each match's last regular round), ``tiebreaks``
        (int16, -1 except there), ``total`` (int32 ``[rows, P]``, each seat's final match total
        in points, on the last regular round, 0 elsewhere), ``hand_decided`` (uint8, 1 when a
        single Hand decided the match, 255 except on the last regular round) and ``err``.
    """
    from .._kernels.params import P_ROUNDS

    play_matches = _engine(engine).play_matches
    m = n * int(rv[P_ROUNDS])
    out = {
        "score": np.zeros((m, players), np.int32),
        "flags": np.zeros((m, players), np.uint8),
        "turns": np.zeros(m, np.int16),
        "void": np.zeros(m, np.uint8),
        "policy": np.zeros((m, players), np.int8),
        "match_win": np.zeros((m, players), np.uint8),
        "match_lose": np.zeros((m, players), np.uint8),
        "tiebreaks": np.zeros(m, np.int16),
        "total": np.zeros((m, players), np.int32),
        "hand_decided": np.zeros(m, np.uint8),
        "reshuffles": np.zeros(m, np.int8),
        "err": np.zeros(m, np.int8),
    }
    play_matches(
        np.uint64(seed), np.int64(start), np.int64(n), np.int64(players), rv, pol, pp,
        out["score"], out["flags"], out["turns"], out["void"], out["reshuffles"], out["policy"],
        out["match_win"], out["match_lose"], out["tiebreaks"], out["total"], out["hand_decided"], out["err"],
    )
    return out


def work(item):
    key, rv, pol, pp, players, seed, start, n, matches, engine_ref = item[:10]
    game = item[10] if len(item) > 10 else "hand"
    t0 = time.perf_counter()
    if game != "hand":
        from ..games import get_game

        res = get_game(game).run_chunk(rv, pol, pp, players, seed, start, n)
    else:
        fn = run_match_chunk if matches else run_chunk
        res = fn(rv, pol, pp, players, seed, start, n, engine_ref)
    return key, res, time.perf_counter() - t0


def deal_failure(spec, c: int, l: int, item: int, code: int) -> Exception:
    """The error for deal (or match) ``item`` of configuration ``c`` and line-up ``l`` that the
    fast path reported with engine error ``code``: the deal is replayed with the move log on to
    name the policy, seat, turn and move (:mod:`handsim.policies.violations`)."""
    from ..errors import EngineError, PolicyMoveError
    from ..policies.violations import add_context
    from ..trace import trace_deal
    from .._kernels.driverlib import MAX_TIEBREAKS

    rules = spec.configs()[c]
    lineup = list(spec.lineups[l])
    rounds = range(rules.rounds + MAX_TIEBREAKS) if spec.matches else [None]
    what = "match" if spec.matches else "deal"
    where = f" (configuration {c + 1} of {len(spec.configs())}, line-up {lineup_label(lineup)})"
    for r in rounds:
        try:
            trace_deal(rules, lineup, item, spec.seed, players=spec.players, match_round=r)
        except PolicyMoveError as e:
            return PolicyMoveError(add_context(str(e), where))
        except EngineError as e:
            return StudyEngineError(f"internal {e}{where}: please report it")
    return StudyEngineError(f"internal engine error {code} in {what} {item}{where}: please report it")


def write_per_deal(out: Path, ri, c, l, spec, configs, lineup_names, block, res) -> None:
    import pandas as pd

    n, P = block.score.shape
    cols = {
        "deal": np.repeat(block.deal, P),
        "config": np.full(n * P, c, np.int16),
        "lineup": np.full(n * P, l, np.int16),
        "seat": np.tile(np.arange(P, dtype=np.int8), n),
        "policy": np.array(lineup_names[l], dtype=object)[block.policy.ravel()],
        "score": block.score.ravel(),
        "opened": (block.flags.ravel() & 1) > 0,
        "went_out": (block.flags.ravel() & 2) > 0,
        "hand": (block.flags.ravel() & 4) > 0,
        "joker_left": (block.flags.ravel() & 8) > 0,
        "turns": np.repeat(block.turns, P),
        "void": np.repeat(block.void, P) > 0,
        "reshuffles": np.repeat(res["reshuffles"], P),
    }
    cols["position"] = block.policy.ravel().astype(np.int8)
    if block.match_win is not None:
        # match studies: deal = match * rounds + round; the match result sits on each match's
        # last regular round (tie-break rounds have no rows of their own), missing elsewhere
        R = spec.rules.rounds
        from ..stats import MATCH_NONE

        has = np.repeat(block.match_win[:, 0] != MATCH_NONE, P)
        cols["match"] = np.repeat(block.deal // R, P)
        cols["round"] = np.repeat((block.deal % R).astype(np.int16), P)
        cols["match_win"] = pd.array(np.where(has, block.match_win.ravel() == 1, False), dtype="boolean")
        cols["match_lose"] = pd.array(np.where(has, block.match_lose.ravel() == 1, False), dtype="boolean")
        cols["total"] = pd.array(block.total.ravel(), dtype="Int32")
        cols["tiebreaks"] = pd.array(np.repeat(block.tiebreaks, P), dtype="Int16")
        cols["hand_decided"] = pd.array(np.repeat(block.hand_decided == 1, P), dtype="boolean")
        for name in ("match_win", "match_lose", "total", "tiebreaks", "hand_decided"):
            cols[name][~has] = pd.NA
    for k in spec.varying():
        cols[k] = np.repeat(getattr(configs[c], k), n * P)
    df = pd.DataFrame(cols)
    path = out / "per_deal" / f"part-{ri:06d}-{c:03d}-{l:03d}.parquet"
    buf = io.BytesIO()
    df.to_parquet(buf, index=False)
    atomic_write(path, buf.getvalue())

