"""Looking at single hands and deals: ``meld``, ``arrange``, ``score``, ``show-deal`` and ``check``."""

from __future__ import annotations

import json
import math

import click

from ._common import (GAME_PLAYERS_CHOICE, Command, InputFile, IntIn, ARRANGE_COMPILE, RUSSIAN_TRACER_COMPILE, cards_text,
                      compile_notice, compiling,
                      engine_notice, dump_json, load_rules, parse_players, preset_name, rules_game, rules_note, rules_options, set_differs,
                      sorted_cards, table)

_JSON_HELP = "Print the answer as one JSON object."


def _read_cards(tokens, rules) -> list[int]:
    """Cards given as several arguments or one quoted string (CardError on bad input)."""
    from handsim.cards import parse_cards

    return parse_cards(" ".join(tokens), jokers=rules.jokers)


def _pair_text(card: str, stands_for: str, symbols: bool = True) -> str:
    """``7♥`` for a natural, ``JK=7♥`` for a joker (trace text cards in)."""
    if card == "JK":
        return "JK=" + cards_text([stands_for], symbols)
    return cards_text([card], symbols)


def _pairs_text(pairs, symbols: bool = True) -> str:
    return " ".join(_pair_text(c, sf, symbols) for c, sf in pairs)


# ------------------------------------------------------------------------------ meld

MELD_HELP = """Read cards as one meld: legal or not, run or set, its opening value, what each joker stands for.

When a joker could stand for several cards, the reading worth the most points is shown (a joker
at a run end takes the high end on a tie).  Exit code 1 when the cards are not a legal meld.

\b
Examples:
    $ handsim meld JK 5H 6H
    $ handsim meld "QS QH JK" --json
    $ handsim meld "KH AH 2H"          # illegal: K-A-2 wraps
"""


@click.command(cls=Command, name="meld", help=MELD_HELP, short_help="Check one meld.")
@click.argument("cards", nargs=-1, required=True)
@rules_options
@click.option("--json", "as_json", is_flag=True, help=_JSON_HELP)
@click.pass_context
def meld(ctx, cards, preset, rules_file, settings, as_json):
    from handsim.cards import format_card
    from handsim.melds import interpret_meld

    rules = load_rules(preset, rules_file, settings)
    m = interpret_meld(_read_cards(cards, rules), rules)
    pairs = [(format_card(c), format_card(sf)) for c, sf in m.cards]
    if as_json:
        click.echo(dump_json({
            "ok": m.ok, "kind": m.kind, "value": m.value, "reason": m.reason,
            "cards": [list(p) for p in pairs], "jokers": [format_card(sf) for sf in m.jokers],
        }))
    elif m.ok:
        click.echo(f"{m.kind}: {_pairs_text(pairs)} = {m.value} points")
        for sf in m.jokers:
            click.echo(f"  joker stands for {format_card(sf, symbols=True)}")
    else:
        click.echo(f"not a meld: {m.reason}")
    if not m.ok:
        ctx.exit(1)


# ------------------------------------------------------------------------------ arrange

ARRANGE_HELP = """Best arrangement of a hand into melds: the most opening value, and the least deadwood.

Prints max_melded_value (points the melds can reach), min_deadwood (fewest points left outside
melds: Ace ace_value (11), joker joker_penalty), whether the hand can open at the rules' opening_threshold,
and the melds of both arrangements.

A hand has 1 to hand_size + 1 cards (15 under every preset: the most a player holds; raise
hand_size with --set for more, up to 21).  The search takes milliseconds at 15 cards; with
--set hand_size=20 and many jokers a 21-card hand can take a few seconds.

\b
Examples:
    $ handsim arrange "QH KH AH 5S 5D 5C"
    $ handsim arrange QH KH AH 5S 5D 5C JK 9C --set opening_threshold=71 --json
"""


@click.command(cls=Command, name="arrange", help=ARRANGE_HELP, short_help="Best melds of a hand.")
@click.argument("cards", nargs=-1, required=True)
@rules_options
@click.option("--json", "as_json", is_flag=True, help=_JSON_HELP)
def arrange(cards, preset, rules_file, settings, as_json):
    from handsim.games.hand.arrange import arrange as best_arrangement
    from handsim.cards import format_cards

    rules = load_rules(preset, rules_file, settings)
    hand = _read_cards(cards, rules)
    if len(hand) > rules.hand_size + 1:
        raise click.BadParameter(
            f"{len(hand)} cards, but a player holds at most hand_size + 1 = {rules.hand_size + 1}: allowed 1 to "
            f"{rules.hand_size + 1} cards (--set hand_size=N allows N + 1, up to 21)", param_hint="'CARDS'")
    a = compiling(compile_notice("the meld search", ARRANGE_COMPILE), best_arrangement, hand, rules)
    if as_json:
        click.echo(dump_json(a.to_json()))
        return
    click.echo(f"max_melded_value: {a.max_melded_value}")
    click.echo(f"min_deadwood:     {a.min_deadwood}")
    verdict = "yes" if a.can_open else "no"
    click.echo(f"can_open:         {verdict} (opening_threshold {rules.opening_threshold})")
    for title, melds, left in (
        (f"most opening value ({a.max_melded_value} points)", a.opening_melds, a.opening_leftover),
        (f"least deadwood ({a.min_deadwood} points left)", a.deadwood_melds, a.deadwood_leftover),
    ):
        click.echo(f"\n{title}:")
        for m in melds:
            click.echo(f"  {m.kind:<4} {m.text(symbols=True)}  ({m.value})")
        if not melds:
            click.echo("  (no meld)")
        click.echo(f"  left: {format_cards(left, symbols=True) if left else '-'}")


