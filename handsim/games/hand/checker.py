"""The replay checker: does a recorded deal follow the rules? (RULES.md sections 2-6)

A trace (``docs/design.md``, one JSON object per deal) holds the deck order, the dealer,
the starter, the rules and every event of the round.  :func:`check_deal` rebuilds the deal
from the deck exactly as ``docs/design.md`` describes, replays the events one by one on a
:class:`GameState` and lists every discrepancy it finds.  It trusts nothing in the trace
but the deck order, the reshuffled stock order and the players' choices; each choice is
checked against the rules.

Some discrepancies leave the cards in a state the replay cannot follow (a draw of a card
that is not on top, a card the player does not hold, ...): the replay stops there.  The
others (an opening below the threshold, a wrong Hand flag, ...) are recorded and the replay
goes on, so one trace can report several.
"""

from __future__ import annotations

import json
from collections import Counter, deque
from operator import add
from typing import Any

from handsim import movelog
from handsim.cards import JOKER, N_TYPES, CardError, format_card, format_cards, n_of, parse_card
from handsim.melds import Pair, can_lay_off, can_swap, format_pairs, validate_meld
from handsim.games.hand.rules import PARAM_BY_NAME, Rules, RulesError, check_json_rules
from handsim.games.hand.scoring import partners_of, score_round

#: Canonical card text -> card type (``format_card``'s output); other spellings go through parse_card.
_CARD_OF = {format_card(t): t for t in range(N_TYPES)}
_MISSING = object()


class _Stop(Exception):
    """Raised after a discrepancy that the replay cannot continue past."""


def full_deck(rules) -> Counter:
    """The deck as a multiset of card types: two of each natural card, ``rules.jokers`` jokers."""
    deck = Counter({t: 2 for t in range(JOKER)})
    if rules.jokers:
        deck[JOKER] = rules.jokers
    return deck


def _deck_counts(rules) -> list[int]:
    """The deck as a count vector by card type (length 53)."""
    return [2] * JOKER + [rules.jokers]


def _counts(cards) -> list[int]:
    """Count vector (length 53) of card types."""
    out = [0] * N_TYPES
    for t in cards:
        out[t] += 1
    return out


def _as_counter(counts: list[int]) -> Counter:
    return Counter({t: k for t, k in enumerate(counts) if k})


def _difference(have: Counter, want: Counter) -> str:
    """``missing 7H, extra 9D`` between two multisets of card types."""
    missing = sorted((want - have).elements())
    extra = sorted((have - want).elements())
    parts = []
    if missing:
        parts.append(f"missing {format_cards(missing)}")
    if extra:
        parts.append(f"extra {format_cards(extra)}")
    return ", ".join(parts)


#: Rules already read from a trace's ``rules`` object (traces of one study share a few).
_RULES_CACHE: dict[tuple, Rules] = {}


def _rules_from_dict(d: Any) -> Rules:
    """:meth:`Rules.from_dict`, remembering the answer for objects already seen; every value must
    have its JSON type (``"hand_size": "7"`` is refused, not read as 7) and ``{}`` names no rules.

    Raises
    ------
    RulesError
    """
    if isinstance(d, dict):
        if not d:
            raise RulesError("an empty object: a trace names the rules it was played under")
        check_json_rules(d, PARAM_BY_NAME)
    try:
        key = tuple((k, type(v), v) for k, v in d.items())
        hash(key)
    except (TypeError, AttributeError):
        return Rules.from_dict(d)
    rules = _RULES_CACHE.get(key)
    if rules is None:
        rules = Rules.from_dict(d)
        if len(_RULES_CACHE) > 256:
            _RULES_CACHE.clear()
        _RULES_CACHE[key] = rules
    return rules


