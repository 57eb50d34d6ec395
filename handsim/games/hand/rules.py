"""The rules of Hand as data: every option of RULES.md declared once.

Each option is one :class:`Param` in :data:`PARAMS` (name, type, allowed values, default,
RULES.md section, help).  Everything else is derived from that table: the frozen
:class:`Rules` dataclass, the presets, TOML loading, ``--set key=value`` overrides, the
integer parameter vector the numba kernels read (:meth:`Rules.to_vector`) and the rules
table in the docs (:func:`rules_table_markdown`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from handsim.errors import RulesError  # noqa: F401  (re-exported: handsim.games.hand.rules.RulesError)
from handsim.options import JSON_KINDS, Param, RulesBase, check_json_rules, option_key, options_table_markdown, rules_dataclass

__all__ = ["ELIMINATION_MAX_ROUNDS", "INDEX", "JSON_KINDS", "PARAMS", "PARAM_BY_NAME", "PRESETS", "Param", "Rules", "RulesError",
           "check_json_rules", "option_key", "rules_table_markdown"]


PARAMS: tuple[Param, ...] = (
    Param("decks", "choice", "two", "1",
          "Decks of 52 cards: two (every source but KB, DW), or by_players (KB, DW): one deck for 2-3 players, "
          "two for 4-5; one deck is not implemented yet, so by_players plays 4 or 5 players.",
          choices=("two", "by_players")),
    Param("jokers", "int", 2, "1", "Jokers added to the two 52-card decks (classic 2, Qahwa 4).", lo=0, hi=8),
    Param("joker_penalty", "int", 15, "1", "Points a joker left in hand counts at round end (15 or 30).", lo=0, hi=200,
          flag="--joker-penalty"),
    Param("ace_low_value", "int", 1, "1", "Opening value of an Ace at the low end of a run (A-2-3).", lo=1, hi=11),
    Param("ace_value", "int", 11, "1",
          "Value of every other Ace: in a set, at the high end of a run (Q-K-A) and left in hand at round end "
          "(classic 11; KA: 10; VARIANTS.md #4).  The low Ace of A-2-3 counts ace_low_value.", lo=1, hi=11),
    Param("max_jokers_per_meld", "int", 1, "2", "Most jokers one meld may hold.", lo=1, hi=8),
    Param("min_natural_cards_per_meld", "int", 1, "2", "Fewest real cards a meld must keep.", lo=1, hi=3),
    Param("max_run_length", "int", 13, "2",
          "Longest legal run, jokers included (classic 13, A-K or 2-A; JS-a: 5, dropped in JS-b; VARIANTS.md #5): "
          "no run may be laid, nor laid off on, past it.", lo=3, hi=13),
    Param("hand_size", "int", 14, "3", "Cards dealt to each player (the starter gets one more).", lo=3, hi=20),
    Param("starter", "choice", "dealer_right", "3",
          "Who starts with the extra card: the player to the dealer's right (SD, ER) or the dealer (QA).",
          choices=("dealer_right", "dealer")),
    Param("discard_pickup", "choice", "must_open", "3",
          "must_open: an unopened player who takes the top discard must open that turn; "
          "new_meld_only: the top discard may only be taken into a new meld at once; "
          "must_open_using (KA; VARIANTS.md #7): an unopened player who takes it must open that turn with "
          "the card in a new meld of the opening (not laid off), an opened player takes it freely.",
          choices=("must_open", "new_meld_only", "must_open_using")),
    Param("max_reshuffles", "int", 3, "3", "Times the discard pile may become the new stock; one more run-out voids the round (at most 30, so that every round ends within the engine's 12,000-turn cap).", lo=0, hi=30),
    Param("opening_threshold", "int", 51, "4", "Points the melds of a first lay-down must reach (51, 71, 91).", lo=1, hi=500,
          flag="--threshold"),
    Param("opening_rule", "choice", "fixed", "4",
          "fixed: every opening needs opening_threshold; ascending (Saudi): each opening must beat "
          "the highest earlier opening of the round by at least ascending_increment (1).",
          choices=("fixed", "ascending")),
    Param("ascending_increment", "int", 1, "4",
          "With opening_rule=ascending, how many points an opening must add to the highest earlier opening "
          "of the round (SD, QA, JS-b, KA: 1; KN: 0, an equal opening is enough; VARIANTS.md #9).", lo=0, hi=10),
    Param("opening_scope", "choice", "player", "4", "player, or team (partnership: a partner's opening opens the team).",
          choices=("player", "team")),
    Param("hand_waives_threshold", "bool", False, "4",
          "Whether a Hand may open below the required opening value: the melds of a one-turn full lay-down "
          "need not reach it (HR, T51, WH; VARIANTS.md #11).  False: a Hand is an opening like any other."),
    Param("opening_requires_discard_pickup", "bool", False, "4",
          "Whether a player may open only in a turn in which he took the top discard and put it into a new "
          "meld of the opening (KN; VARIANTS.md #8).  A Hand (the whole hand laid down in one turn) is exempt "
          "whatever the draw; so with an empty discard pile, and in the starter's first turn, only a Hand opens."),
    Param("layoff_on_opening_turn", "bool", True, "4", "Whether lay-offs and joker swaps are allowed in the turn of the opening itself."),
    Param("joker_swap", "bool", True, "5", "Whether an opened player may take a joker from a meld by putting the card it stands for."),
    Param("set_joker_swap", "choice", "one_card", "5",
          "one_card: a set's joker comes back for one natural of a suit the set lacks (RULES.md §5's reading of ER); "
          "fill_set: only for the natural that completes the set's four suits, so the set becomes all-natural "
          "(JB, JS; VARIANTS.md #6): a player holding both missing suits lays one off, then swaps the other.",
          choices=("one_card", "fill_set")),
    Param("go_out_requires_discard", "bool", False, "6", "Whether the last card must be a discard (QA: 'always keep a card')."),
    Param("unopened_penalty", "choice", "add", "6",
          "add: a player who never opened pays unopened_points (100) on top of the cards in hand; "
          "flat: pays unopened_points in all.",
          choices=("add", "flat")),
    Param("out_score", "int", -30, "6", "Points the player who goes out scores (SD, ER: -30; VARIANTS.md #14).",
          lo=-200, hi=0),
    Param("hand_score", "int", -60, "6", "Points the player who goes out with a Hand scores (SD, ER: -60; "
          "VARIANTS.md #14).", lo=-400, hi=0),
    Param("unopened_points", "int", 100, "6", "Points a player who never opened pays, on top of the cards in hand "
          "or flat (unopened_penalty; SD, QA: 100; VARIANTS.md #14).", lo=0, hi=500),
    Param("hand_min_new_meld_cards", "int", 0, "6", "Fewest cards a Hand must put into new melds (QA: 14).", lo=0, hi=30),
    Param("hand_doubles_others", "bool", True, "6", "Whether a Hand doubles every other player's score for the round."),
    Param("rounds", "int", 9, "7", "Rounds in a match (3, 5, 7 or 9; any positive number works).", lo=1, hi=1000,
          fixed="the match length: run one match study per length (--rounds N)"),
    Param("partnership", "bool", False, "7",
          "Whether four players play 2 v 2, partners sitting opposite (--players 2v2 and the partnership preset).",
          fixed="singles and 2 v 2 are different games: run one study per format"),
    Param("dealer_rotation", "choice", "next_seat", "7",
          "Who deals the next round of a match: next_seat (ER, QZ), or highest_scorer (CC): the player with the "
          "most points in the round just played; among tied players the first in playing order after the dealer "
          "(CC's tie rule is cut off; VARIANTS.md #10).  Single-deal studies draw every deal's dealer.",
          choices=("next_seat", "highest_scorer"), match_only=True),
    Param("standings", "choice", "lowest_wins", "7",
          "lowest_wins, or last_loses (3-5 players: one winner, one loser, the rest neutral).",
          choices=("lowest_wins", "last_loses"), match_only=True),
    Param("elimination_score", "int", 0, "7",
          "0 (off): a match is `rounds` rounds.  Else a player whose running total is above it after a round is "
          "out of the match and plays no more rounds; the match ends when at most one player is left, who wins "
          "(KN: 301, QZ: 201; VARIANTS.md #15).  0 or 50 to 1000, single players with standings=lowest_wins; "
          "`rounds` is then not used (a match stops after ELIMINATION_MAX_ROUNDS = 100 rounds); the tie rule is "
          "RULES.md §7's.", lo=0, hi=1000, match_only=True,
          fixed="how a match ends: run one match study per elimination score (--set elimination_score=N)"),
)

#: The most rounds a match with ``elimination_score`` > 0 lasts (RULES.md section 7): a player who keeps
#: going out never passes the score, so the match needs a cap; at it the lowest total left wins.
ELIMINATION_MAX_ROUNDS = 100
#: The smallest elimination score above 0 (VARIANTS.md #15: 0 or 50-1000).
ELIMINATION_MIN = 50

PARAM_BY_NAME: dict[str, Param] = {p.name: p for p in PARAMS}
#: Index of each option in the kernel parameter vector (see :meth:`Rules.to_vector`).
INDEX: dict[str, int] = {p.name: i for i, p in enumerate(PARAMS)}

PRESETS: dict[str, dict[str, Any]] = {
    "classic": {},
    "saudi": {"opening_rule": "ascending"},
    "qahwa": {
        "jokers": 4,
        "joker_penalty": 30,
        "discard_pickup": "new_meld_only",
        "max_jokers_per_meld": 4,
        "go_out_requires_discard": True,
        "unopened_penalty": "flat",
        "hand_min_new_meld_cards": 14,
        "rounds": 5,
        "starter": "dealer",
    },
    "partnership": {"partnership": True},
    # the Hand Rummy offline app (HR; VARIANTS.md "Proposed presets"): its Hand with lay-offs on
    # others' melds is BLOCKED (its score is not given), so it stays out
    "hand71": {"opening_threshold": 71, "opening_rule": "ascending", "ascending_increment": 1,
               "hand_waives_threshold": True},
    # Jawaker's Saudi Hand (JB, JS; VARIANTS.md "Proposed presets"): it also seats five players
    # (--players 5); discard_pickup follows JS-a's strict reading (note 1)
    # Jordan, Lebanon, Palestine (P, AA, CC; VARIANTS.md "Proposed presets"); 2 v 2 as --players 2v2
    "levant": {"starter": "dealer", "dealer_rotation": "highest_scorer", "go_out_requires_discard": True, "rounds": 7},
    "jawaker_saudi": {"discard_pickup": "new_meld_only", "opening_rule": "ascending", "ascending_increment": 1,
                      "set_joker_swap": "fill_set", "rounds": 5},
    # Kuwait (Koutbo6, Duwaween; VARIANTS.md "Proposed presets"): one deck for 2-3 players is not
    # possible yet (4 or 5 players only), its special Hands are BLOCKED
    "kuwait": {"decks": "by_players", "go_out_requires_discard": True, "hand_min_new_meld_cards": 14},
    # Konkan (KA, with KN's values where KA is silent; VARIANTS.md "Proposed presets"): KA plays 2-3
    # players (KN 2-4); its unlimited reshuffles are the engine's cap of 30; no Hand bonus (KA and KN
    # name none: a one-turn finish scores as going out and doubles nobody); KN's joker cut is not
    # built; the match ends by elimination at 301 (its match studies: elimination matches)
    "konkan": {"ace_value": 10, "ace_low_value": 10, "max_jokers_per_meld": 2, "discard_pickup": "must_open_using",
               "opening_threshold": 81, "opening_rule": "ascending", "ascending_increment": 1, "max_reshuffles": 30,
               "go_out_requires_discard": True, "hand_doubles_others": False, "hand_score": -30,
               "joker_penalty": 50, "unopened_penalty": "flat", "elimination_score": 301},
}

#: Where a preset's values come from (VARIANTS.md "Proposed presets", its source tags), shown by
#: ``handsim rules --preset NAME``: option -> tag for each value a source gives; the preset's other
#: options keep the defaults, on which its sources are silent.
PRESET_SOURCES: dict[str, dict[str, str]] = {
    "hand71": {"hand_size": "HR", "starter": "HR", "discard_pickup": "HR", "opening_threshold": "HR",
               "opening_rule": "HR", "ascending_increment": "HR", "hand_waives_threshold": "HR"},
    "levant": {"jokers": "P", "opening_threshold": "P", "starter": "AA", "dealer_rotation": "CC",
               "go_out_requires_discard": "P", "rounds": "P, AA"},
    "jawaker_saudi": {"jokers": "JS", "hand_size": "JS", "starter": "JS", "discard_pickup": "JS-a",
                      "opening_threshold": "JS", "opening_rule": "JS-b", "ascending_increment": "JS-b",
                      "set_joker_swap": "JB, JS", "rounds": "JB, JS", "partnership": "JS"},
    "konkan": {"jokers": "KA, KN", "ace_value": "KA", "ace_low_value": "KA", "max_jokers_per_meld": "KN, KA",
               "max_run_length": "KA", "hand_size": "KA, KN", "discard_pickup": "KA",
               "opening_requires_discard_pickup": "KA", "opening_threshold": "KA", "opening_rule": "KA, KN",
               "ascending_increment": "KA", "set_joker_swap": "KA", "max_reshuffles": "KA",
               "go_out_requires_discard": "KA, KN", "hand_doubles_others": "KA, KN", "out_score": "KN",
               "hand_score": "KN", "joker_penalty": "KN", "unopened_penalty": "KN", "elimination_score": "KN"},
    "kuwait": {"decks": "KB, DW", "jokers": "KB", "max_jokers_per_meld": "KB", "hand_size": "KB", "starter": "KB",
               "go_out_requires_discard": "KB", "hand_min_new_meld_cards": "KB"},
}
#: The source tags of :data:`PRESET_SOURCES` (VARIANTS.md "Sources").
SOURCES = {"HR": "Hand Rummy offline, an Android app's description (http://9appsappstore.com/ar/android-games/"
                 "cardplay-android-cards-rummy-lite)",
           "P": "pagat.com, 'Hand' (https://pagat.com/rummy/hand.html; only its opening could be read)",
           "AA": "Arab America, 'Card Games and Cafes' (https://www.arabamerica.com/card-games-and-cafes-social-life-"
                 "in-the-arab-world/; its 'the dealer starts' is unconfirmed by P)",
           "CC": "catsatcards.com, 'How To Play Hand' (https://catsatcards.com/Games/Hand.htm; the next dealer is the "
                 "last round's highest scorer, its tie rule cut off)",
           "KB": "Koutbo6, a Kuwaiti games app's 'Hand Game' page (https://koutbo6.com/en/games/hand/; its special "
                 "Hands are cut off)",
           "DW": "Duwaween Games (Kuwait), Hand profile (https://duwaween.games/en/core_games/game-profile/3)",
           "KA": "Konkan AI, a Konkan engine's rules (https://github.com/balenamiaa/konkan-ai, README.md at 8370574; "
                 "Aces 10, an 81 opening that each later opening beats by 1, the taken discard in the opening)",
           "KN": "Konkan, a Flutter app's rules (https://github.com/alnah005/Konkan, README.md at 1696d13; jokers "
                 "50, an unopened player 100 flat, out at 301; no winner bonus or Hand is named: inferred)",
           "JB": "Jawaker blog, 'Hand rules' (https://blog.jawaker.com/en/hand-rules-en/)",
           "JS": "Jawaker rules page, Saudi Hand (https://www.jawaker.com/en/rules/hand_saudi), both stored versions",
           "JS-a": "the older stored version of JS (the taken discard must be melded at once: new_meld_only)",
           "JS-b": "the newer stored version of JS (each opening must beat the one before by 1 point)"}

#: Rules known from the sources but not implemented (VARIANTS.md marks them BLOCKED): name, source, why.
BLOCKED = (
    ("wild_aces", "P", "two Aces as wild cards: which Aces, their values and whether the jokers stay are cut off"),
    ("hand_with_layoffs", "HR", "a one-turn lay-down that lays off on others' melds as its own 'Hand Rummy': "
                                "its score is not given"),
    ("Kuwaiti special Hands", "KB, DW", "coloured, suited, joker and double-joker Hands: their definitions and "
                                        "multipliers are cut off"),
)


_Rules = rules_dataclass("Rules", PARAMS, RulesBase)


@dataclass(frozen=True)
class Rules(_Rules):
    """One full set of rule options (RULES.md sections 1-7), immutable.

    Build with ``preset``, ``from_toml`` or ``replace``; every value is checked
    (the derived methods are ``handsim.options.RulesBase``'s).

    Raises
    ------
    RulesError
        On an unknown option, a value outside its allowed range or an unplayable
        combination (see ``validate``).
    """

    PARAMS = PARAMS
    PARAM_BY_NAME = PARAM_BY_NAME
    PRESETS = PRESETS
    SET_EXAMPLE = "joker_penalty=30"

    def validate(self, players: int | None = None) -> None:
        """Check combinations that single values cannot catch.

        Parameters
        ----------
        players : int, optional
            Number of seats; checks that the deck holds the deal plus a stock.

        Raises
        ------
        RulesError
        """
        if self.opening_scope == "team" and not self.partnership:
            raise RulesError("opening_scope=team needs partnership=true (2 v 2 play, --players 2v2): "
                             "allowed opening_scope=player for single players")
        if self.partnership and self.standings == "last_loses":
            raise RulesError("standings=last_loses is for 3 to 5 single players, not 2 v 2: "
                             "allowed standings=lowest_wins with partnership=true")
        if 0 < self.elimination_score < ELIMINATION_MIN:
            raise RulesError(f"invalid value {self.elimination_score} for rule 'elimination_score': allowed 0 (off) "
                             f"or an integer from {ELIMINATION_MIN} to 1000")
        if self.elimination_score and self.partnership:
            raise RulesError("elimination_score is for single players, not 2 v 2 (who is out when one partner "
                             "passes it is not defined): allowed elimination_score=0 with partnership=true")
        if self.elimination_score and self.standings == "last_loses":
            raise RulesError("elimination_score and standings=last_loses are two ways to end a match: allowed "
                             "standings=lowest_wins with elimination_score > 0")
        if self.set_joker_swap == "fill_set" and self.max_jokers_per_meld != 1:
            raise RulesError(f"set_joker_swap=fill_set needs max_jokers_per_meld=1, not {self.max_jokers_per_meld} "
                             "(a set with two jokers would give both back for two cards at once, which is not "
                             "implemented): allowed set_joker_swap=one_card with more jokers per meld")
        if players is not None and self.partnership and players != 4:
            raise RulesError(f"partnership=true needs 4 players (2 v 2), not {players}")
        if players is not None and self.standings == "last_loses" and players < 3:
            raise RulesError(f"standings=last_loses needs 3 to 5 players, not {players}: "
                             "allowed standings=lowest_wins with 2 players")
        if players is not None and self.decks == "by_players" and players < 4:
            raise RulesError(f"decks=by_players deals one deck to {players} players, which is not implemented yet: "
                             "allowed 4 or 5 players (two decks) with decks=by_players, or decks=two")
        if players is not None:
            deck = 104 + self.jokers
            need = players * self.hand_size + 1 + 1  # deal, the starter's extra card, one stock card
            if need > deck:
                raise RulesError(
                    f"cannot deal {players} hands of {self.hand_size} cards (+1 for the starter) "
                    f"from a {deck}-card deck and leave a stock: lower hand_size or players"
                )

    @property
    def deck_size(self) -> int:
        """Cards in the deck: 104 + jokers."""
        return 104 + self.jokers

    def starter_of(self, dealer: int, players: int) -> int:
        """The starter's seat (RULES.md section 3): the player to the dealer's right - the next
        seat in playing order - or, with ``starter = dealer``, the dealer."""
        return (dealer + 1) % players if self.starter == "dealer_right" else dealer

    def next_dealer(self, dealer: int, scores) -> int:
        """The dealer of a match's next round (RULES.md section 7, ``dealer_rotation``): the next seat
        in playing order, or with ``highest_scorer`` the seat with the most points in ``scores`` (the
        round just played, by seat), the first in playing order after ``dealer`` among tied seats."""
        players = len(scores)
        order = [(dealer + 1 + i) % players for i in range(players)]
        if self.dealer_rotation == "next_seat":
            return order[0]
        return max(order, key=lambda s: (scores[s], -order.index(s)))

    def partner_of(self, seat: int, players: int) -> int | None:
        """The partner of ``seat`` in 2 v 2 play (partners sit opposite, RULES.md section 7), or
        None when everyone plays alone."""
        if not self.partnership or players != 4:
            return None
        return (seat + players // 2) % players


def rules_table_markdown() -> str:
    """A Markdown table of every option: name, default, allowed values, section, meaning."""
    return options_table_markdown(PARAMS)


_ORDINALS = {2: "second", 3: "third", 4: "fourth"}


def _text(v: Any) -> str:
    return ("true" if v else "false") if isinstance(v, bool) else str(v)


def options_text(preset: str = "classic", markdown: bool = False) -> str:
    """The options as ``handsim rules`` prints them: name, value of ``preset`` (``*`` = differs from
    the default), RULES.md section, allowed values, meaning; then the presets (``markdown``: as
    Markdown tables, with the preset's values and the defaults).

    Raises
    ------
    RulesError
        An unknown preset.
    """
    import textwrap

    r = Rules.preset(preset)
    if markdown:
        lines = [f"| option | {preset} | default | allowed | RULES.md | meaning |", "|---|---|---|---|---|---|"]
        lines += [f"| `{p.name}` | `{_text(getattr(r, p.name))}` | `{_text(p.default)}` | {p.allowed()} "
                  f"| §{p.section} | {p.help} |" for p in PARAMS]
        lines.append("\n| preset | differs from the defaults |\n|---|---|")
        for name, values in PRESETS.items():
            diff = ", ".join(f"`{k}={_text(v)}`" for k, v in values.items()) or "(the defaults)"
            lines.append(f"| `{name}` | {diff} |")
        lines.append("\n| known, not implemented | source | why |\n|---|---|---|")
        lines += [f"| `{name}` | {tag} | {why} |" for name, tag, why in BLOCKED]
        return "\n".join(lines)
    width = max(len(p.name) for p in PARAMS)
    vwidth = max(len(_text(getattr(r, p.name))) for p in PARAMS) + 1
    lines = [f"Rule options ({preset}; * = differs from the default), with RULES.md section:\n"]
    for p in PARAMS:
        v = getattr(r, p.name)
        mark = "*" if v != p.default else " "
        lines.append(f"  {p.name:<{width}}  {_text(v) + mark:<{vwidth}}  §{p.section}  allowed: {p.allowed()}")
        lines += [f"  {'':<{width}}    {line}" for line in textwrap.wrap(p.help, 88 - width)]
    lines.append("\nPresets (--preset NAME):")
    pw = max(len(n) for n in PRESETS)
    for name, values in PRESETS.items():
        diff = ", ".join(f"{k}={_text(v)}" for k, v in values.items()) or "the defaults"
        lines += [f"  {name if i == 0 else '':<{pw}}  {line}" for i, line in enumerate(textwrap.wrap(diff, 86 - pw))]
    from handsim.games import GAMES, get_game
    from handsim.games import PRESETS as GAME_PRESETS

    for i, other in enumerate(GAMES[1:], start=2):  # the other games: their own options
        g, name = get_game(other), GAME_PRESETS[other][0]
        lines.append(f"  {name:<{pw}}  {g.title}, the {_ORDINALS[i]} game (RULES.md section {g.rules_section}): "
                     f"'handsim rules --preset {name}'")
    sources = PRESET_SOURCES.get(preset)
    if sources:
        lines.append(f"\nSources of {preset}'s values (VARIANTS.md); the other options keep the defaults:")
        lines += [f"  {k}={_text(getattr(r, k))}  ({tag})" for k, tag in sources.items()]
        lines += [f"  {tag}: {SOURCES[tag]}" for tag in dict.fromkeys(t for v in sources.values() for t in v.split(", "))]
    lines.append("\nKnown but not implemented (VARIANTS.md: BLOCKED until their sources can be read in full):")
    lines += [f"  {name} ({tag}): {why}" for name, tag, why in BLOCKED]
    lines.append("\nNames and values may be written with - or _ (--set standings=last-loses is standings=last_loses).")
    return "\n".join(lines)

