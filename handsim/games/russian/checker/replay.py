"""The replay checker of Russian Hand: a whole game's move log against the rules (RULES.md §8).

:func:`check_deal` replays one move log (:mod:`handsim.games.russian.trace`) in pure Python,
knowing nothing of the engine or the search: the deck is two full decks without jokers; the
hands are dealt from it (seat 0 the first ``hand_size`` cards, then each next seat) and the
stock is the rest, top first; seats take turns in order 0, 1, ..., P-1, 0, ...; a turn is a draw
of the top stock card or a play, checked by :func:`handsim.games.russian.checker.check_play`
(the table before as logged is the table as it stands, the table after is it plus exactly the
cards played, every meld legal, the first-round rule); the game ends exactly when a hand is
empty (that player wins) or on an empty stock as ``stock_out_end`` says (the fewest cards wins,
then the lowest card value, else a draw among the tied); and the logged result - the winner,
the draw, the turns, each seat's cards and their value - is the one the rules give.  Every card
is accounted for after every play (hands + stock + table = the deck; a draw moves the top stock
card to a hand, which the replay does itself).

It replays a few hundred games a second on one core (a long fuzz replays millions): melds are
read from their text once (a play logs the whole table, mostly melds seen before), a play whose
table before is logged as the previous play's table after is not compared meld by meld again,
and :func:`check_play` decides a legal play before it builds any message.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from handsim.cards import CardError, format_card, n_of, parse_card

from handsim.options import check_json_rules

from ..rules import DECK_SIZE, MAX_PLAYERS, MIN_PLAYERS, PARAM_BY_NAME, RussianRules
from .play import check_play


class _Stop(Exception):
    """The replay cannot go on (the message is the discrepancy)."""


#: Card types by their canonical text (``"10H"``), the form move logs use.
_TYPES = {format_card(t): t for t in range(52)}


def _card(text: Any, what: str) -> int:
    t = _TYPES.get(text) if isinstance(text, str) else None
    if t is not None:
        return t
    if not isinstance(text, str):
        raise _Stop(f"{what} is not a card: {text!r}")
    try:
        t = parse_card(text)
    except CardError as e:
        raise _Stop(f"{what}: {e}") from None
    if t >= 52:
        raise _Stop(f"{what}: Russian Hand has no jokers")
    return t


#: Melds already read, by their text (every play logs the whole table, so the same melds are
#: read again and again): ``(card, ...)`` -> the card types.
_MELD_TEXT: dict[tuple, tuple[int, ...]] = {}


def _melds(table: Any, what: str) -> list[tuple[int, ...]]:
    if not isinstance(table, list) or not all(isinstance(m, list) for m in table):
        raise _Stop(f"{what} is not a list of melds")
    out = []
    for m in table:
        key = tuple(m)
        try:
            cards = _MELD_TEXT.get(key)
        except TypeError:  # a card that is no text (a list, a dict): _card names it
            cards = None
        if cards is None:
            cards = tuple(_card(c, what) for c in m)
            if len(_MELD_TEXT) >= 1 << 16:
                _MELD_TEXT.clear()
            _MELD_TEXT[key] = cards
        out.append(cards)
    return out


def _same_melds(a: list, b: list) -> bool:
    """Whether two tables hold the same melds (as multisets of cards), in any order."""
    return len(a) == len(b) and sorted(tuple(sorted(m)) for m in a) == sorted(tuple(sorted(m)) for m in b)


def _value(hand: Counter, rules: RussianRules) -> int:
    values = rules.rank_values()
    return sum(int(values[t % 13 + 1]) * n for t, n in hand.items())


def check_deal(trace: dict) -> list[str]:
    """Replay one Russian Hand game and list what does not follow the rules.

    Parameters
    ----------
    trace : dict
        A move log in the layout of :mod:`handsim.games.russian.trace` (``game``, ``players``,
        ``rules``, ``deck``, ``hands``, ``events``, ``result``).

    Returns
    -------
    list of str
        One line per discrepancy, naming the deal and, inside the game, the turn and seat, e.g.
        ``deal 17, turn 5, seat 2: play: 7H is played but not in the hand``.  Empty when the
        game follows the rules.
    """
    deal = trace.get("deal", "?") if isinstance(trace, dict) else "?"
    try:
        return _Replay(trace).run()
    except _Stop as e:
        return [f"deal {deal}: {e}"]


class _Replay:
    def __init__(self, trace: dict):
        if not isinstance(trace, dict):
            raise _Stop(f"a move log is a JSON object, not {type(trace).__name__}")
        self.trace = trace
        self.deal = trace.get("deal", "?")
        rules = trace.get("rules")
        if not isinstance(rules, dict) or not rules:
            raise _Stop(f"its rules must be an object naming the rules it was played under, not {rules!r}")
        try:
            check_json_rules(rules, PARAM_BY_NAME)  # "hand_size": "7" is refused, not read as 7
            self.rules = RussianRules.from_dict(rules)
        except ValueError as e:
            raise _Stop(f"its rules cannot be read: {e}") from None
        P = trace.get("players")
        if not isinstance(P, int) or isinstance(P, bool) or not MIN_PLAYERS <= P <= MAX_PLAYERS:
            raise _Stop(f"players must be {MIN_PLAYERS} to {MAX_PLAYERS}, not {P!r}")
        self.P = P
        self.problems: list[str] = []

    def fail(self, where: str, message: str) -> None:
        self.problems.append(f"deal {self.deal}, {where}: {message}")

    def run(self) -> list[str]:
        tr, P, rules = self.trace, self.P, self.rules
        deck = [_card(c, "the deck") for c in tr.get("deck") or []]
        if len(deck) != DECK_SIZE or any(n != 2 for n in Counter(deck).values()) or len(set(deck)) != 52:
            raise _Stop(f"the deck is not two full decks of 52 cards without jokers ({n_of(len(deck))})")
        h = rules.hand_size
        hands = [Counter(deck[s * h:(s + 1) * h]) for s in range(P)]
        logged = tr.get("hands")
        if logged is not None:
            for s in range(P):
                got = Counter(_card(c, f"the hand of seat {s}") for c in (logged[s] if s < len(logged) else []))
                if got != hands[s]:
                    self.fail(f"seat {s}", "the hand dealt is not the deck's cards for that seat")
        stock = deck[P * h:]
        top = 0
        table: list = []
        table_text: Any = []  # the table as logged by the last play (the next play's table before)
        turn = 0
        seat = None
        acted = False
        ended = None  # ("out", seat) or ("stock_out", seat)
        events = tr.get("events")
        if not isinstance(events, list):
            raise _Stop("its events are not a list")
        for k, ev in enumerate(events):
            if not isinstance(ev, dict):
                raise _Stop(f"event {k + 1} is not an object")
            kind = ev.get("type")
            where = f"turn {turn}, seat {seat}"
            if ended is not None:
                self.fail(where, f"the game had ended ({ended[0]}), but a {kind!r} event follows")
                break
            if kind == "turn":
                if seat is not None and not acted:
                    self.fail(where, "the turn ended without a draw or a play")
                turn += 1
                seat = ev.get("seat")
                expected = (turn - 1) % P
                if seat != expected or ev.get("turn") != turn:
                    self.fail(f"turn {turn}", f"turn {ev.get('turn')!r} of seat {seat!r}, but turn {turn} is "
                                              f"seat {expected}'s (seats play in order from seat 0)")
                    seat = expected
                acted = False
                continue
            if seat is None:
                raise _Stop(f"event {k + 1} ({kind!r}) comes before the first turn")
            if acted and kind in ("draw", "play"):
                self.fail(where, f"a second move ({kind}) in one turn: a turn is one draw or one play")
            if ev.get("seat") != seat:
                self.fail(where, f"a {kind} event of seat {ev.get('seat')!r} in seat {seat}'s turn")
            if kind == "draw":
                acted = True
                card = _card(ev.get("card"), "the card drawn")
                if top >= len(stock):
                    self.fail(where, f"draws {ev.get('card')} from an empty stock")
                    continue
                if card != stock[top]:
                    self.fail(where, f"draws {ev.get('card')}, but the top stock card is "
                                     f"{_text(stock[top])}")
                hands[seat][stock[top]] += 1
                top += 1
                if rules.stock_out_end == "last_card" and top == len(stock):
                    nxt = events[k + 1] if k + 1 < len(events) else None
                    if not (isinstance(nxt, dict) and nxt.get("type") == "stock_out"):
                        self.fail(where, "the last stock card was drawn (stock_out_end = last_card): the game "
                                         "must end there")
            elif kind == "play":
                acted = True
                played = [_card(c, "a card played") for c in ev.get("cards") or []]
                raw_before = ev.get("table_before")
                before = table if raw_before == table_text and raw_before is not None else _melds(raw_before,
                                                                                                 "the table before")
                table_text = ev.get("table_after")
                after = _melds(table_text, "the table after")
                if before is not table and not _same_melds(before, table):
                    self.fail(where, "play: the table before, as logged, is not the table as it stands")
                first = turn <= P
                for msg in check_play(table, list(hands[seat].elements()), played, after, first_round=first,
                                      rules=rules):
                    self.fail(where, "play: " + msg)
                for c in played:
                    if hands[seat][c] > 0:
                        hands[seat][c] -= 1
                hands[seat] = +hands[seat]
                table = after
                if sum(hands[seat].values()) == 0:
                    nxt = events[k + 1] if k + 1 < len(events) else None
                    if not (isinstance(nxt, dict) and nxt.get("type") == "out" and nxt.get("seat") == seat):
                        self.fail(where, "the hand is empty: the game must end there, the player going out")
            elif kind == "out":
                if sum(hands[seat].values()) != 0:
                    self.fail(where, f"goes out holding {n_of(sum(hands[seat].values()))}")
                ended = ("out", seat)
            elif kind == "stock_out":
                if top < len(stock):
                    self.fail(where, f"the game ends on an empty stock, but it holds {n_of(len(stock) - top)}")
                elif rules.stock_out_end == "must_draw" and acted:
                    self.fail(where, "stock_out_end = must_draw: the game ends at a turn that is not a play "
                                     "while the stock is empty, not after a move")
                elif rules.stock_out_end == "last_card" and not acted:
                    self.fail(where, "stock_out_end = last_card: the game ends when the last card is drawn")
                ended = ("stock_out", seat)
                acted = True
            else:
                self.fail(where, f"unknown event {kind!r}")
            # a draw moves the top stock card to a hand (this replay does it), so the cards are
            # counted after each play
            if kind == "play" and not self.conserved(hands, stock[top:], table):
                self.fail(where, "cards are not conserved (hands + stock + table differ from the deck)")
                break
        if ended is None:
            self.fail(f"turn {turn}", "the log ends but the game has not ended (no 'out' or 'stock_out' event)")
            return self.problems
        self.check_result(ended, hands, turn)
        return self.problems

    def conserved(self, hands, stock, table) -> bool:
        """Every card accounted for: hands + stock + table hold each card type exactly twice."""
        counts = [0] * 52
        for h in hands:
            for c, n in h.items():
                counts[c] += n
        for c in stock:
            counts[c] += 1
        for m in table:
            for c in m:
                counts[c] += 1
        return counts == _TWICE

    def check_result(self, ended, hands, turns: int) -> None:
        P, rules = self.P, self.rules
        res = self.trace.get("result")
        if not isinstance(res, dict):
            self.fail("result", "no result object")
            return
        cards = [sum(hands[s].values()) for s in range(P)]
        values = [_value(hands[s], rules) for s in range(P)]
        if ended[0] == "out":
            won = [s == ended[1] for s in range(P)]
            drew = [False] * P
            winner, draw, end = ended[1], False, "out"
        else:
            best = min((cards[s], values[s]) for s in range(P))
            tied = [s for s in range(P) if (cards[s], values[s]) == best]
            won = [len(tied) == 1 and s in tied for s in range(P)]
            drew = [len(tied) > 1 and s in tied for s in range(P)]
            winner = tied[0] if len(tied) == 1 else None
            draw, end = len(tied) > 1, "stock_out"
        want = {"end": end, "winner": winner, "draw": draw, "turns": turns, "won": won, "drew": drew,
                "cards_left": cards, "value_left": values}
        for key, value in want.items():
            if res.get(key) != value:
                self.fail("result", f"{key} is {res.get(key)!r}, but the rules give {value!r}")


_TWICE = [2] * 52


def _text(t: int) -> str:
    from handsim.cards import format_card

    return format_card(t)


def check_file(path) -> tuple[int, list[tuple[Any, str]]]:
    """Check every game of a JSON-lines file of Russian Hand move logs (one per line, blank lines
    skipped): ``(games, [(deal, message), ...])``, a line that is not JSON named by its number.

    Raises
    ------
    OSError
        If the file cannot be read.
    """
    from handsim.movelog import check_file as check_lines

    return check_lines(path, check_deal)