class GameState:
    """The cards of one round: hands, stock, discard pile and table (RULES.md section 3).

    Parameters
    ----------
    rules : handsim.games.hand.rules.Rules
    players : int
        Seats, numbered in playing order.
    deck : list of int
        The shuffled deck, card types in deal order.
    starter : int
        The seat that takes ``hand_size + 1`` cards and plays first.

    Attributes
    ----------
    hands : list of list of int
        Copies of each card type held (count vectors of length 53), by seat.
    held : list of int
        Cards in each seat's hand.
    stock : deque of int
        The stock, top card first.
    pile : list of int
        The discard pile, top card last.
    table : list of list of (int, int)
        The melds in the order laid, as ``(card, stands_for)`` pairs (runs in position order).
    owner : list of int
        The seat that laid each meld.
    opened : list of bool
        Whether each seat has made its own opening.
    laid_down : list of bool
        Whether each seat has melded, laid off or swapped in a finished turn.
    best_opening : int
        The highest opening value of the round so far, in points (for ``ascending``).
    reshuffles : int
        Times the pile has become the stock.
    """

    def __init__(self, rules, players: int, deck: list[int], starter: int):
        self.rules = rules
        self.players = players
        self.hands: list[list[int]] = [[0] * N_TYPES for _ in range(players)]
        self.held = [0] * players
        pos = 0
        for k in range(players):
            seat = (starter + k) % players
            size = rules.hand_size + (1 if k == 0 else 0)
            hand = self.hands[seat]
            for t in deck[pos:pos + size]:
                hand[t] += 1
            self.held[seat] = len(deck[pos:pos + size])
            pos += size
        self.stock: deque[int] = deque(deck[pos:])
        self.pile: list[int] = []
        self.table: list[list[Pair]] = []
        self.owner: list[int] = []
        self.opened = [False] * players
        self.laid_down = [False] * players
        self.best_opening = 0
        self.reshuffles = 0
        self.team_opening = rules.opening_scope == "team"

    def partner(self, seat: int) -> int | None:
        """The partner seat (opposite) in a 2 v 2 game (``partnership=true``), else None."""
        return self.rules.partner_of(seat, self.players)

    def is_open(self, seat: int) -> bool:
        """Whether the seat counts as opened: its own opening, or with ``opening_scope="team"``
        its partner's (RULES.md section 4)."""
        if self.opened[seat]:
            return True
        partner = self.partner(seat)
        return self.team_opening and partner is not None and self.opened[partner]

    def counts(self) -> list[int]:
        """Every card in hands, stock, pile and on the table, as a count vector by card type."""
        hands = self.hands
        summed = map(add, hands[0], hands[1])
        for hand in hands[2:]:
            summed = map(add, summed, hand)
        total = list(summed)
        for t in self.stock:
            total[t] += 1
        for t in self.pile:
            total[t] += 1
        for meld in self.table:
            for c, _ in meld:
                total[c] += 1
        return total

    def all_cards(self) -> Counter:
        """Every card in hands, stock, pile and on the table, as one multiset of card types."""
        return _as_counter(self.counts())

    def hand_cards(self, seat: int) -> list[int]:
        """The seat's hand as a sorted list of card types."""
        return [t for t, k in enumerate(self.hands[seat]) for _ in range(k)]


class TurnState:
    """What has happened so far in the current turn."""

    __slots__ = ("seat", "number", "needs_draw", "required", "opened_at_start", "laid_before", "drew",
                 "reshuffled", "taken", "held_before_take", "laid_melds", "meld_value", "new_meld_cards",
                 "n_new_meld_cards", "laid_off", "used", "layoff_or_swap", "touched_others", "discarded", "closed")

    def __init__(self, seat: int, number: int, needs_draw: bool, required: int, opened_at_start: bool,
                 laid_before: bool):
        self.seat = seat
        self.number = number
        self.needs_draw = needs_draw            # every turn but the starter's first
        self.required = required                # points an opening needs in this turn
        self.opened_at_start = opened_at_start
        self.laid_before = laid_before          # laid something down in an earlier turn (no Hand possible)
        self.drew = False
        self.reshuffled = False
        self.taken: int | None = None           # card type taken from the discard pile
        self.held_before_take = 0               # copies of it in hand before the draw
        self.laid_melds = False
        self.meld_value = 0                     # points of the new melds of this turn
        self.new_meld_cards: dict[int, int] = {}  # card type -> copies put into new melds
        self.n_new_meld_cards = 0
        self.laid_off: dict[int, int] = {}      # card type -> copies laid off
        self.used: dict[int, int] = {}          # card type -> copies played from the hand to the table
        self.layoff_or_swap = False
        self.touched_others = False             # laid off or swapped on another player's meld
        self.discarded = False
        self.closed = False

    @property
    def is_opening(self) -> bool:
        return not self.opened_at_start and self.laid_melds