# ------------------------------------------------------------------------------ score


def score_reasons(rules, out, hand_finish, hands, opened, scores, void=False) -> list[str]:
    """Why each seat scored what it did (text; ``hands`` are text cards left by seat)."""
    from handsim.cards import hand_value, parse_card

    P = len(hands)
    team = bool(rules.partnership) and P == 4
    reasons = []
    for seat in range(P):
        if void or out is None:
            reasons.append("void round: everyone scores 0")
            continue
        if seat == out:
            reasons.append("went out with a Hand" if hand_finish else "went out")
            continue
        if team and seat == rules.partner_of(out, P):
            reasons.append(f"partner of seat {out}, who went out")
            continue
        cards = sorted_cards(hands[seat])
        points = sum(hand_value(parse_card(c), rules.joker_penalty, rules.ace_value) for c in cards)
        held = f"{cards_text(cards)} = {points}" if cards else "no cards = 0"
        if opened[seat]:
            why = f"cards left {held}"
        elif rules.unopened_penalty == "add":
            why = f"cards left {held}, never opened +{rules.unopened_points}"
        else:
            why = f"never opened: {rules.unopened_points} flat (cards left {held})"
        if hand_finish and rules.hand_doubles_others:
            why += f"; doubled by seat {out}'s Hand"
        reasons.append(why)
    return reasons


# ------------------------------------------------------------------------------ show-deal


class _DealView:
    """Hands and table while a trace is printed event by event."""

    def __init__(self, trace: dict):
        from handsim.games.hand.rules import Rules

        self.trace = trace
        self.rules = Rules.from_dict(trace["rules"])
        self.hands: list[list[str]] = [list(h) for h in trace["hands"]]
        self.table: list[list[tuple[int, int]]] = []  # card types, for handsim.melds
        self.owner: list[int] = []
        self.opened = [False] * trace["players"]
        self.lines: list[str] = []
        self.seat: int | None = None
        self.turn_melds = 0  # opening value laid this turn
        self.opened_at_start = False

    # -- helpers
    def counts_as_opened(self, seat: int) -> bool:
        """Opened itself, or (2 v 2 with opening_scope = team) its partner opened (RULES.md §4)."""
        if self.opened[seat]:
            return True
        partner = self.rules.partner_of(seat, len(self.opened))
        return self.rules.opening_scope == "team" and partner is not None and self.opened[partner]

    def say(self, text: str) -> None:
        self.lines.append("  " + text)

    def take(self, seat: int, card: str) -> None:
        hand = self.hands[seat]
        if card in hand:
            hand.remove(card)
        else:  # the checker's business; keep printing
            self.say(f"(note: {card} was not in the hand)")

    def meld_text(self, k: int) -> str:
        from handsim.cards import format_card

        return _pairs_text([(format_card(c), format_card(sf)) for c, sf in self.table[k]])

    def policy(self, seat: int) -> str:
        pol = self.trace.get("policies") or []
        return f" ({pol[seat]})" if seat < len(pol) and pol[seat] else ""

    def end_turn(self) -> None:
        if self.seat is None:
            return
        if not self.opened_at_start and self.turn_melds and not self.counts_as_opened(self.seat):
            self.opened[self.seat] = True
            self.lines.insert(self._last_meld_line + 1, f"  opens with {self.turn_melds} points")
        hand = sorted_cards(self.hands[self.seat])
        self.say(f"hand ({len(hand)}): {cards_text(hand) if hand else '-'}")
        self.seat = None

    # -- events
    def on_turn(self, ev):
        self.end_turn()
        self.seat = ev["seat"]
        self.turn_melds = 0
        self.opened_at_start = self.counts_as_opened(self.seat)
        self.lines.append(f"Turn {ev['turn']} · seat {self.seat}{self.policy(self.seat)}")
        self._last_meld_line = len(self.lines) - 1

    def on_draw(self, ev):
        card = ev["card"]
        self.hands[ev["seat"]].append(card)
        where = "from the stock" if ev["source"] == "stock" else "from the discard pile"
        self.say(f"draws {cards_text([card])} {where}")

    def on_reshuffle(self, ev):
        from handsim.cards import n_of

        self.say(f"the stock is empty: the discard pile, except its top card, becomes the new stock ({n_of(len(ev['stock']))})")

    def on_meld(self, ev):
        from handsim.cards import parse_card
        from handsim.melds import validate_meld

        pairs = [(parse_card(c), parse_card(sf)) for c, sf in ev["cards"]]
        for c, _ in ev["cards"]:
            self.take(ev["seat"], c)
        check = validate_meld(pairs, self.rules)
        self.table.append(list(check.cards) if check.ok else pairs)
        self.owner.append(ev["seat"])
        self.turn_melds += check.value
        jokers = [sf for c, sf in ev["cards"] if c == "JK"]
        extra = "; " + ", ".join(f"joker stands for {cards_text([sf])}" for sf in jokers) if jokers else ""
        value = f"{check.value} points" if check.ok else f"illegal: {check.reason}"
        self.say(f"lays down meld #{ev['meld']}: {ev['kind']} {_pairs_text(ev['cards'])} ({value}){extra}")
        self._last_meld_line = len(self.lines) - 1

    def on_layoff(self, ev):
        from handsim.cards import parse_card
        from handsim.melds import can_lay_off

        k, card = ev["meld"], ev["card"]
        sf = ev.get("stands_for", card)
        self.take(ev["seat"], card)
        if 0 <= k < len(self.table):
            res = can_lay_off(self.table[k], parse_card(card), parse_card(sf), self.rules)
            self.table[k] = list(res.cards) if res.ok else self.table[k] + [(parse_card(card), parse_card(sf))]
        what = f"JK (as {cards_text([sf])})" if card == "JK" else cards_text([card])
        whose = "" if k >= len(self.owner) or self.owner[k] == ev["seat"] else f" of seat {self.owner[k]}"
        self.say(f"lays off {what} on meld #{k}{whose} -> {self.meld_text(k) if k < len(self.table) else '?'}")

    def on_swap(self, ev):
        from handsim.cards import JOKER, parse_card
        from handsim.melds import can_swap

        k, card, sf = ev["meld"], ev["card"], ev["stands_for"]
        self.take(ev["seat"], card)
        self.hands[ev["seat"]].append("JK")
        if 0 <= k < len(self.table):
            res = can_swap(self.table[k], parse_card(card), self.rules, stands_for=parse_card(sf))
            if res.ok:
                self.table[k] = list(res.cards)
            else:
                js = [i for i, (c, _) in enumerate(self.table[k]) if c == JOKER]
                if js:
                    self.table[k][js[0]] = (parse_card(card), parse_card(card))
        whose = "" if k >= len(self.owner) or self.owner[k] == ev["seat"] else f" of seat {self.owner[k]}"
        self.say(f"swaps {cards_text([card])} for the joker standing for {cards_text([sf])} in meld #{k}{whose}; "
                 f"the joker goes to the hand -> {self.meld_text(k) if k < len(self.table) else '?'}")

    def on_discard(self, ev):
        self.take(ev["seat"], ev["card"])
        self.say(f"discards {cards_text([ev['card']])}")

    def on_out(self, ev):
        self.say("goes out with a HAND (all cards down in one turn)" if ev.get("hand") else "goes out")

    def on_void(self, ev):
        self.say(f"the stock is empty and no reshuffle is left (max_reshuffles {self.rules.max_reshuffles}): "
                 "the round is void")


