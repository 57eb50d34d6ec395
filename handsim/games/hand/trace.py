"""Move logs: replay one deal with tracing on and turn the kernel's event rows into JSON.

The JSON layout is documented in ``docs/design.md`` (one object per deal, JSON lines in
files) and is what :mod:`handsim.games.hand.checker` replays.
"""

from __future__ import annotations

import numpy as np

from handsim.cards import JOKER, format_card, n_of
from handsim.games.hand.rules import Rules

_SOURCES = {0: "stock", 1: "discard"}

#: Text of every card type, for the thousands of cards a move log names.
_CARD_TEXT = {t: format_card(t) for t in range(JOKER + 1)}


def _card_text(t: int) -> str:
    """:func:`handsim.cards.format_card` by table look-up (an invalid card type still raises CardError)."""
    text = _CARD_TEXT.get(t)
    return text if text is not None else format_card(t)


def _card_texts(cards) -> list[str]:
    """Texts of a sequence of card types."""
    try:
        return [_CARD_TEXT[t] for t in cards]
    except KeyError:
        return [format_card(t) for t in cards]


from handsim.errors import EngineError  # noqa: F401  (re-exported: handsim.games.hand.trace.EngineError)

#: The form of a classic Hand deal trace (docs/design.md), as ``handsim check`` reads it before
#: the rules (see :meth:`handsim.games.Game.trace_schema`): no ``game`` field; the fields every
#: trace holds; the JSON type of each trace, event and result field.
TRACE_SCHEMA = {
    "what": "classic Hand deal traces", "unit": "deal",
    "fields": ("players", "rules", "dealer", "starter", "deck", "events", "result"),
    "types": {"deal": int, "seed": int, "match": int, "round": int, "players": int, "rules": dict, "dealer": int,
              "starter": int, "deck": "cards", "hands": "hands", "events": list, "result": dict, "policies": "cards"},
    "event_types": {"type": str, "seat": int, "turn": int, "source": str, "card": str, "stands_for": str, "meld": int,
                    "kind": str, "cards": "pairs", "stock": "cards", "hand": bool},
    "result_types": {"void": bool, "out": "seat", "hand": bool, "turns": int, "opened": "bools", "joker_left": "bools",
                     "scores": "ints", "error": str},
}


def _meld_cards(kind: int, key: int, lo: int, hi: int, mask: int, nj: int) -> list[list[str]]:
    out = []
    if kind == 0:
        for q in range(lo, hi + 1):
            r = q if q <= 13 else 1
            t = key * 13 + r - 1
            c = JOKER if (mask >> q) & 1 else t
            out.append([_card_text(c), _card_text(t)])
    else:
        for s in range(4):
            if (mask >> s) & 1:
                t = s * 13 + key - 1
                text = _card_text(t)
                out.append([text, text])
        j = nj
        for s in range(4):
            if j > 0 and not (mask >> s) & 1:
                out.append(["JK", _card_text(s * 13 + key - 1)])
                j -= 1
    return out


class _TableMeld:
    """One table meld in the kernel's encoding (:mod:`handsim.games.hand.kernels.melds`), by field name."""

    __slots__ = ("kind", "key", "lo", "hi", "mask", "nj")

    def __init__(self, kind: int, key: int, lo: int, hi: int, mask: int, nj: int):
        self.kind, self.key, self.lo, self.hi, self.mask, self.nj = kind, key, lo, hi, mask, nj

    @property
    def is_set(self) -> bool:
        return self.kind == 1


def _position_card(suit: int, pos: int) -> int:
    """Card type at run position ``pos`` (1..14, 14 = the Ace high) of ``suit``."""
    return suit * 13 + (pos if pos <= 13 else 1) - 1


