"""Russian Hand commands: ``rearrange`` (the best play of a hand onto a table, RULES.md §8)."""

from __future__ import annotations

import click

from ._common import Command, cards_text, compile_notice, dump_json, sigint_ends

REARRANGE_HELP = """Russian Hand: the best play of a hand onto a table, rearranging the table freely (RULES.md §8).

The play places the most hand cards; among those, the highest card value (Ace 11, J/Q/K 10,
2-10 face value; --set ace_value=1), then the fewest table melds changed.  Table and placed
cards must partition into legal melds (sets of 3-4 suits, runs of 3-13 of one suit, the Ace
low or high, never wrapping).  Prints the cards placed, the table after the play (changed
melds marked *) and what is left in the hand.

--table lists the melds on the table, separated by '|'; cards are written rank then suit
(A 2 .. 10 J Q K, T = 10; S H D C or ♠ ♥ ♦ ♣); there are no jokers.  A table meld that is not
legal is refused (exit 2).  The first run compiles the search (about half a minute, said on
stderr); Ctrl-C ends the command at once.

\b
Examples:
    $ handsim rearrange --table "5H 6H 7H | 9S 9D 9C" --hand "8H 9H 4C"
    $ handsim rearrange --table "AS 2S 3S 4S" --hand "QS KS" --json
    $ handsim rearrange --table "5H 6H 7H" --hand "8H 2C 3C 4C" --first-round
"""


@click.command(cls=Command, name="rearrange", help=REARRANGE_HELP, short_help="Russian Hand: best play onto a table.")
@click.option("--table", "table_text", default="", metavar="MELDS", show_default="empty",
              help="The table's melds, separated by '|', e.g. \"5H 6H 7H | 9S 9D 9C\".")
@click.option("--hand", "hand_text", required=True, metavar="CARDS", help="The hand, e.g. \"8H 9H 4C\".")
@click.option("--first-round", is_flag=True,
              help="A first-round play: only new melds of hand cards, the table untouched "
                   "(first_round=new_melds; one_meld: a single meld; free: as later turns).")
@click.option("--set", "settings", multiple=True, metavar="KEY=VALUE",
              help="A Russian Hand option, e.g. --set ace_value=1 or --set first_round=one_meld (repeatable).")
@click.option("--json", "as_json", is_flag=True,
              help="Print the answer as one JSON object: placed (the hand cards put on the table), n_placed, value "
                   "(their points), changed (melds of the table before that do not appear unchanged after), melds "
                   "(the table after the play; a first-round play: only the new melds), left (the cards left in "
                   "hand), first_round.")
def rearrange(table_text, hand_text, first_round, settings, as_json):
    from handsim.cards import format_cards, parse_cards
    from handsim.games.russian.rearrange import parse_table
    from handsim.games.russian.rearrange import rearrange as best_play
    from handsim.games.russian.rules import RussianRules

    rules = RussianRules.preset().with_settings(settings)
    # announced when numba compiles, not when the cache lacks an index: after a Russian study the
    # kernel is cached for the engine's argument types only, and this call compiled for 35 s unsaid;
    # Ctrl-C ends it at once (numba's compiler and the search do not return to Python for long)
    with compile_notice("the rearrangement search", "about half a minute"), sigint_ends():
        melds = parse_table(table_text)
        hand = parse_cards(hand_text, jokers=0)
        p = best_play(melds, hand, rules, first_round=first_round)
    left = list(hand)
    for c in p.placed:
        left.remove(c)
    left.sort(key=lambda t: (t // 13, t % 13))
    if as_json:
        out = p.to_json()
        out["left"] = format_cards(left).split()
        out["first_round"] = first_round
        click.echo(dump_json(out))
        return
    from collections import Counter

    before = Counter(tuple(sorted(m)) for m in melds)
    new = []  # whether each meld of the play was not on the table before (copies counted)
    for m in p.melds:
        key = tuple(sorted(m))
        new.append(before[key] == 0)
        before[key] -= 1
    if p.n_placed == 0:
        click.echo("placed: nothing (no hand card fits" + (" a new meld" if first_round else "") + ")")
    else:
        click.echo(f"placed: {cards_text(format_cards(p.placed).split())}  "
                   f"({p.n_placed} card{'s' if p.n_placed != 1 else ''}, value {p.value})")
    title = "new melds" if first_round and rules.first_round != "free" else (
        f"table after ({p.changed} of {len(melds)} meld{'s' if len(melds) != 1 else ''} changed)")
    click.echo(f"{title}:")
    for m, is_new in zip(p.melds, new):
        mark = "*" if is_new and not first_round else " "
        kind = "set" if len({c % 13 for c in m}) == 1 else "run"
        click.echo(f"  {mark} {kind}  {cards_text(format_cards(m).split())}")
    if not p.melds:
        click.echo("  (none)")
    if any(new) and not first_round:
        click.echo("  (* = not on the table before)")
    click.echo(f"left in hand: {cards_text(format_cards(left).split()) if left else '-'}")