def render_deal(trace: dict, preset: str = "classic") -> str:
    """A trace (docs/design.md layout) as readable text, turn by turn; the header names the rules as
    ``preset`` (the one the rules were loaded from) plus the options that differ from it."""
    view = _DealView(trace)
    rules, P = view.rules, trace["players"]
    what = (f"Match {trace['match']}, round {trace['round'] + 1}" if "round" in trace else f"Deal {trace['deal']}")
    team = " (2 v 2: seats 0 & 2 against 1 & 3)" if rules.partnership else ""
    lines = [
        f"{what}, seed {trace['seed']}: {P} players{team}, rules {rules_note(rules, preset)}; "
        f"dealer seat {trace['dealer']}, starter seat {trace['starter']}",
        f"(seats are numbered around the table; in summary.csv and per-deal files seat 0 is the starter, so seat "
        f"s here is seat (s - {trace['starter']}) mod {P} there)",
        "",
        "Dealt:",
    ]
    for s, hand in enumerate(trace["hands"]):
        lines.append(f"  seat {s}{view.policy(s)}, {len(hand)} cards: {cards_text(sorted_cards(hand))}")
    lines.append("")
    for ev in trace["events"]:
        handler = getattr(view, "on_" + str(ev.get("type")), None)
        if handler is None:
            view.say(f"(unknown event {ev!r})")
        else:
            handler(ev)
    view.end_turn()
    lines += view.lines
    res = trace["result"]
    lines.append("")
    if res.get("void"):
        lines.append(f"Void round after {res['turns']} turns: everyone scores 0.")
    elif res.get("error"):
        lines.append(f"Stopped after {res['turns']} turns: {res['error']}")
        return "\n".join(lines)
    else:
        how = "with a Hand" if res.get("hand") else ""
        lines.append(f"Seat {res['out']} went out {how} after {res['turns']} turns.".replace("  ", " "))
    reasons = score_reasons(rules, res.get("out"), res.get("hand"), view.hands, res["opened"], res["scores"],
                            void=bool(res.get("void")))
    pol = trace.get("policies") or [""] * P
    rows = [[s, pol[s], sc, why] for s, (sc, why) in enumerate(zip(res["scores"], reasons))]
    lines.append("")
    lines.append(table(["seat", "policy", "score", "why"], rows, right=[True, False, True, False]))
    return "\n".join(lines)


