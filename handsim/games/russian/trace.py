"""Russian Hand move logs: replay one game with the move log on and turn it into JSON (RULES.md §8).

A move log is one JSON object per game (JSON lines in files), the format
:mod:`handsim.games.russian.checker` replays and ``handsim check`` reads::

    {"game": "russian", "deal": 17, "seed": 7, "players": 4, "rules": {...RussianRules.to_dict()...},
     "policies": ["greedy", "patient", "greedy", "random"],      # by seat; seat 0 plays first
     "deck": ["KS", "7H", ...],                                   # the shuffled deck, 104 cards
     "hands": [["KS", ...], ...],                                 # the hands dealt, by seat
     "events": [...],
     "result": {"end": "out" | "stock_out", "winner": 2 | null, "draw": false, "turns": 31,
                "won": [...], "drew": [...], "cards_left": [...], "value_left": [...]}}

Events, in order: ``{"type": "turn", "seat", "turn"}`` (a turn starts; turns count from 1),
``{"type": "draw", "seat", "card"}`` (the top stock card), ``{"type": "play", "seat", "cards",
"table_before", "table_after"}`` (the hand cards played and the whole table before and after the
play, each a list of melds: a run in position order, an Ace high last; a set in suit order),
``{"type": "stock_out", "seat"}`` (the game ends on an empty stock at this seat's turn) and
``{"type": "out", "seat"}`` (the seat emptied its hand and wins).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from handsim.cards import format_card, n_of

from .kernels import rearrange as _k
from .kernels import state as S
from .rules import RussianRules

_CARD_TEXT = {t: format_card(t) for t in range(52)}

#: The form of a Russian Hand move log, as ``handsim check`` reads it before the rules (see
#: :meth:`handsim.games.Game.trace_schema`): ``"game": "russian"``; the fields every log holds; the
#: JSON type of each log, event and result field.
TRACE_SCHEMA = {
    "what": "Russian Hand move logs", "unit": "game",
    "fields": ("players", "rules", "deck", "events", "result"),
    "types": {"deal": int, "seed": int, "players": int, "rules": dict, "deck": "cards", "hands": "hands",
              "events": list, "result": dict, "policies": "cards"},
    "event_types": {"type": str, "seat": "seat", "turn": int, "card": str, "cards": "cards",
                    "table_before": "melds", "table_after": "melds"},
    "result_types": {"end": str, "winner": "seat", "draw": bool, "turns": int, "won": "bools", "drew": "bools",
                     "cards_left": "ints", "value_left": "ints"},
}

#: How a game ended, by the engine's ``END_*`` code.
END_NAMES = {S.END_OUT: "out", S.END_STOCK_WIN: "stock_out", S.END_STOCK_DRAW: "stock_out"}

#: Why the engine refused a staged play (``WHY_*``), in words.
WHY = {
    S.WHY_NOTHING: "a play must place at least one hand card",
    S.WHY_NOT_HELD: "it places a card the hand does not hold",
    S.WHY_BAD_MELD: "the table after holds an illegal meld",
    S.WHY_CARDS: "the table after is not the table before plus the placed cards",
    S.WHY_FIRST_ROUND: "the first-round rule (only new melds of hand cards; one meld under one_meld)",
    S.WHY_COUNT: "the staged count does not match the placed cards",
}

#: Engine errors (``ERR_*``), in words.
ERRORS = {
    S.ERR_TURN_CAP: f"the game did not end within {S.TURN_CAP} turns",
    S.ERR_BAD_PLAY: "an illegal play was staged",
    S.ERR_LOG_FULL: "the move log is full",
    S.ERR_SEARCH: "the rearrangement search found the table is no partition into melds",
    S.ERR_BAD_ACTION: "a policy returned neither DRAW nor PLAY",
}


class RussianEngineError(RuntimeError):
    """The engine stopped a game (a bug, or an illegal play staged by a policy)."""

    def __init__(self, message: str, code: int):
        super().__init__(message)
        self.code = code


def meld_text(row: Sequence[int]) -> list[str]:
    """The cards of a kernel meld row as text, a run in position order, a set in suit order."""
    kind, key, a, b = (int(x) for x in row)
    if kind == _k.RUN:
        return [_CARD_TEXT[key * 13 + (1 if p == 14 else p) - 1] for p in range(a, b + 1)]
    return [_CARD_TEXT[s * 13 + key - 1] for s in range(4) if (a >> s) & 1]


def decode_events(log: np.ndarray) -> list[dict]:
    """The engine's move log (int16 rows, see :mod:`.kernels.state`) as event dicts."""
    log = [int(x) for x in log]
    events: list[dict] = []
    table: list[list[str]] = []
    turn = 0
    i = 0
    while i < len(log):
        code, seat = log[i], log[i + 1]
        i += 2
        if code == S.EV_TURN:
            turn += 1
            events.append({"type": "turn", "seat": seat, "turn": turn})
        elif code == S.EV_DRAW:
            events.append({"type": "draw", "seat": seat, "card": _CARD_TEXT[log[i]]})
            i += 1
        elif code == S.EV_PLAY:
            n = log[i]
            cards = [_CARD_TEXT[t] for t in log[i + 1:i + 1 + n]]
            i += 1 + n
            m = log[i]
            i += 1
            after = [meld_text(log[i + 4 * k:i + 4 * k + 4]) for k in range(m)]
            i += 4 * m
            events.append({"type": "play", "seat": seat, "cards": cards, "table_before": table, "table_after": after})
            table = after
        elif code == S.EV_STOCK_OUT:
            events.append({"type": "stock_out", "seat": seat})
        elif code == S.EV_OUT:
            events.append({"type": "out", "seat": seat})
        else:  # pragma: no cover - the engine writes only these
            raise ValueError(f"unknown move-log event code {code}")
    return events