class _Replay:
    """Replays one trace; one ``on_<event>`` method per event type.

    Card conservation: the events that only move one card (draw, discard) cannot change the
    multiset of all cards; the reshuffle is checked against the pile; a meld, lay-off or swap
    checks that the table meld it leaves holds exactly the cards that went in.  On top of
    that the whole multiset (hands, stock, pile, table) is recounted against the deck at
    every turn's end and at the end of the round.
    """

    def __init__(self, trace: dict):
        self.trace = trace
        self.deal = trace.get("deal", "?")
        self.problems: list[str] = []
        self.turn: TurnState | None = None
        self.turns = 0
        self.finished = False
        self.hand_emptied = False
        self.void = False
        self.out: int | None = None
        self.hand_finish = False
        self.state: GameState | None = None
        self.rules: Rules | None = None
        self.starter = 0
        self.deck: list[int] = []  # the full deck as a count vector, for the conservation check
        self.handlers = {
            "turn": self.on_turn, "draw": self.on_draw, "reshuffle": self.on_reshuffle, "void": self.on_void,
            "meld": self.on_meld, "layoff": self.on_layoff, "swap": self.on_swap, "discard": self.on_discard,
            "out": self.on_out,
        }

    # -- reporting ------------------------------------------------------------------------

    def where(self) -> str:
        if self.turn is None:
            return f"deal {self.deal}"
        return f"deal {self.deal}, turn {self.turn.number}, seat {self.turn.seat}"

    def fail(self, message: str) -> None:
        """Record a discrepancy; the replay goes on."""
        self.problems.append(f"{self.where()}: {message}")

    def stop(self, message: str):
        """Record a discrepancy the replay cannot continue past."""
        self.fail(message)
        raise _Stop

    # -- reading the trace ----------------------------------------------------------------

    def field(self, obj: dict, name: str, what: str) -> Any:
        if not isinstance(obj, dict) or name not in obj:
            self.stop(f"{what}: missing field {name!r}")
        return obj[name]

    def card(self, text: Any, what: str) -> int:
        if type(text) is str:
            t = _CARD_OF.get(text)
            if t is not None:
                return t
        try:
            return parse_card(str(text))
        except CardError as e:
            self.stop(f"{what}: {e}")

    def cards(self, texts: Any, what: str) -> list[int]:
        if not isinstance(texts, list):
            self.stop(f"{what}: expected a list of cards, got {texts!r}")
        get = _CARD_OF.get
        out = [get(t) if type(t) is str else None for t in texts]
        if None in out:
            return [self.card(t, what) for t in texts]
        return out

    def int_field(self, obj: dict, name: str, what: str, lo: int, hi: int) -> int:
        value = self.field(obj, name, what)
        if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
            self.stop(f"{what}: {name} must be an integer {lo}..{hi}, got {value!r}")
        return value

    # -- the run --------------------------------------------------------------------------

    def run(self) -> list[str]:
        try:
            self.setup()
            events = self.field(self.trace, "events", "trace")
            if not isinstance(events, list):
                self.stop("events: expected a list")
            step = self.step
            for ev in events:
                step(ev)
            if not self.finished:
                self.stop("the events end without an out or void event")
            self.recount("out" if self.out is not None else "void")
            self.check_result()
        except _Stop:
            pass
        return self.problems

    def setup(self) -> None:
        trace = self.trace
        try:
            rules = _rules_from_dict(self.field(trace, "rules", "trace"))
        except (RulesError, TypeError, AttributeError) as e:
            self.stop(f"rules: {e}")
        self.rules = rules
        players = self.int_field(trace, "players", "trace", 2, 5)
        try:
            rules.validate(players)
        except RulesError as e:
            self.stop(f"rules: {e}")
        dealer = self.int_field(trace, "dealer", "trace", 0, players - 1)
        starter = self.int_field(trace, "starter", "trace", 0, players - 1)
        expected_starter = rules.starter_of(dealer, players)
        if starter != expected_starter:
            self.stop(f"starter is seat {starter}, but with starter={rules.starter} and dealer {dealer} "
                      f"it is seat {expected_starter}")
        policies = trace.get("policies")
        if policies is not None and (not isinstance(policies, list) or len(policies) != players):
            self.fail(f"policies: expected {players} entries, one per seat")

        self.starter = starter
        self.deck = _deck_counts(rules)
        deck = self.cards(self.field(trace, "deck", "trace"), "deck")
        if _counts(deck) != self.deck:
            diff = _difference(Counter(deck), full_deck(rules))
            self.stop(f"deck: not the full {rules.deck_size}-card deck: {diff}")
        self.state = GameState(rules, players, deck, starter)

        hands = trace.get("hands")
        if hands is not None:
            if not isinstance(hands, list) or len(hands) != players:
                self.stop(f"hands: expected {players} hands, one per seat")
            for seat, hand in enumerate(hands):
                dealt = self.state.hands[seat]
                cards = self.cards(hand, f"hands[{seat}]")
                if _counts(cards) != dealt:
                    diff = _difference(Counter(cards), _as_counter(dealt))
                    self.stop(f"hands[{seat}]: not the cards dealt from the deck: {diff}")

    def step(self, ev: Any) -> None:
        kind = ev.get("type") if isinstance(ev, dict) else None
        handler = self.handlers.get(kind) if isinstance(kind, str) else None
        if handler is None:
            self.stop(f"unknown event {ev!r}")
        if self.finished:
            self.stop(f"{kind} event after the round ended")
        if self.hand_emptied and kind != "out":
            self.stop(f"the hand of seat {self.turn.seat} is empty, but the next event is {kind}, not out")
        if kind != "turn" and self.turn is None:
            self.stop(f"{kind} event before the first turn")
        handler(ev)

    def recount(self, kind: str) -> None:
        """Card conservation: every card of the deck is in a hand, the stock, the pile or on the table."""
        have = self.state.counts()
        if have != self.deck:
            diff = _difference(_as_counter(have), _as_counter(self.deck))
            self.stop(f"after the {kind} event the cards are not the deck: {diff}")

    def same_cards(self, kind: str, before: list, after) -> None:
        """The table meld an event leaves holds exactly the cards of ``before`` (card conservation)."""
        if sorted(before) != sorted(c for c, _ in after):
            self.recount(kind)

    def actor(self, ev: dict, kind: str) -> int:
        """The event's seat, which must be the seat whose turn it is."""
        seat = ev.get("seat", _MISSING)
        if seat is _MISSING:
            self.stop(f"{kind}: missing field 'seat'")
        if seat != self.turn.seat:
            self.stop(f"{kind} by seat {seat} during the turn of seat {self.turn.seat}")
        return seat

    def expect_drawn(self, action: str) -> None:
        turn = self.turn
        if turn.needs_draw and not turn.drew:
            self.fail(f"{action} before the draw")
        if turn.discarded:
            self.stop(f"{action} after the discard that ended the turn")

    def take_from_hand(self, seat: int, cards: list[int], action: str) -> None:
        hand = self.state.hands[seat]
        need = {}
        for t in cards:
            need[t] = need.get(t, 0) + 1
        short = [t for t, k in sorted(need.items()) for _ in range(k - hand[t]) if k > hand[t]]
        if short:
            self.stop(f"{action} {format_cards(short)}, not in the hand "
                      f"({format_cards(self.state.hand_cards(seat))})")
        for t in cards:
            hand[t] -= 1
        self.state.held[seat] -= len(cards)

    def take_one(self, seat: int, card: int, action: str) -> None:
        hand = self.state.hands[seat]
        if not hand[card]:
            self.stop(f"{action} {format_card(card)}, not in the hand "
                      f"({format_cards(self.state.hand_cards(seat))})")
        hand[card] -= 1
        self.state.held[seat] -= 1

    def after_play(self, seat: int) -> None:
        """A card went from the hand to the table: an empty hand ends the round."""
        if not self.state.held[seat]:
            self.hand_emptied = True

    def may_add_to_table(self, seat: int, action: str) -> None:
        """Lay-offs and joker swaps need an opened player (RULES.md section 4) - or, with
        ``hand_waives_threshold``, melds laid in this turn, which must then make it a Hand
        (:meth:`close_turn` checks that)."""
        waived = self.rules.hand_waives_threshold and self.turn.laid_melds
        if not self.state.is_open(seat) and not waived:
            if self.turn.laid_melds:
                self.fail(f"{action} before opening (the melds of this turn are worth "
                          f"{self.turn.meld_value} of the {self.turn.required} points needed)")
            else:
                self.fail(f"{action} before opening")
        elif not self.turn.opened_at_start and not self.rules.layoff_on_opening_turn:
            self.fail(f"{action} in the opening turn, but layoff_on_opening_turn is false")

    # -- events ---------------------------------------------------------------------------

    def on_turn(self, ev: dict) -> None:
        state = self.state
        previous = self.turn
        if previous is not None:
            if not previous.closed:
                self.fail("the turn ended without a discard")
                self.close_turn()
            self.recount("discard" if previous.discarded else "turn")
        seat = self.field(ev, "seat", "turn")
        number = self.field(ev, "turn", "turn")
        expected_seat = self.starter if previous is None else (previous.seat + 1) % state.players
        self.turns += 1
        self.turn = TurnState(
            expected_seat,
            self.turns,
            previous is not None,
            self.required_opening(),
            state.is_open(expected_seat),
            state.laid_down[expected_seat],
        )
        if number != self.turns:
            self.fail(f"turn event numbered {number}, expected {self.turns}")
        if seat != expected_seat:
            self.stop(f"turn of seat {seat}, but seat {expected_seat} plays now")

    def required_opening(self) -> int:
        """Points an opening needs now (RULES.md section 4)."""
        if self.rules.opening_rule == "ascending" and self.state.best_opening:
            return max(self.rules.opening_threshold, self.state.best_opening + self.rules.ascending_increment)
        return self.rules.opening_threshold

    def on_draw(self, ev: dict) -> None:
        state, turn = self.state, self.turn
        seat = self.actor(ev, "draw")
        if not turn.needs_draw:
            self.fail("a draw in the starter's first turn, which has none")
        if turn.drew:
            self.fail("a second draw in one turn")
        if turn.used or turn.discarded:
            self.fail("the draw comes after cards were played")
        source = self.field(ev, "source", "draw")
        card = self.card(self.field(ev, "card", "draw"), "draw")
        if source == "stock":
            if not state.stock:
                self.stop(f"drew {format_card(card)} from the stock, but the stock is empty "
                          f"and no reshuffle came first")
            if card != state.stock[0]:
                self.stop(f"drew {format_card(card)} from the stock, but its top card is {format_card(state.stock[0])}")
            state.stock.popleft()
        elif source == "discard":
            if turn.reshuffled:
                self.fail("reshuffled the pile into the stock, then drew from the discard pile")
            if not state.pile:
                self.stop(f"drew {format_card(card)} from the discard pile, but the pile is empty")
            if card != state.pile[-1]:
                self.stop(f"drew {format_card(card)} from the discard pile, "
                          f"but its top card is {format_card(state.pile[-1])}")
            state.pile.pop()
            turn.taken = card
            turn.held_before_take = state.hands[seat][card]
        else:
            self.stop(f"draw source {source!r}: expected stock or discard")
        state.hands[seat][card] += 1
        state.held[seat] += 1
        turn.drew = True

    def on_reshuffle(self, ev: dict) -> None:
        state, turn, rules = self.state, self.turn, self.rules
        if turn.drew or not turn.needs_draw:
            self.stop("reshuffle outside the draw of a turn")
        if state.stock:
            self.stop(f"reshuffle while the stock still holds {n_of(len(state.stock))}")
        if state.reshuffles >= rules.max_reshuffles:
            self.fail(f"reshuffle number {state.reshuffles + 1}, but max_reshuffles is {rules.max_reshuffles}")
        new_stock = self.cards(self.field(ev, "stock", "reshuffle"), "reshuffle")
        if sorted(new_stock) != sorted(state.pile[:-1]):
            diff = _difference(Counter(new_stock), Counter(state.pile[:-1]))
            self.stop(f"reshuffle: the new stock is not the discard pile minus its top card: {diff}")
        state.stock = deque(new_stock)
        state.pile = state.pile[-1:]
        state.reshuffles += 1
        turn.reshuffled = True

    def on_void(self, ev: dict) -> None:
        state, turn, rules = self.state, self.turn, self.rules
        if turn.drew or not turn.needs_draw:
            self.fail("void outside the draw of a turn")
        if state.stock:
            self.fail(f"void while the stock still holds {n_of(len(state.stock))}")
        elif state.reshuffles < rules.max_reshuffles and len(state.pile) > 1:
            self.fail(f"void after {state.reshuffles} reshuffles, but max_reshuffles is {rules.max_reshuffles} "
                      f"and the pile holds {len(state.pile) - 1} cards to reshuffle")
        self.void = True
        self.finished = True

    def on_meld(self, ev: dict) -> None:
        state, turn = self.state, self.turn
        seat = self.actor(ev, "meld")
        self.expect_drawn("meld")
        index = self.field(ev, "meld", "meld")
        if index != len(state.table):
            self.stop(f"meld index {index}, but the next meld on the table is {len(state.table)}")
        raw = self.field(ev, "cards", "meld")
        if not isinstance(raw, list) or not all(isinstance(p, list) and len(p) == 2 for p in raw):
            self.stop(f"meld cards: expected a list of [card, stands_for] pairs, got {raw!r}")
        card = self.card
        pairs = [(card(c, "meld"), card(sf, "meld")) for c, sf in raw]
        check = validate_meld(pairs, self.rules)
        if not check.ok:
            self.fail(f"illegal meld {format_pairs(pairs)}: {check.reason}")
        else:
            if ev.get("kind") != check.kind:
                self.fail(f"meld {format_pairs(pairs)} recorded as kind {ev.get('kind')!r}, but it is a {check.kind}")
            if check.kind == "run" and tuple(pairs) != check.cards:
                self.fail(f"run {format_pairs(pairs)} not in position order ({format_pairs(check.cards)})")
        played = [c for c, _ in pairs]
        self.take_from_hand(seat, played, "melded")
        used, new = turn.used, turn.new_meld_cards
        for c in played:
            used[c] = used.get(c, 0) + 1
            new[c] = new.get(c, 0) + 1
        turn.n_new_meld_cards += len(played)
        state.table.append(list(check.cards) if check.ok else pairs)
        state.owner.append(seat)
        if check.ok:
            self.same_cards("meld", played, check.cards)
        turn.laid_melds = True
        turn.meld_value += check.value
        if not turn.opened_at_start and turn.meld_value >= turn.required:
            state.opened[seat] = True
        self.after_play(seat)

    def table_meld(self, ev: dict, kind: str) -> int:
        index = self.field(ev, "meld", kind)
        if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < len(self.state.table):
            self.stop(f"{kind} on meld {index!r}, but the table holds melds 0..{len(self.state.table) - 1}")
        return index

    def on_layoff(self, ev: dict) -> None:
        state, turn = self.state, self.turn
        seat = self.actor(ev, "layoff")
        self.expect_drawn("lay-off")
        index = self.table_meld(ev, "layoff")
        card = self.card(self.field(ev, "card", "layoff"), "layoff")
        stands_for = self.card(ev.get("stands_for", format_card(card)), "layoff")
        self.may_add_to_table(seat, "lay-off")
        self.take_one(seat, card, "laid off")
        turn.used[card] = turn.used.get(card, 0) + 1
        meld = state.table[index]
        check = can_lay_off(meld, card, stands_for, self.rules)
        if check.ok:
            state.table[index] = list(check.cards)
            self.same_cards("layoff", [c for c, _ in meld] + [card], check.cards)
        else:
            self.fail(f"illegal lay-off on meld {index}: {check.reason}")
            meld.append((card, stands_for))
        turn.laid_off[card] = turn.laid_off.get(card, 0) + 1
        turn.layoff_or_swap = True
        turn.touched_others |= state.owner[index] != seat
        self.after_play(seat)

    def on_swap(self, ev: dict) -> None:
        state, turn = self.state, self.turn
        seat = self.actor(ev, "swap")
        self.expect_drawn("joker swap")
        if not self.rules.joker_swap:
            self.fail("joker swap, but joker_swap is false")
        index = self.table_meld(ev, "swap")
        card = self.card(self.field(ev, "card", "swap"), "swap")
        stands_for = self.card(self.field(ev, "stands_for", "swap"), "swap")
        meld = state.table[index]
        jokers = [i for i, (c, sf) in enumerate(meld) if c == JOKER]
        if not jokers:
            self.stop(f"swap on meld {index}: no joker in {format_pairs(meld)}")
        self.may_add_to_table(seat, "joker swap")
        self.take_one(seat, card, "swapped in")
        turn.used[card] = turn.used.get(card, 0) + 1
        check = can_swap(meld, card, self.rules, stands_for=stands_for)
        naturals = len(meld) - len(jokers)
        if check.ok and check.kind == "set" and self.rules.set_joker_swap == "fill_set" and naturals != 3:
            # VARIANTS.md #6: a set's joker comes back only for the card that completes its four suits
            self.fail(f"illegal joker swap on meld {index}: with set_joker_swap=fill_set a set's joker comes back "
                      f"only for its fourth suit, and {format_pairs(meld)} has {naturals} naturals")
        state.hands[seat][JOKER] += 1
        state.held[seat] += 1
        if check.ok:
            state.table[index] = list(check.cards)
            before = [c for c, _ in meld]
            before.remove(JOKER)
            self.same_cards("swap", before + [card], check.cards)
        else:
            self.fail(f"illegal joker swap on meld {index}: {check.reason}")
            named = [i for i in jokers if meld[i][1] == stands_for]
            meld[(named or jokers)[0]] = (card, card)
        turn.layoff_or_swap = True
        turn.touched_others |= state.owner[index] != seat

    def on_discard(self, ev: dict) -> None:
        state, turn = self.state, self.turn
        seat = self.actor(ev, "discard")
        self.expect_drawn("discard")
        card = self.card(self.field(ev, "card", "discard"), "discard")
        self.take_one(seat, card, "discarded")
        # The taken card itself may not go back (RULES.md section 3), but another copy may: a
        # twin held before the draw, a joker just swapped off the table, or any copy once one
        # went onto the table (the player says which copy it played).
        if (card == turn.taken and turn.held_before_take == 0 and not turn.used.get(card)
                and not state.hands[seat][card]):
            self.fail(f"discarded {format_card(card)}, the card just taken from the discard pile")
        state.pile.append(card)
        turn.discarded = True
        self.close_turn()
        if not state.held[seat]:
            self.hand_emptied = True

    def on_out(self, ev: dict) -> None:
        state, turn = self.state, self.turn
        seat = self.actor(ev, "out")
        if state.held[seat]:
            self.stop(f"out, but the hand still holds {format_cards(state.hand_cards(seat))}")
        if self.rules.go_out_requires_discard and not turn.discarded:
            self.fail("went out by melding the last card, but go_out_requires_discard is true")
        self.close_turn()
        why_not = self.why_not_a_hand()
        flag = self.field(ev, "hand", "out")
        if flag is not (why_not == ""):
            if why_not:
                self.fail(f"out event says hand={json.dumps(flag)}, but this is no Hand: {why_not}")
            else:
                self.fail(f"out event says hand={json.dumps(flag)}, "
                          f"but this is a Hand (all cards laid down in one turn)")
        self.out = seat
        self.hand_finish = why_not == ""
        self.finished = True

    # -- end of a turn, end of the round --------------------------------------------------

    def close_turn(self) -> None:
        """Checks made once the turn is over: opening value, the discard_pickup rule and
        opening_requires_discard_pickup (RULES.md sections 3-4)."""
        state, turn, rules = self.state, self.turn, self.rules
        if turn.closed:
            return
        turn.closed = True
        seat = turn.seat
        if turn.is_opening:
            if turn.meld_value < turn.required and not self.waived_hand(seat):
                extra = ""
                if rules.opening_rule == "ascending" and state.best_opening:
                    extra = f" (ascending: the best opening so far is {state.best_opening})"
                if rules.hand_waives_threshold:
                    extra += (" and no Hand to waive it (hand_waives_threshold): "
                              + (self.why_not_a_hand() or f"{n_of(state.held[seat])} left in the hand"))
                self.fail(f"opening worth {turn.meld_value} points, below the {turn.required} needed{extra}")
            state.opened[seat] = True  # accepted or not, the cards are on the table
            state.best_opening = max(state.best_opening, turn.meld_value)
        if turn.taken is not None:
            taken = format_card(turn.taken)
            how = " (it was laid off)" if turn.laid_off.get(turn.taken) else ""
            if rules.discard_pickup != "new_meld_only" and not turn.opened_at_start and not turn.laid_melds:
                self.fail(f"took {taken} from the discard pile without opening (discard_pickup={rules.discard_pickup})")
            elif rules.discard_pickup == "new_meld_only" and not turn.new_meld_cards.get(turn.taken):
                self.fail(f"took {taken} from the discard pile but did not put it into a new meld{how} "
                          f"(discard_pickup=new_meld_only)")
            elif turn.is_opening and not turn.new_meld_cards.get(turn.taken):
                # must_open_using (RULES.md section 3), opening_requires_discard_pickup (section 4)
                if rules.discard_pickup == "must_open_using":
                    self.fail(f"took {taken} from the discard pile and opened without it in a new meld{how} "
                              f"(discard_pickup=must_open_using)")
                elif rules.opening_requires_discard_pickup:
                    self.fail(f"took {taken} from the discard pile and opened without it in a new meld{how} "
                              f"(opening_requires_discard_pickup)")
        elif turn.is_opening and rules.opening_requires_discard_pickup:
            why_not = self.why_not_a_hand() if not state.held[seat] else f"{n_of(state.held[seat])} left in the hand"
            if why_not:
                self.fail(f"opened without taking the top discard, and the turn is no Hand: {why_not} "
                          f"(opening_requires_discard_pickup)")
        if turn.laid_melds or turn.layoff_or_swap:
            state.laid_down[seat] = True

    def waived_hand(self, seat: int) -> bool:
        """Whether the turn just closed is a Hand whose opening needs no threshold
        (``hand_waives_threshold``, RULES.md sections 4 and 6): the hand is empty and nothing else
        keeps it from being a Hand."""
        return self.rules.hand_waives_threshold and not self.state.held[seat] and self.why_not_a_hand() == ""

    def why_not_a_hand(self) -> str:
        """"" if the player who just went out made a Hand (RULES.md section 6), else why not."""
        turn = self.turn
        if turn.laid_before:
            return "cards were laid down in an earlier turn"
        if turn.touched_others:
            return "a card went onto another player's meld this turn"
        placed = turn.n_new_meld_cards
        if placed < self.rules.hand_min_new_meld_cards:
            return (f"only {placed} cards went into new melds, "
                    f"hand_min_new_meld_cards is {self.rules.hand_min_new_meld_cards}")
        return ""

    def check_result(self) -> None:
        state = self.state
        self.turn = None  # messages now read "deal N: result: ..."
        result = self.field(self.trace, "result", "trace")
        opened = [state.is_open(s) for s in range(state.players)]
        scores = score_round(self.rules, self.out, self.hand_finish,
                             [state.hand_cards(s) for s in range(state.players)], opened,
                             partners_of(self.rules, state.players))
        expected = {"void": self.void, "out": self.out, "hand": self.hand_finish,
                    "turns": self.turns, "opened": opened, "scores": scores}
        if isinstance(result, dict) and "joker_left" in result:  # traces written before it have none
            expected["joker_left"] = [state.hands[s][JOKER] > 0 for s in range(state.players)]
        if not isinstance(result, dict):
            self.stop(f"result: expected an object, got {result!r}")
        for key, value in expected.items():
            if key not in result:
                self.fail(f"result: missing field {key!r} (the replay gives {json.dumps(value)})")
            elif result[key] != value or type(result[key]) is not type(value):
                self.fail(f"result: {key} is {json.dumps(result[key])}, but the replay gives {json.dumps(value)}")