def render_russian_game(trace: dict, symbols: bool = True) -> str:
    """A move log (this module's layout) as readable text, turn by turn: the hands dealt, every
    draw and play (the cards played and the table after it), the end and the result.

    Parameters
    ----------
    trace : dict
        A Russian Hand move log.
    symbols : bool
        Suits as symbols (``7♥``) rather than letters (``7H``).

    Returns
    -------
    str
    """
    from handsim.games import get_game

    P = trace["players"]
    rules = get_game(trace["game"]).rules_from_dict(trace["rules"])
    pol = trace.get("policies") or [""] * P
    what = "Stacked game" if trace.get("stacked") else f"Game {trace.get('deal')}, seed {trace.get('seed')}"
    lines = [f"{what}: Russian Hand, {P} players, rules {rules_note(rules)}; seat 0 plays first"]
    if not trace.get("stacked"):  # line-up position j sits at seat (j + game) mod P (as in 'handsim simulate')
        first = int(trace["deal"]) % P
        lines.append(f"(line-up positions move one seat per game: position j sits at seat (j + {trace['deal']}) mod "
                     f"{P} in this game, so the line-up's first policy, {pol[first]}, at seat {first}; summary.csv "
                     "numbers the seats the same way, seat 0 playing first)")
    lines += ["", "Dealt:"]
    for s, hand in enumerate(trace["hands"]):
        lines.append(f"  seat {s} ({pol[s]}), {len(hand)} cards: {cards_text(sorted_cards(hand), symbols)}")
    lines.append("")
    hands = [list(h) for h in trace["hands"]]
    for ev in trace["events"]:
        t = ev.get("type")
        if t == "turn":
            lines.append(f"Turn {ev['turn']}, seat {ev['seat']}:")
        elif t == "draw":
            hands[ev["seat"]].append(ev["card"])
            lines.append(f"  draws {cards_text([ev['card']], symbols)}; holds {len(hands[ev['seat']])}")
        elif t == "play":
            for c in ev["cards"]:
                hands[ev["seat"]].remove(c)
            lines.append(f"  plays {cards_text(sorted_cards(ev['cards']), symbols)}; holds {len(hands[ev['seat']])}")
            lines.append("  table: " + " | ".join(cards_text(m, symbols) for m in ev["table_after"]))
        elif t == "stock_out":
            lines.append(f"  the stock is empty: the game ends at seat {ev['seat']}'s turn")
        elif t == "out":
            lines.append(f"  seat {ev['seat']} has emptied the hand")
    res = trace["result"]
    lines.append("")
    if res["end"] == "out":
        lines.append(f"Seat {res['winner']} went out and wins after {res['turns']} turns.")
    elif res["draw"]:
        lines.append(f"The stock ran out after {res['turns']} turns: a draw (fewest cards, then lowest value, tied).")
    else:
        lines.append(f"The stock ran out after {res['turns']} turns: seat {res['winner']} wins with the fewest cards "
                     "(then the lowest value).")
    rows = []
    for s in range(P):
        how = "won" if res["won"][s] else "drew" if res["drew"][s] else ""
        rows.append([s, pol[s], res["cards_left"][s], res["value_left"][s], how,
                     cards_text(sorted_cards(hands[s]), symbols) if hands[s] else "-"])
    lines.append("")
    lines.append(table(["seat", "policy", "cards", "value", "result", "hand"], rows,
                       right=[True, False, True, True, False, False]))
    return "\n".join(lines)


SHOW_DEAL_HELP = """Replay one deal of a study with the move log on, and print it turn by turn.

Deal I of a study with seed S is the same deal in every study (common random numbers), so
this shows exactly what happened there: draws, melds (with what each joker stands for),
lay-offs, joker swaps, discards, the hand after every turn and the scores with their reasons.
Line-up positions rotate over the seats from deal to deal, as in 'handsim simulate'.  Seats are
numbered around the table (the header names the starter; summary files number them from the
starter), and the header gives the rules as a preset plus the options that differ.  For a
match study (--rounds N or --matches) give the match as --deal and the round as --round (1 = the
first; the --json move log's "round" is the 0-based index, as in --per-deal files: 2 for --round 3).

\b
Examples:
    $ handsim show-deal --seed 0 --deal 17
    $ handsim show-deal --deal 3 --lineup hold-hand,greedy,greedy,greedy --preset qahwa
    $ handsim show-deal --deal 3 --players 2 --json > deal3.jsonl && handsim check deal3.jsonl
    $ handsim show-deal --players 2v2 --deal 12 --round 3 --lineup hold-hand,greedy,greedy,greedy
    $ handsim show-deal --preset russian --players 5 --deal 4 --lineup patient,greedy,random,greedy,greedy
"""