class _TableView:
    """Just enough table bookkeeping to name what a lay-off or swap stands for."""

    def __init__(self):
        self.melds: list[_TableMeld] = []

    def add(self, kind, key, lo, hi, mask, nj):
        self.melds.append(_TableMeld(kind, key, lo, hi, mask, nj))

    def layoff(self, k: int, card: int, pos: int) -> str:
        m = self.melds[k]
        if m.is_set:
            if card == JOKER:
                missing = [s for s in range(4) if not (m.mask >> s) & 1]
                # the new joker stands for the last missing suit not yet covered by jokers
                s = missing[min(m.nj, len(missing) - 1)]
                m.nj += 1
                return _card_text(s * 13 + m.key - 1)
            m.mask |= 1 << pos
            return _card_text(card)
        if pos < m.lo:
            m.lo = pos
        else:
            m.hi = pos
        if card == JOKER:
            m.mask |= 1 << pos
        return _card_text(_position_card(m.key, pos))

    def swap(self, k: int, card: int, pos: int) -> str:
        m = self.melds[k]
        if m.is_set:
            # a set's joker stands for any suit the set lacks: the natural that replaces it names it
            m.mask |= 1 << pos
            m.nj -= 1
            return _card_text(card)
        m.mask &= ~(1 << pos)
        return _card_text(_position_card(m.key, pos))


def decode_events(tr: np.ndarray) -> list[dict]:
    """Events of one deal from kernel rows ``int16[m, 24]`` (see :mod:`handsim.games.hand.kernels.state`)."""
    from handsim.games.hand.kernels import state as S

    EV_TURN, EV_DRAW, EV_DISCARD, EV_MELD, EV_LAYOFF, EV_SWAP = (
        S.EV_TURN, S.EV_DRAW, S.EV_DISCARD, S.EV_MELD, S.EV_LAYOFF, S.EV_SWAP)
    EV_RESHUFFLE, EV_CARDS, EV_OUT, EV_VOID = S.EV_RESHUFFLE, S.EV_CARDS, S.EV_OUT, S.EV_VOID
    card_text = _card_text
    events: list[dict] = []
    append = events.append
    table = _TableView()
    rows = tr.tolist()
    i = 0
    n = len(rows)
    while i < n:
        row = rows[i]
        et, seat = row[0], row[1]
        i += 1
        if et == EV_TURN:
            append({"type": "turn", "seat": seat, "turn": row[2]})
        elif et == EV_DRAW:
            append({"type": "draw", "seat": seat, "source": _SOURCES[row[3]], "card": card_text(row[2])})
        elif et == EV_DISCARD:
            append({"type": "discard", "seat": seat, "card": card_text(row[2])})
        elif et == EV_MELD:
            k, kind, key, lo, hi, mask, nj = row[2:9]
            mask &= 0xFFFF
            table.add(kind, key, lo, hi, mask, nj)
            append({
                "type": "meld", "seat": seat, "meld": k, "kind": "run" if kind == 0 else "set",
                "cards": _meld_cards(kind, key, lo, hi, mask, nj),
            })
        elif et == EV_LAYOFF:
            k, card, pos = row[2], row[3], row[4]
            stands = table.layoff(k, card, pos)
            append({"type": "layoff", "seat": seat, "meld": k, "card": card_text(card), "stands_for": stands})
        elif et == EV_SWAP:
            k, card, pos = row[2], row[3], row[4]
            stands = table.swap(k, card, pos)
            append({"type": "swap", "seat": seat, "meld": k, "card": card_text(card), "stands_for": stands})
        elif et == EV_RESHUFFLE:
            m = row[2]
            cards: list[str] = []
            while len(cards) < m and i < n and rows[i][0] == EV_CARDS:
                k = rows[i][1]
                cards.extend(_card_texts(rows[i][2 : 2 + k]))
                i += 1
            append({"type": "reshuffle", "stock": cards})
        elif et == EV_OUT:
            append({"type": "out", "seat": seat, "hand": bool(row[2])})
        elif et == EV_VOID:
            append({"type": "void"})
        else:
            raise ValueError(f"unknown trace row type {et}")
    return events


