"""The policy API as a user-written policy calls it: :mod:`.api` with its arguments checked.

A policy file compiles with numba's bounds checks (:func:`handsim.policies.files._check_bounds`),
and the API's one-line accessors are inlined into its code, so their indexing is checked as the
file's own.  The API functions compiled on their own (the planners, the moves, the legal
queries, ``seen_cards`` and the other functions that fill an ``out`` array) are not: given a seat
outside the table or an ``out`` array too short they wrote out of range, silently or into a
crash.  Each of them has a version here that checks those arguments first and raises
``IndexError`` (the dispatch of a user policy then stops the round with ``E_POLICY_RAISED``, one
line naming the policy, deal, seat and turn), then calls the API's own function.

A policy file's ``api`` (``from handsim.policies import api``) and the API functions it imports
by name are bound to this module's versions when the file loads, in the file and in the modules
of the helpers it imports (:func:`handsim.policies.files._check_bounds`).  The built-in policies
call :mod:`.api` itself: their code is the same as before, checks and all.

Every name of :mod:`.api` is here (the same objects), except those checked.
"""

import numpy as np  # noqa: F401  (as api's namespace)
from numba import njit

from handsim.games.hand.kernels import state as _S
from handsim.games.hand.kernels.consts import N_TYPES
from handsim.games.hand.kernels.melds import MELD_WIDTH

from . import api as _api
from .api import *  # noqa: F401,F403  (every public name of the API, the unchecked ones as they are)

#: The API functions a user policy gets checked, by name (each takes the arguments of :mod:`.api`'s).
CHECKED = ("seen_cards", "unseen_cards", "deck_counts", "plan_hand", "plan_melds", "pretend_take", "undo_take",
           "deal_unseen", "deal_plausible", "arrange", "discard_is_legal", "legal_discard_after", "legal_discard_after_path",
           "legal_discard_after_card", "may_touch_table", "lay_melds", "lay_off", "swap_joker", "path_counts",
           "path_uses", "melded_cards", "copy_path")


@njit(cache=True, inline="always")
def _seat(g, seat):
    if seat < 0 or seat >= g.sc[_S.S_PLAYERS]:
        raise IndexError("a seat outside 0 .. api.players(g) - 1 given to the policy API")


@njit(cache=True, inline="always")
def _counts(a):
    if a.shape[0] < N_TYPES:
        raise IndexError("an array of fewer than api.N_TYPES items given to the policy API for card counts")


@njit(cache=True, inline="always")
def _card(t):
    if t < 0 or t >= N_TYPES:
        raise IndexError("a card type outside 0 .. api.N_TYPES - 1 given to the policy API")


@njit(cache=True, inline="always")
def _path(path, n):
    if n < 0 or n > path.shape[0] or path.shape[1] < MELD_WIDTH:
        raise IndexError("a plan of fewer melds than asked (or not api.MELD_WIDTH wide) given to the policy API")


# ------------------------------------------------------------------------- observations


@njit(cache=True)
def seen_cards(g, seat, out):
    _seat(g, seat)
    _counts(out)
    return _api.seen_cards(g, seat, out)


@njit(cache=True)
def unseen_cards(g, seat, out):
    _seat(g, seat)
    _counts(out)
    return _api.unseen_cards(g, seat, out)


@njit(cache=True)
def deck_counts(g, out):
    _counts(out)
    return _api.deck_counts(g, out)


# ------------------------------------------------------------------------- planners


@njit(cache=True)
def plan_hand(g, seat):
    _seat(g, seat)
    return _api.plan_hand(g, seat)


@njit(cache=True)
def plan_melds(g, seat, mode, req, keep, layoff_taken):
    _seat(g, seat)
    return _api.plan_melds(g, seat, mode, req, keep, layoff_taken)


@njit(cache=True)
def arrange(g, cards, mode):
    _counts(cards)
    return _api.arrange(g, cards, mode)


@njit(cache=True)
def pretend_take(g, seat):
    _seat(g, seat)
    return _api.pretend_take(g, seat)


@njit(cache=True)
def undo_take(g, seat):
    _seat(g, seat)
    return _api.undo_take(g, seat)


@njit(cache=True)
def deal_unseen(g, seat, dst):
    _seat(g, seat)
    return _api.deal_unseen(g, seat, dst)


@njit(cache=True)
def deal_plausible(g, seat, dst):
    _seat(g, seat)
    return _api.deal_plausible(g, seat, dst)


# ------------------------------------------------------------------------- legal queries


@njit(cache=True)
def discard_is_legal(g, seat, t):
    _seat(g, seat)
    return _api.discard_is_legal(g, seat, t)


@njit(cache=True)
def legal_discard_after(g, seat, rem):
    _seat(g, seat)
    _counts(rem)
    return _api.legal_discard_after(g, seat, rem)


@njit(cache=True)
def legal_discard_after_path(g, seat, path, n):
    _seat(g, seat)
    _path(path, n)
    return _api.legal_discard_after_path(g, seat, path, n)


@njit(cache=True)
def legal_discard_after_card(g, seat, c):
    _seat(g, seat)
    _card(c)
    return _api.legal_discard_after_card(g, seat, c)


@njit(cache=True)
def may_touch_table(g, seat):
    _seat(g, seat)
    return _api.may_touch_table(g, seat)


# ------------------------------------------------------------------------- moves


@njit(cache=True)
def lay_melds(g, seat, path, n):
    _seat(g, seat)
    _path(path, n)
    return _api.lay_melds(g, seat, path, n)


@njit(cache=True)
def lay_off(g, seat, k, t):
    _seat(g, seat)
    _card(t)
    return _api.lay_off(g, seat, k, t)


@njit(cache=True)
def swap_joker(g, seat, k, t):
    _seat(g, seat)
    _card(t)
    return _api.swap_joker(g, seat, k, t)


# ------------------------------------------------------------------------- plans (paths of melds)


@njit(cache=True)
def path_counts(path, n, out):
    _path(path, n)
    _counts(out)
    return _api.path_counts(path, n, out)


@njit(cache=True)
def path_uses(path, n, t):
    _path(path, n)
    return _api.path_uses(path, n, t)


@njit(cache=True)
def melded_cards(path, n):
    _path(path, n)
    return _api.melded_cards(path, n)


@njit(cache=True)
def copy_path(src, dst, n):
    _path(src, n)
    _path(dst, n)
    return _api.copy_path(src, dst, n)