@click.command(cls=Command, name="show-deal", help=SHOW_DEAL_HELP, short_help="Print one deal turn by turn.")
@click.option("--seed", type=IntIn(0, 2**63 - 1, "0..2^63-1"), default=0, show_default=True, help="The study's seed.")
@click.option("--deal", type=IntIn(0, 2**63 - 1, "0..2^63-1"), default=0, show_default=True, help="Deal index.")
@rules_options
@click.option("--policy", default=None, metavar="POLICY", help="Every seat plays POLICY.  [default: the default study's: card-reader for classic Hand, greedy for Russian Hand]")
@click.option("--policy-file", "policy_files", multiple=True, type=click.Path(), metavar="FILE",
              help="A Python file of user-written policies, as in the study (repeatable).  A deal where one of "
                   "its policies made an illegal move prints the moves up to it, then the one-line error (exit 1).")
@click.option("--lineup", default=None, metavar="P1,P2,...", help="Policies by line-up position.")
@click.option("--players", type=GAME_PLAYERS_CHOICE, default=None,
              help="Players: 2, 3, 4 or 2v2 (partnership), as in the study; Russian Hand: 2 to 5.  "
                   "[default: 4, or the line-up's length]")
@click.option("--round", "match_round", type=IntIn(1, 10**6, "1..10^6"), default=None, metavar="R",
              help="Replay round R (1 = first; tie-break rounds follow the last regular round) of match number "
                   "--deal of a match study (--rounds N or --matches); a tie-break round the match did not need is "
                   "refused, naming how many rounds it had.")
@click.option("--threshold", type=IntIn(), multiple=True, metavar="N",
              help="opening_threshold (the same as --set opening_threshold=N): one of a study's --threshold values.")
@click.option("--joker-penalty", type=IntIn(), multiple=True, metavar="N",
              help="joker_penalty (the same as --set joker_penalty=N): one of a study's --joker-penalty values.")
@click.option("--json", "as_json", is_flag=True, help="Print the trace as one JSON line (the format 'handsim check' reads).")
def show_deal(seed, deal, preset, rules_file, settings, policy, policy_files, lineup, players, match_round, threshold,
              joker_penalty, as_json):
    from handsim.games.hand.kernels.driverlib import MAX_TIEBREAKS
    from handsim.errors import PolicyMoveError
    from handsim.policies import check_lineup_rules, load_policy_files, parse_lineup, parse_policy
    from handsim.policies import engine_of as engine_for
    from handsim.games.hand.trace import EngineError, trace_deal

    from handsim.games import GAMES, get_game

    players, two_v_two = parse_players(players)
    game = rules_game(preset, rules_file)
    # the shortcuts the first game's options offer (handsim.options.Param.flag), as the study's
    given = {"--threshold": threshold, "--joker-penalty": joker_penalty}
    option_of = {flag: key for key, flag in get_game(GAMES[0]).rules_class().shortcuts().items()}
    shortcuts = {option_of[flag]: (flag, values) for flag, values in given.items()}
    for key, (flag, values) in shortcuts.items():
        if len(values) > 1:
            raise click.UsageError(f"{flag} is given {len(values)} times: show-deal replays one configuration, "
                                   f"give {flag} once")
        if values and key not in game.param_by_name():
            raise click.UsageError(f"{flag} does not apply to {game.title} (it has no opening or jokers)")
    if game.name != GAMES[0]:
        _show_russian_game(seed, deal, preset, rules_file, settings, policy, policy_files, lineup, players, two_v_two,
                           match_round, as_json)
        return
    rules = load_rules(preset, rules_file, settings, partnership=two_v_two)
    for key, (flag, values) in shortcuts.items():
        if values:
            if set_differs(settings, key, getattr(rules, key), values[0]):
                raise click.UsageError(f"{flag} {values[0]} contradicts --set {key}={getattr(rules, key)}: "
                                       "give one of them")
            rules = rules.replace(**{key: values[0]})
    if match_round is not None and match_round > rules.rounds + MAX_TIEBREAKS:
        raise click.BadParameter(f"{match_round} is beyond the last possible round of a {rules.rounds}-round match "
                                 f"(at most {rules.rounds} + {MAX_TIEBREAKS} tie-break rounds)", param_hint="'--round'")
    if policy is not None and lineup is not None:
        raise click.UsageError("use either --policy or --lineup")
    load_policy_files(policy_files)
    from handsim.tournament.best import expand_lineup_refs, expand_policy_ref

    if lineup is not None:
        specs = parse_lineup(expand_lineup_refs(lineup))  # @FILE: a policy TOML (handsim tune's best.toml)
        if players is not None and players != len(specs):
            raise click.BadParameter(f"line-up {lineup!r} has {len(specs)} policies but --players is {players}",
                                     param_hint="'--lineup'")
        if not 2 <= len(specs) <= 5:
            raise click.BadParameter(f"line-up {lineup!r} has {len(specs)} policies: allowed 2 to 5",
                                     param_hint="'--lineup'")
    else:
        default = game.default_policy  # the default study's policy, so its deals replay as played
        specs = [parse_policy(expand_policy_ref(default if policy is None else policy))] * (players or 4)
    rules.validate(len(specs))
    check_lineup_rules(specs, rules)
    if match_round is not None:  # a round of a match of fixed rounds: one the match engine plays
        game.check_config(rules, True)
        if getattr(rules, "elimination_score", 0):
            from handsim.errors import StudyError

            raise StudyError("show-deal --round replays rounds of matches of `rounds` rounds, not of elimination "
                             "matches (elimination_score > 0): set elimination_score=0, or study them with "
                             "'handsim simulate --matches'")
    from handsim.tournament.best import tuned_notes

    for note in tuned_notes([x for x in (policy, lineup) if x is not None], [rules],
                            "2v2" if rules.partnership else len(specs)):
        click.echo(f"Note: {note}", err=True)
    tiebreak = match_round is not None and match_round > rules.rounds  # a tie-break round: did the match have it?

    def replay():
        if tiebreak:
            _check_tiebreak_round(rules, specs, deal, seed, match_round)
        return trace_deal(rules, specs, deal, seed, match_round=None if match_round is None else match_round - 1)

    try:
        notice = engine_notice(engine_for(specs), "the match engine and its deal tracer" if tiebreak else
                               "the deal tracer", drivers=2 if tiebreak else 1)
        trace = compiling(notice, replay)
    except PolicyMoveError as e:  # the moves up to the illegal one, then the one-line error (exit 1)
        partial = getattr(e, "trace", None)
        if partial is not None and not as_json:
            click.echo(render_deal(partial, preset_name(preset, rules_file)))
        raise
    except EngineError as e:  # a bug, not bad input: the moves up to it, then one line, exit 1
        partial = getattr(e, "trace", None)
        if partial is not None and not as_json:
            click.echo(render_deal(partial, preset_name(preset, rules_file)))
        from handsim.policies._text import REPLAY

        text = str(e).split(REPLAY)[0]
        raise click.ClickException(f"internal {text} (please report it)") from None
    click.echo(dump_json(trace) if as_json else render_deal(trace, preset_name(preset, rules_file)))