def trace_deal(
    rules: Rules,
    lineup,
    deal: int,
    seed: int,
    players: int | None = None,
    match_round: int | None = None,
    policy_files=(),
) -> dict:
    """Replay deal ``deal`` of a study (same seed, rules and line-up) with the move log on.

    Parameters
    ----------
    rules : Rules
    lineup : sequence of str or PolicySpec
        Policies by line-up position (see :func:`handsim.policies.parse_lineup`).
    deal : int
        Deal index (>= 0).
    seed : int
        The study's seed.
    players : int, optional
        Defaults to the line-up length.
    match_round : int, optional
        Replay round ``match_round`` (0-based; tie-break rounds follow the regular ones) of match
        ``deal`` of a match study (RULES.md section 7) instead of single deal ``deal``.
    policy_files : sequence of path, optional
        Policy files to load first (user-written policies in ``lineup``).

    Returns
    -------
    dict
        The deal in the JSON layout of ``docs/design.md`` (with ``match`` and ``round`` for a
        match round).

    Raises
    ------
    EngineError
        (a RuntimeError) If the engine reported an internal error for this deal.
    PolicyMoveError
        (a RuntimeError) If a user-written policy made an illegal move (one line with the
        ``show-deal`` command that replays it).
    PolicyFileError
        A policy file that cannot be used.
    """
    from handsim.policies import lineup_arrays, load_policy_files, parse_lineup
    from handsim.games.hand.policies.engines import engine_for

    load_policy_files(policy_files)
    specs = parse_lineup(lineup)
    P = players or len(specs)
    E = engine_for(specs)
    pol, pp = lineup_arrays(specs, E)
    if match_round is not None:
        tr, deck, dealer, status, scores, flags, pol_seat, err = E.play_traced_match_round(
            np.uint64(seed), np.int64(deal), np.int64(match_round), np.int64(P), rules.to_vector(), pol, pp
        )
    else:
        tr, deck, dealer, status, scores, flags, pol_seat, err = E.play_traced(
            np.uint64(seed), np.int64(deal), np.int64(P), rules.to_vector(), pol, pp
        )
    starter = _starter(rules, int(dealer), P)
    by_seat_policy = [None] * P
    seat_specs = [None] * P
    extra = {"deal": int(deal), "seed": int(seed)}
    for j, spec in enumerate(specs):
        if match_round is not None:
            s = (j + deal) % P  # one seating for the whole match
        else:
            s = (starter + (j + deal) % P) % P
        by_seat_policy[s] = spec.label
        seat_specs[s] = spec
    if int(err[0]):
        from handsim.games.hand.policies.violations import REPLAY, engine_failure, show_deal_command

        files = [f.path for f in E.files]
        command = show_deal_command(rules, [s.label for s in specs], P, seed, deal, match_round, files)
        failure = engine_failure(err, policies_by_seat=by_seat_policy, user=[not s.policy.builtin for s in seat_specs],
                                 deal=int(deal), seed=int(seed), command=command, match_round=match_round)
        if match_round is not None:
            extra.update(match=int(deal), round=int(match_round))
        try:  # the moves up to the failure, for show-deal
            failure.trace = _assemble(rules, P, [int(c) for c in deck], int(dealer), by_seat_policy, tr, status,
                                      scores, flags, **extra)
            failure.trace["result"]["error"] = str(failure).split(REPLAY)[0]
        except Exception:  # pragma: no cover - a log the decoder cannot read is reported by the error itself
            failure.trace = None
        raise failure
    if match_round is not None:
        extra.update(match=int(deal), round=int(match_round))
    return _assemble(rules, P, [int(c) for c in deck], int(dealer), by_seat_policy, tr, status, scores, flags,
                     **extra)


def _starter(rules: Rules, dealer: int, P: int) -> int:
    return rules.starter_of(dealer, P)


