"""Exact integer counters that the study driver feeds chunk by chunk (shared by tournaments and tuning).

A counter set is a few ``int64`` arrays whose shapes depend only on the design (never on the
number of deals), plus a JSON ``meta`` that names the design.  Adding chunks, or merging two
counter sets of disjoint deals, only adds integers, so the result does not depend on the order
of the chunks, on ``--jobs`` or on the chunk size, and a checkpoint resumes byte-identically.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import numpy as np

from ..stats.counters import check_counters

__all__ = ["Counters", "positions_view"]


class Counters:
    """Base class: subclasses declare ``KIND``, ``FORMAT``, ``_ARRAYS`` and build them in ``__init__``.

    Subclasses implement ``_meta_args()`` (the keyword arguments of ``__init__`` as JSON-able
    values) and ``add_chunk(blocks)``.
    """

    KIND = ""
    FORMAT = 1
    _ARRAYS: tuple[str, ...] = ()
    #: Value checks of a saved state (:func:`handsim.stats.counters.check_counters`): per array, the signed
    #: columns of its last axis and its (sum, sum of squares) pairs.
    _LAYOUT: dict[str, tuple] = {}

    def _meta_args(self) -> dict[str, Any]:  # pragma: no cover - abstract
        raise NotImplementedError

    def _meta(self) -> dict[str, Any]:
        return {"kind": self.KIND, "format": self.FORMAT, "args": self._meta_args()}

    def state(self) -> dict[str, np.ndarray]:
        """The counters as a dict of numpy arrays (``np.savez`` friendly copies): ``meta`` (UTF-8 JSON
        as ``uint8``) and one ``int64`` array per counter."""
        meta = json.dumps(self._meta(), sort_keys=True).encode("utf-8")
        out = {"meta": np.frombuffer(meta, dtype=np.uint8).copy()}
        for name in self._ARRAYS:
            out[name] = getattr(self, "_" + name).copy()
        return out

    @classmethod
    def from_state(cls, state: Mapping[str, np.ndarray]):
        """Rebuild counters from :meth:`state`.

        Raises
        ------
        ValueError
            Not a state of this kind and format, arrays of the wrong shape, or values that cannot
            be counts of this design (a float array, a negative count, totals that do not agree).
        """
        try:
            meta = json.loads(bytes(np.asarray(state["meta"], dtype=np.uint8)).decode("utf-8"))
        except (KeyError, ValueError) as e:
            raise ValueError(f"not a {cls.KIND} checkpoint: {e}") from None
        if not isinstance(meta, dict) or meta.get("kind") != cls.KIND:
            raise ValueError(f"not a {cls.KIND} checkpoint (it holds {meta.get('kind') if isinstance(meta, dict) else None!r})")
        if meta.get("format") != cls.FORMAT:
            raise ValueError(f"{cls.KIND} checkpoint of format {meta.get('format')!r}: this version of handsim "
                             f"reads format {cls.FORMAT}; run it again")
        obj = cls(**meta["args"])
        check_counters(state, cls._LAYOUT)
        for name in cls._ARRAYS:
            if name not in state:
                raise ValueError(f"{cls.KIND} checkpoint lacks the array {name!r}")
            x = np.asarray(state[name])
            want = getattr(obj, "_" + name)
            if x.shape != want.shape:
                raise ValueError(f"{cls.KIND} checkpoint array {name} has shape {x.shape}, expected {want.shape}")
            setattr(obj, "_" + name, x.astype(np.int64, copy=True))
        obj._check_totals()
        return obj

    def deal_counts(self) -> list[tuple[str, np.ndarray]]:
        """``(array name, deal counts)`` pairs: every count of deals the counters keep, each of which
        must equal the deals of the finished chunks (:func:`handsim.study.read_checkpoint` checks
        them); subclasses name theirs."""
        return []

    def _check_totals(self) -> None:
        """The cheap sums of a state read from a checkpoint that must agree (ValueError naming them);
        subclasses add their own."""

    def merge(self, other) -> "Counters":
        """Add the counters of ``other`` (the same design, disjoint deals) into ``self``; returns ``self``.

        Raises
        ------
        ValueError
            If the designs differ.
        """
        if type(other) is not type(self) or other._meta() != self._meta():
            raise ValueError(f"cannot merge {self.KIND} counters of different designs")
        for name in self._ARRAYS:
            getattr(self, "_" + name)[...] += getattr(other, "_" + name)
        return self


def positions_view(block) -> tuple[np.ndarray, np.ndarray, int]:
    """Scores and outcome flags of a :class:`handsim.stats.DealBlock` by **line-up position**.

    Returns
    -------
    score : ndarray(int64, shape=(n, P))
        Points of the player at each line-up position (RULES.md section 6; lower is better).
    flags : ndarray(int64, shape=(n, P))
        Its outcome bits (:data:`handsim.stats.FLAG_OPENED`, ``FLAG_OUT``, ``FLAG_HAND``).
    n : int
        Deals in the block.

    Raises
    ------
    ValueError
        A ``policy`` row that is not a permutation of the positions.
    """
    policy = np.asarray(block.policy, dtype=np.intp)
    n, P = policy.shape
    if n and not np.array_equal(np.sort(policy, axis=1), np.broadcast_to(np.arange(P), (n, P))):
        raise ValueError("every row of a block's policy must be a permutation of the line-up positions")
    seat_of_pos = np.argsort(policy, axis=1, kind="stable")
    score = np.take_along_axis(np.asarray(block.score, dtype=np.int64), seat_of_pos, axis=1)
    flags = np.take_along_axis(np.asarray(block.flags, dtype=np.int64), seat_of_pos, axis=1)
    return score, flags, n