def _show_russian_game(seed, deal, preset, rules_file, settings, policy, policy_files, lineup, players, two_v_two,
                       match_round, as_json) -> None:
    """``show-deal`` of a Russian Hand game (RULES.md §8)."""
    from handsim.policies import parse_lineup, parse_policy

    from handsim.games.russian.trace import RussianEngineError, trace_deal

    if match_round is not None:
        raise click.UsageError("--round replays a round of a classic Hand match: a Russian Hand game is one game")
    if policy_files:
        raise click.UsageError("policy files hold classic Hand policies: Russian Hand plays its built-in policies only")
    rules = load_rules(preset, rules_file, settings, partnership=two_v_two, every_game=True)
    if policy is not None and lineup is not None:
        raise click.UsageError("use either --policy or --lineup")
    from handsim.games import game_of

    game = game_of(rules)
    if lineup is not None:
        specs = parse_lineup(lineup, game=game.name)
        if players is not None and players != len(specs):
            raise click.BadParameter(f"line-up {lineup!r} has {len(specs)} policies but --players is {players}",
                                     param_hint="'--lineup'")
    else:
        specs = [parse_policy(game.default_policy if policy is None else policy, game.name)] * (players or 4)
    rules.validate(len(specs))
    try:
        trace = compiling(compile_notice("the Russian Hand deal tracer", RUSSIAN_TRACER_COMPILE), trace_deal, rules,
                          specs, deal, seed)
    except RussianEngineError as e:  # a bug, not bad input: exit 1, one line
        raise click.ClickException(f"internal engine error: {e} (please report it)") from None
    click.echo(dump_json(trace) if as_json else render_russian_game(trace))


def _check_tiebreak_round(rules, specs, match: int, seed: int, match_round: int) -> None:
    """Refuse ``--round`` beyond the last round match ``match`` had: its regular rounds and the
    tie-break rounds it needed, counted by the engine that plays match studies.

    Raises
    ------
    click.BadParameter
        Naming how many rounds the match had.
    """
    from handsim.policies import lineup_arrays
    from handsim.simulate import run_match_chunk
    from handsim.games.hand.trace import EngineError

    from handsim.policies import engine_of as engine_for

    engine = engine_for(list(specs))
    pol, pp = lineup_arrays(list(specs), engine)
    res = run_match_chunk(rules.to_vector(), pol, pp, len(specs), seed, match, 1, engine)
    if res["err"].any():
        raise EngineError(int(res["err"][res["err"] != 0][0]), match)
    tiebreaks = int(res["tiebreaks"][rules.rounds - 1])
    played = rules.rounds + tiebreaks
    if match_round > played:
        how = f"{rules.rounds} regular round{'s' if rules.rounds != 1 else ''}"
        how += (f" and {tiebreaks} tie-break round{'s' if tiebreaks != 1 else ''}" if tiebreaks
                else ", no tie-break needed")
        raise click.BadParameter(f"match {match} (seed {seed}) ended after round {played} ({how}): "
                                 f"allowed --round 1..{played}", param_hint="'--round'")


# ------------------------------------------------------------------------------ check

CHECK_HELP = """Replay recorded deals (JSON lines, e.g. OUT/traces.jsonl of 'handsim simulate --trace N')
through the pure-Python rules and list every discrepancy.

FILE - reads the move logs from standard input.  Exit code 1 when a discrepancy is found; 2 when
FILE is not JSON lines of deal traces (a missing field, a field of the wrong JSON type such as
"hand_size": "7", NaN or Infinity, empty rules, an unknown rules option: one line naming the line
and the field) or when standard input is closed (<&-).

Russian Hand move logs ('handsim show-deal --preset russian --json', 'simulate --preset russian
--trace N') are replayed by the Russian Hand checker (RULES.md section 8).

\b
Examples:
    $ handsim simulate --policy greedy --deals 200 --trace 5 --out t1
    $ handsim check t1/traces.jsonl
    $ handsim show-deal --deal 3 --json | handsim check -
"""