def _assemble(rules, P, deck_list, dealer, policies, tr, status, scores, flags, **extra) -> dict:
    from handsim.games.hand.kernels import state as S

    starter = _starter(rules, dealer, P)
    hs = rules.hand_size
    hands: list[list[str]] = [[] for _ in range(P)]
    k = 0
    for i in range(P):
        s = (starter + i) % P
        take = hs + 1 if i == 0 else hs
        hands[s] = _card_texts(deck_list[k : k + take])
        k += take
    events = decode_events(tr)
    turns = 0
    out_seat, is_hand = None, False
    for e in events:
        kind = e["type"]
        if kind == "turn":
            turns += 1
        elif kind == "out" and out_seat is None:
            out_seat, is_hand = e["seat"], e["hand"]
    d = dict(extra)
    d.update({
        "players": P,
        "rules": rules.to_dict(),
        "policies": policies,
        "dealer": dealer,
        "starter": starter,
        "deck": _card_texts(deck_list),
        "hands": hands,
        "events": events,
        "result": {
            "void": int(status) == S.STATUS_VOID,
            "out": out_seat,
            "hand": bool(is_hand),
            "turns": turns,
            "opened": [bool(flags[s] & 1) for s in range(P)],
            "joker_left": [bool(flags[s] & 8) for s in range(P)],
            "scores": [int(scores[s]) for s in range(P)],
        },
    })
    return d


def play_stacked_deal(rules: Rules, deck, policies, dealer: int = 0, key: int = 0) -> dict:
    """Play one round from an explicit deck order (hand-built situations for tests).

    Parameters
    ----------
    rules : Rules
    deck : str or sequence of int
        The full deck order (``104 + rules.jokers`` cards), dealt as in ``docs/design.md``:
        the starter takes the first ``hand_size + 1`` cards, then each next seat
        ``hand_size``; the rest is the stock, top first.
    policies : sequence of str or PolicySpec
        Policy **by seat** (seat 0 .. P-1).
    dealer : int
        Dealer seat (the starter follows from ``rules.starter``).
    key : int
        Seeds the stream of reshuffles and random decisions.

    Returns
    -------
    dict
        The deal in the JSON layout of ``docs/design.md``.

    Raises
    ------
    handsim.cards.CardError
        If ``deck`` is not exactly the deck of ``rules`` (every card the right number of times).
    EngineError
        (a RuntimeError) If the engine reported an internal error.
    """
    from handsim.games.hand.kernels.consts import MAX_SEATS
    from handsim.cards import CardError, counts_of, parse_cards
    from handsim.policies import lineup_arrays, parse_lineup
    from handsim.games.hand.policies.engines import engine_for

    if isinstance(deck, str) or (len(deck) and isinstance(deck[0], str)):
        cards = parse_cards(deck, jokers=rules.jokers)
    else:
        cards = [int(c) for c in deck]
    cnt = counts_of(cards)
    if len(cards) != rules.deck_size or any(cnt[t] != 2 for t in range(52)) or cnt[JOKER] != rules.jokers:
        raise CardError(f"a stacked deck must hold every card twice and {rules.jokers} joker(s): got {n_of(len(cards))}")
    specs = parse_lineup(policies)
    P = len(specs)
    E = engine_for(specs)
    pol, pp = lineup_arrays(specs, E)
    pol4 = np.zeros(MAX_SEATS, np.int64)
    pp4 = np.zeros((MAX_SEATS, pp.shape[1]), np.float64)
    pol4[:P] = pol
    pp4[:P] = pp
    tr, status, scores, flags, err = E.play_stacked(
        np.asarray(cards, dtype=np.int8), np.int64(dealer), np.uint64(key), np.int64(P), rules.to_vector(), pol4, pp4
    )
    if int(err[0]):
        from handsim.games.hand.policies.violations import engine_failure

        raise engine_failure(err, policies_by_seat=[s.label for s in specs],
                             user=[not s.policy.builtin for s in specs], deal=None, seed=None)
    return _assemble(rules, P, cards, int(dealer), [s.label for s in specs], tr, status, scores, flags,
                     deal=None, seed=None, stacked=True)