def check_deal(trace: dict) -> list[str]:
    """Replay one recorded deal and list what does not follow the rules.

    Parameters
    ----------
    trace : dict
        One deal in the trace format of ``docs/design.md`` (``deal``, ``players``, ``rules``,
        ``dealer``, ``starter``, ``deck``, ``hands``, ``events``, ``result``).

    Returns
    -------
    list of str
        One line per discrepancy, naming the deal and, inside the round, the turn and seat,
        e.g. ``deal 17, turn 5, seat 2: drew 7H from the stock, but its top card is 9D``.
        Empty when the deal is consistent.

    Notes
    -----
    Checked (RULES.md sections 2-6): the deck and the deal; turn order (starter first, no
    draw in the starter's first turn, one draw in every later turn, a discard ends each
    turn); draws take the top of the stock or of the discard pile; ``discard_pickup``; the
    card taken from the pile is not discarded in the same turn (another copy may be: a twin
    held before, a joker swapped off the table in this turn);
    every meld, lay-off and joker swap is legal; openings reach the threshold (or beat the
    best opening so far with ``opening_rule="ascending"``); no lay-off or swap before
    opening (nor in the opening turn with ``layoff_on_opening_turn=false``); the player
    holds every card it plays; card conservation after every event; reshuffles and ``void``;
    the round ends when a hand empties (with a discard if ``go_out_requires_discard``); the
    Hand flag; and the ``result`` (void, out, hand, turns, opened, scores via
    :func:`handsim.games.hand.scoring.score_round`).

    Set jokers follow :mod:`handsim.melds`: they stand for suits the naturals lack, so a
    ``swap`` on a set may name in ``stands_for`` either the joker's recorded card or the
    entering card.

    With ``partnership=true`` (2 v 2, 4 seats, partners opposite) the partner of the player
    who goes out scores 0 and a Hand doubles the two opponents only.  With
    ``opening_scope="team"`` as well, a seat counts as opened from the turn after its partner
    opened: it lays new melds of any value (not an opening: no threshold, no part in the
    ``ascending`` rule), lays off, swaps jokers and takes the discard under ``must_open``
    freely, pays no unopened penalty, and ``result.opened`` is that team flag.

    Card conservation is checked event by event (each meld, lay-off and swap must leave the
    table meld holding exactly the cards that went in; draws and discards move one checked
    card; a reshuffle must be the pile) and by a full recount of hands, stock, pile and table
    against the deck at the end of every turn and of the round.
    """
    if not isinstance(trace, dict):
        return [f"deal ?: a trace is a JSON object, got {type(trace).__name__}"]
    return _Replay(trace).run()


def check_file(path, check=None) -> tuple[int, list[tuple[Any, str]]]:
    """Check every deal of a JSON-lines trace file (:func:`handsim.movelog.check_file` with
    ``check`` default :func:`check_deal`).

    Raises
    ------
    OSError
        If the file cannot be read.
    """
    return movelog.check_file(path, check or check_deal)


def check_lines(lines, check=None) -> tuple[int, list[tuple[Any, str]]]:
    """:func:`check_file` of lines of text already read (e.g. standard input): one trace a line,
    blank lines skipped, lines numbered from 1."""
    return movelog.check_lines(lines, check or check_deal)