#: The JSON types a move log's fields may be declared with (each game's ``TRACE_SCHEMA``, in its
#: trace module): int an integer (not a boolean), "cards" an array of card strings, "melds"/"hands"
#: arrays of those, "pairs" an array of [card, stands_for] pairs, "bools"/"ints" arrays of
#: booleans/integers, "seat" an integer or null.
_TRACE_TYPE_NAMES = {int: "an integer", dict: "an object", list: "an array", str: "a string", bool: "true or false",
                     "cards": "an array of cards", "melds": "an array of melds (arrays of cards)",
                     "hands": "an array of hands (arrays of cards)",
                     "pairs": "an array of [card, stands_for] pairs", "bools": "an array of true/false",
                     "ints": "an array of integers", "seat": "an integer (or null)"}
_JSON_TYPES = {dict: "object", list: "array", str: "string", int: "number", float: "number", bool: "boolean",
               type(None): "null"}


def _schema(tag: str | None) -> dict:
    """The move-log form of the game a log's ``"game"`` field names (none: the first game)."""
    from handsim.games import GAMES, get_game

    return get_game(tag or GAMES[0]).trace_schema()


def _json_is(value, kind) -> bool:
    if kind == "cards":
        return isinstance(value, list) and all(isinstance(c, str) for c in value)
    if kind in ("melds", "hands"):
        return isinstance(value, list) and all(_json_is(m, "cards") for m in value)
    if kind == "pairs":
        return isinstance(value, list) and all(_json_is(m, "cards") and len(m) == 2 for m in value)
    if kind == "bools":
        return isinstance(value, list) and all(isinstance(x, bool) for x in value)
    if kind == "ints":
        return isinstance(value, list) and all(_json_is(x, int) for x in value)
    if kind == "seat":
        return value is None or _json_is(value, int)
    return isinstance(value, kind) and not (kind is int and isinstance(value, bool))


def _found(value, kind=None) -> str:
    """``value`` named by its JSON type; an array that should hold items of a kind, by the first
    item that is not one (``an array holding the number 1``)."""
    item = {"cards": str, "melds": "cards", "hands": "cards", "pairs": "cards", "bools": bool, "ints": int}.get(kind)
    if item is not None and isinstance(value, list):
        from handsim._io import json_value_text

        bad = next((x for x in value if not _json_is(x, item) or (kind == "pairs" and len(x) != 2)), None)
        return f"an array holding {json_value_text(bad)}"
    return "null" if value is None else f"a JSON {_JSON_TYPES.get(type(value), 'value')}"


def _not_finite(obj) -> str | None:
    """The path (``result.scores[1]``) of the first NaN or Infinity in a JSON value, or None:
    Python's JSON reader takes them, JSON has no such numbers."""
    stack = [(obj, "")]
    while stack:
        x, path = stack.pop()
        if isinstance(x, float) and not math.isfinite(x):
            return path or "value"
        if isinstance(x, dict):
            stack.extend((v, f"{path}.{k}" if path else str(k)) for k, v in reversed(list(x.items())))
        elif isinstance(x, list):
            stack.extend((v, f"{path}[{i}]") for i, v in reversed(list(enumerate(x))))
    return None


def _check_types(obj: dict, types: dict, what: str, where: str, expected: str) -> None:
    """Refuse the first field of ``obj`` (named ``what`` % field) whose JSON type is not ``types``'."""
    for k, kind in types.items():
        if k in obj and not _json_is(obj[k], kind):
            raise click.UsageError(f"{where}: not a deal trace: {what % repr(k)} is {_found(obj[k], kind)}, not "
                                   f"{_TRACE_TYPE_NAMES[kind]}: {expected}")