def _policy_name(pid: int) -> str:
    from .policies.registry import BUILTIN_IDS

    for name, i in BUILTIN_IDS.items():
        if i == pid:
            return name
    return f"policy {pid}"  # pragma: no cover


def _assemble(rules: RussianRules, P: int, out, labels: Sequence[str], **extra) -> dict:
    log, deck, flags, cards, value, end, _pol, err = out
    deck_list = [int(c) for c in deck]
    h = rules.hand_size
    hands = [[_CARD_TEXT[c] for c in deck_list[s * h:(s + 1) * h]] for s in range(P)]
    events = decode_events(log)
    won = [bool(int(f) & S.FLAG_WON) for f in flags]
    drew = [bool(int(f) & S.FLAG_DREW) for f in flags]
    winner = next((s for s in range(P) if won[s]), None)
    d = dict(extra)
    d.update({
        "game": "russian",
        "players": P,
        "rules": rules.to_dict(),
        "policies": list(labels),
        "deck": [_CARD_TEXT[c] for c in deck_list],
        "hands": hands,
        "events": events,
        "result": {
            "end": END_NAMES.get(int(end), "error"),
            "winner": winner,
            "draw": int(end) == S.END_STOCK_DRAW,
            "turns": int(err[3]),
            "won": won,
            "drew": drew,
            "cards_left": [int(x) for x in cards],
            "value_left": [int(x) for x in value],
        },
    })
    return d


def _failure(out, where: str) -> RussianEngineError | None:
    err = out[7]
    code = int(err[0])
    if not code:
        return None
    what = ERRORS.get(code, f"engine error {code}")
    if code == S.ERR_BAD_PLAY:
        what += f" ({WHY.get(int(err[1]), int(err[1]))})"
    return RussianEngineError(f"{where}: {what} at seat {int(err[2])}, turn {int(err[3]) + 1}", code)


def trace_deal(rules: RussianRules, lineup, deal: int, seed: int, players: int | None = None) -> dict:
    """Replay game ``deal`` of a Russian Hand study (same seed, rules and line-up) with the move log on.

    Parameters
    ----------
    rules : RussianRules
    lineup : str or sequence of str or PolicySpec
        Russian Hand policies by line-up position; position ``j`` sits at seat ``(j + deal) % P``.
    deal : int
        Game index (>= 0).
    seed : int
        The study's seed.
    players : int, optional
        Defaults to the line-up's length.

    Returns
    -------
    dict
        The game in the move-log layout of this module's docstring.

    Raises
    ------
    RussianEngineError
        The engine stopped the game (the message names the deal, seat, turn and reason).
    """
    from handsim.policies import lineup_arrays, parse_lineup

    from .kernels import engine as E

    specs = parse_lineup(lineup, game="russian")
    P = players or len(specs)
    pol, pp = lineup_arrays(specs)
    out = E.play_traced(np.uint64(seed), np.int64(deal), np.int64(P), rules.to_vector(), pol, pp)
    labels = [""] * P
    for j, spec in enumerate(specs):
        labels[(j + deal) % P] = spec.label
    fail = _failure(out, f"deal {deal} (seed {seed})")
    if fail is not None:
        raise fail
    return _assemble(rules, P, out, labels, deal=int(deal), seed=int(seed))


def play_stacked_deal(rules: RussianRules, deck, policies, key: int = 0) -> dict:
    """Play one game from an explicit deck order (hand-built situations for tests).

    Parameters
    ----------
    rules : RussianRules
    deck : str or sequence of int
        The full deck order (104 cards, every card twice): seat 0 takes the first
        ``hand_size`` cards, seat 1 the next, ...; the rest is the stock, top first.
    policies : sequence of str or PolicySpec
        Russian Hand policy **by seat** (seat 0 plays first).
    key : int
        Seeds the random stream (the random policy's choices).

    Raises
    ------
    handsim.cards.CardError
        ``deck`` is not two full decks without jokers.
    RussianEngineError
        The engine stopped the game.
    """
    from handsim.cards import CardError, parse_cards
    from handsim.policies import lineup_arrays, parse_lineup

    from .kernels import engine as E

    cards = parse_cards(deck, jokers=0) if isinstance(deck, str) else [int(c) for c in deck]
    if len(cards) != S.DECK or any(cards.count(t) != 2 for t in range(52)):
        raise CardError(f"a stacked Russian Hand deck holds every card twice, 104 cards: got {n_of(len(cards))}")
    specs = parse_lineup(policies, game="russian")
    P = len(specs)
    pol, pp = lineup_arrays(specs)
    out = E.play_stacked(np.asarray(cards, dtype=np.int8), np.int64(P), rules.to_vector(), pol, pp, np.uint64(key))
    fail = _failure(out, "stacked deal")
    if fail is not None:
        raise fail
    return _assemble(rules, P, out, [s.label for s in specs], deal=None, seed=None, stacked=True)

