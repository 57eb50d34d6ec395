"""Elimination matches on the engine (RULES.md section 7, ``elimination_score`` > 0).

:func:`run_elimination_chunk` plays matches with
:func:`handsim.games.hand.kernels.engine.play_elimination_matches`: each round is played by the
players still in, at a table of their number (the round kernel is the one of every round);
:func:`trace_elimination_round` replays one round with the move log on, for the pure-Python
checker; :func:`sheet_rows` writes a played match as a score sheet, so that
:func:`handsim.games.hand.sheet.score_sheet` - the independent reading of the same rule - can be
held against the engine's eliminations and winner.  :func:`run_elimination_study_chunk` is the work
item of a match study (``handsim simulate --matches`` with ``elimination_score`` > 0): the same
matches, with each round's outcome bits and turns, one row per match
(:data:`handsim.games.hand.records.ELIMINATION_MATCH`); the study's statistics are
:mod:`handsim.games.hand.elimination_study`, which this module does not import.
"""

from __future__ import annotations

import numpy as np

__all__ = ["run_elimination_chunk", "run_elimination_study_chunk", "sheet_rows", "trace_elimination_round"]


def _engine(specs):
    from handsim.games.hand.policies.engines import engine_for
    from handsim.policies import lineup_arrays

    E = engine_for(list(specs))
    pol, pp = lineup_arrays(list(specs), E)
    return E, pol, pp


def engine_of(engine):
    """An :class:`~handsim.games.hand.policies.engines.Engine` from an engine, its ``ref()`` or None
    (the built-in one)."""
    from handsim.games.hand.policies.engines import builtin_engine, engine_from_ref

    if engine is None:
        return builtin_engine()
    if isinstance(engine, tuple):
        return engine_from_ref(engine)
    return engine


def run_elimination_chunk(rules, specs, seed: int, start: int, n: int) -> dict:
    """Play elimination matches ``start .. start+n-1`` of ``rules`` (``elimination_score`` > 0) and
    the line-up ``specs`` (``PolicySpec`` by line-up position; position ``j`` at seat
    ``(j + match) % players``).

    Returns
    -------
    dict of ndarray
        ``rounds`` int16[n] (rounds played), ``win`` uint8[n, P] (1: a winner; several at the
        100-round cap: a shared win), ``total`` int32[n, P] (final totals, points), ``out_after``
        int16[n, P] (the round after which the position went out, 0: still in), ``score``
        int16[n, 100, P] (each round's score, 0 for a position out and after the end), ``err``
        int8[n], all by line-up position.

    Raises
    ------
    handsim.errors.RulesError
        ``elimination_score`` is 0.
    """
    from handsim.errors import RulesError

    if not rules.elimination_score:
        raise RulesError("elimination matches need elimination_score > 0")
    P = len(specs)
    rules.validate(P)
    E, pol, pp = _engine(specs)
    out = run_elimination_study_chunk(rules.to_vector(), pol, pp, P, seed, start, n, E)
    return {k: out[k] for k in ("rounds", "win", "total", "out_after", "score", "err")}


def run_elimination_study_chunk(rv: np.ndarray, pol: np.ndarray, pp: np.ndarray, players: int, seed: int,
                                start: int, n: int, engine=None) -> dict:
    """Play elimination matches ``start .. start+n-1`` of one configuration (kernel vector ``rv``,
    ``elimination_score`` > 0) and line-up (policy ids ``pol``, parameters ``pp``) for a match study:
    the matches :func:`run_elimination_chunk` plays (``engine``: an engine, its ``ref()`` or None,
    the built-in one).

    Returns
    -------
    dict of ndarray
        The fields of :data:`handsim.games.hand.records.ELIMINATION_MATCH`, by line-up position:
        ``rounds`` int16[n], ``first`` int8[n], ``win`` uint8[n, P], ``total`` int32[n, P],
        ``out_after`` int16[n, P], ``score`` int16[n, 100, P], ``flags`` uint8[n, 100, P],
        ``turns`` int16[n, 100], ``err`` int8[n].
    """
    from .records import ELIMINATION_MATCH

    out = ELIMINATION_MATCH.allocate(n, players)
    engine_of(engine).play_elimination_matches(np.uint64(seed), np.int64(start), np.int64(n), np.int64(players), rv,
                                             pol, pp, *ELIMINATION_MATCH.outputs(out))
    return out


def trace_elimination_round(rules, specs, match: int, r: int, seed: int) -> dict | None:
    """Round ``r`` (0-based) of elimination match ``match``, replayed with the move log on, as the
    deal layout of ``docs/design.md`` for the round's own table (``players``: the players still
    in; seat ``i`` of it is line-up position ``positions[i]``), or None when the match ended before
    round ``r``.

    Raises
    ------
    handsim.errors.EngineError
        The engine reported an internal error (or a policy an illegal move) in the round.
    """
    from handsim.errors import EngineError

    from .trace import _assemble

    P = len(specs)
    E, pol, pp = _engine(specs)
    tr, deck, dealer, status, scores, flags, pol_c, err, act, q = E.play_traced_elimination_round(
        np.uint64(seed), np.int64(match), np.int64(r), np.int64(P), rules.to_vector(), pol, pp)
    if int(q) == 0:
        return None
    if int(err[0]):
        raise EngineError(f"engine error {int(err[0])} in round {r + 1} of elimination match {match}")
    positions = [(int(act[i]) - match) % P for i in range(int(q))]
    d = _assemble(rules, int(q), [int(c) for c in deck], int(dealer), [specs[p].label for p in positions], tr,
                  status, scores, flags, match=int(match), round=int(r), seed=int(seed))
    d["positions"] = positions
    return d


def sheet_rows(out: dict, k: int) -> list[dict]:
    """Match ``k`` of :func:`run_elimination_chunk`'s output as a score sheet (one ``{"scores":
    [...]}`` a round, by line-up position, ``None`` for a position out of the match), as
    :func:`handsim.games.hand.sheet.score_sheet` reads it."""
    rows = []
    for r in range(int(out["rounds"][k])):
        gone = [0 < a <= r for a in out["out_after"][k].tolist()]
        rows.append({"scores": [None if g else int(x) for g, x in zip(gone, out["score"][k, r].tolist())]})
    return rows