def _check_traces_file(lines, name: str) -> str | None:
    """Check that ``lines`` (the text of file ``name``) are JSON lines of deal traces of one game
    (one object per non-blank line, with the trace fields and their JSON types, nested ones too);
    what the rules say about them is the checkers' business (:func:`handsim.games.hand.checker.check_file`,
    the Russian Hand checker).

    Returns
    -------
    str or None
        The file's game as its move logs' ``"game"`` field names it: ``"russian"`` for Russian Hand
        move logs (RULES.md §8), ``None`` for classic Hand traces (the first game).

    Raises
    ------
    click.UsageError
        Naming the line and the field: the first line that is not a trace (a missing field, a
        field of the wrong JSON type such as ``"hand_size": "7"`` or ``"deal": "x"``, a NaN or
        Infinity, an empty ``rules``), a line of the other game than the first line's, or an
        empty file.
    OSError, UnicodeDecodeError
        The file cannot be read as text.
    """
    from handsim._io import InputFileError, parse_json
    from handsim.games import GAMES, get_game

    expected = "expected one deal trace per line, as 'handsim show-deal --json' or 'handsim simulate --trace N' write"
    tags, first_title = ", ".join(f'"{g}"' for g in GAMES[1:]), get_game(GAMES[0]).title
    n = 0
    game = first_line = schema = None
    for line_no, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        n += 1
        where = f"{name}, line {line_no}"
        try:
            obj = parse_json(line, where)
        except InputFileError as e:
            raise click.UsageError(f"{e}: {expected}") from None
        if not isinstance(obj, dict):
            raise click.UsageError(f"{where}: a JSON {_JSON_TYPES.get(type(obj), 'value')}, "
                                   f"not a deal trace object: {expected}")
        this = obj.get("game")
        if this is not None and not isinstance(this, str):
            raise click.UsageError(f"{where}: not a deal trace: its 'game' is {_found(this)}, not a string "
                                   f"({tags}, or no \"game\" field for {first_title}): {expected}")
        if this is not None and this not in GAMES[1:]:
            raise click.UsageError(f"{where}: unknown game {this!r} (allowed: {tags}, or no \"game\" "
                                   f"field for {first_title}): {expected}")
        if n == 1:
            game, first_line, schema = this, line_no, _schema(this)
        elif this != game:
            raise click.UsageError(f"{where} is one of the {_schema(this)['what']}, but line {first_line} is one of "
                                   f"the {schema['what']}: check each game's file on its own")
        bad = _not_finite(obj)
        if bad is not None:
            raise click.UsageError(f"{where}: not a deal trace: its '{bad}' is NaN or Infinity, which is no JSON "
                                   f"number: {expected}")
        missing = [k for k in schema["fields"] if k not in obj]
        if missing:
            raise click.UsageError(f"{where}: not a deal trace (no {', '.join(map(repr, missing))} "
                                   f"field{'s' if len(missing) > 1 else ''}): {expected}")
        _check_types(obj, schema["types"], "its %s", where, expected)
        _check_rules_field(obj["rules"], game, where, expected)
        for i, ev in enumerate(obj["events"], start=1):
            if not isinstance(ev, dict):
                raise click.UsageError(f"{where}: not a deal trace: its event {i} is {_found(ev)}, not an object: "
                                       f"{expected}")
            _check_types(ev, schema["event_types"], f"the %s of its event {i}", where, expected)
        _check_types(obj["result"], schema["result_types"], "the %s of its result", where, expected)
    if not n:
        raise click.UsageError(f"{name} holds no deal: {expected}")
    return game


def _check_rules_field(rules: dict, game: str | None, where: str, expected: str) -> None:
    """A move log's ``rules``: not empty, every option known and of its JSON type (``"hand_size":
    "7"`` is refused, not read as 7; a value out of range is the checker's discrepancy)."""
    from handsim.errors import RulesError
    from handsim.games import GAMES, get_game
    from handsim.options import check_json_rules

    PARAM_BY_NAME = get_game(game or GAMES[0]).param_by_name()
    if not rules:
        raise click.UsageError(f"{where}: not a deal trace: its 'rules' is an empty object, but a move log names "
                               f"the rules it was played under: {expected}")
    unknown = [k for k in rules if k not in PARAM_BY_NAME]
    if unknown:
        raise click.UsageError(f"{where}: not a deal trace: its 'rules' name an unknown option {unknown[0]!r} "
                               f"(allowed: {', '.join(PARAM_BY_NAME)})")
    try:
        check_json_rules(rules, PARAM_BY_NAME, "its ")
    except RulesError as e:
        raise click.UsageError(f"{where}: not a deal trace: {e}") from None


@click.command(cls=Command, name="check", help=CHECK_HELP, short_help="Check recorded deals against the rules.")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, allow_dash=True), metavar="FILE")
@click.pass_context
def check(ctx, file):
    from handsim.games import GAMES, get_game
    from handsim.movelog import check_file, check_lines

    name = "standard input" if file == "-" else file
    try:
        if file == "-":  # read once: the file is checked twice (its form, then the rules)
            from handsim._io import decode_text

            from ._common import read_stdin

            text = decode_text(read_stdin(), name)
            lines = text.splitlines(keepends=True)
            source, run_check = lines, lambda check: check_lines(lines, check)
        else:
            source, run_check = _lines_of(file), lambda check: check_file(file, check)
        game = _check_traces_file(source, name)
        n, problems = run_check(get_game(game or GAMES[0]).check_deal)  # each game's checker
    except OSError as e:
        raise click.UsageError(f"cannot read {name}: {e.strerror}") from None
    except UnicodeDecodeError:
        raise click.UsageError(f"{name} is not UTF-8 text (expected JSON lines)") from None
    for _, message in problems:
        click.echo(message)
    unit = _schema(game)["unit"]  # a Russian Hand deal is one game
    click.echo(f"{n} {unit}{'s' if n != 1 else ''} checked, {len(problems)} discrepanc{'ies' if len(problems) != 1 else 'y'}")
    if problems:
        ctx.exit(1)


def _lines_of(path):
    """The lines of a UTF-8 text file, read as they are needed (a byte-order mark dropped)."""
    with open(path, encoding="utf-8-sig") as f:
        yield from f
