"""Check a policy against the rules: play it under every preset and rule variant, replay every
deal through the pure-Python checker (:func:`handsim.games.hand.checker.check_deal`), and report.

:data:`VARIANTS` and :data:`PARTNERSHIP_VARIANTS` - every value of every rule option that changes
play, each in a preset - are the same list the replay fuzz (``scripts/fuzz.py``) cycles through
with the built-in policies; ``handsim check-policy FILE NAME`` (:func:`check_policy`) runs a
user-written policy through them, at every seat count, against greedy, hold-hand, random and
itself.
"""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass, field

#: Every value of every option of RULES.md sections 1-6 that changes play, each in a preset.
VARIANTS = [
    ("classic", {}),
    ("saudi", {}),
    ("qahwa", {}),
    ("classic", {"opening_threshold": 71}),
    ("classic", {"opening_threshold": 91, "joker_penalty": 30}),
    ("classic", {"discard_pickup": "new_meld_only"}),
    ("classic", {"unopened_penalty": "flat", "hand_doubles_others": False}),
    ("classic", {"max_jokers_per_meld": 3, "jokers": 4}),
    ("classic", {"go_out_requires_discard": True, "hand_min_new_meld_cards": 14}),
    ("classic", {"joker_swap": False, "layoff_on_opening_turn": False}),
    ("classic", {"max_reshuffles": 0}),
    ("classic", {"max_reshuffles": 3, "opening_threshold": 91}),
    ("classic", {"ace_low_value": 11, "starter": "dealer"}),
    ("classic", {"jokers": 0}),
    ("saudi", {"discard_pickup": "new_meld_only", "go_out_requires_discard": True}),
    ("qahwa", {"opening_threshold": 71, "opening_rule": "ascending"}),
    ("qahwa", {"max_reshuffles": 0, "min_natural_cards_per_meld": 2}),
    ("classic", {"hand_size": 7, "max_reshuffles": 1}),
    # the options of issue 27 (VARIANTS.md "New options"), after the others
    ("classic", {"out_score": -50, "hand_score": -150, "unopened_points": 200}),
    ("qahwa", {"out_score": 0, "hand_score": -400, "unopened_points": 0}),
    ("saudi", {"ascending_increment": 0}),
    ("saudi", {"ascending_increment": 10, "opening_threshold": 61}),
    ("classic", {"hand_waives_threshold": True, "opening_threshold": 91}),
    ("qahwa", {"hand_waives_threshold": True}),
    ("hand71", {}),
    ("classic", {"set_joker_swap": "fill_set"}),
    ("jawaker_saudi", {}),
    ("levant", {}),
    ("kuwait", {}),  # decks=by_players: 4 or 5 players (one deck is not implemented yet)
    ("classic", {"ace_value": 10}),  # KA's Ace (VARIANTS.md #4)
    ("qahwa", {"ace_value": 1, "ace_low_value": 11}),  # the Ace's values the other way round
    ("classic", {"max_run_length": 5}),  # JS-a's longest run (VARIANTS.md #5)
    ("qahwa", {"max_run_length": 3}),  # runs of 3 only, with qahwa's 4 jokers, up to 4 a meld
    ("classic", {"discard_pickup": "must_open_using"}),  # KA's pick-up (VARIANTS.md #7)
    ("saudi", {"discard_pickup": "must_open_using", "go_out_requires_discard": True}),
    ("classic", {"opening_requires_discard_pickup": True}),  # KN's: open only with the discard (#8)
    ("qahwa", {"opening_requires_discard_pickup": True, "discard_pickup": "new_meld_only"}),
    ("konkan", {}),  # Aces 10, 81 ascending, the discard in the opening, jokers 50 (VARIANTS.md)
]

#: 2 v 2 (RULES.md sections 4, 6, 7): partners sit opposite, so line-up positions 1 & 3 and 2 & 4
#: are partners.  opening_scope player and team, with the fixed and the ascending opening rule,
#: new_meld_only, go_out_requires_discard and layoff_on_opening_turn=false.
PARTNERSHIP_VARIANTS = [
    ("partnership", {"opening_scope": "player"}),
    ("partnership", {"opening_scope": "team"}),
    ("saudi", {"partnership": True, "opening_scope": "player"}),
    ("saudi", {"partnership": True, "opening_scope": "team"}),
    ("qahwa", {"partnership": True, "opening_scope": "team"}),
    ("partnership", {"opening_scope": "team", "go_out_requires_discard": True, "layoff_on_opening_turn": False,
                     "joker_swap": False}),
    ("partnership", {"opening_scope": "team", "hand_waives_threshold": True, "opening_threshold": 71}),
    # a partner's opening opens the team: the other partner then takes the discard freely
    ("partnership", {"opening_scope": "team", "discard_pickup": "must_open_using",
                     "opening_requires_discard_pickup": True}),
]


def seats_allowed(preset: str, ov: dict, players: int) -> bool:
    """Whether the rules ``preset`` + ``ov`` can be played by ``players`` single players (e.g.
    ``decks=by_players`` needs 4): the cases below skip the player counts the rules refuse."""
    from handsim.errors import RulesError
    from handsim.games import game_for_preset

    try:
        game_for_preset(preset).preset(preset, **ov).validate(players)
    except RulesError:
        return False
    return True


def policy_cases(policy: str) -> list[tuple[str, dict, int, str]]:
    """The ``(preset, overrides, players, line-up)`` cases that check ``policy`` (its text, e.g.
    ``"mine:aggr=3"``): every rule variant with 2 to 5 players and in 2 v 2, against itself and
    the built-in policies, in every seat position over the deals (line-ups rotate)."""
    single = {
        2: [f"{policy},greedy", f"{policy},random"],
        3: [f"{policy},hold-hand,random"],
        4: [f"{policy},greedy,greedy,greedy", f"{policy},{policy},random,hold-hand", ",".join([policy] * 4)],
        5: [f"{policy},greedy,random,hold-hand,{policy}"],
    }
    team = [f"{policy},greedy,{policy},greedy", f"{policy},random,greedy:support_hand=1,hold-hand"]
    out = []
    for (preset, ov), players in itertools.product(VARIANTS, (2, 3, 4, 5)):
        if not seats_allowed(preset, ov, players):
            continue
        for lu in single[players]:
            out.append((preset, ov, players, lu))
    for (preset, ov), lu in itertools.product(PARTNERSHIP_VARIANTS, team):
        out.append((preset, ov, 4, lu))
    return out


def describe(case) -> str:
    """One line naming a case: ``partnership opening_scope="team" / greedy,greedy,greedy,greedy``."""
    preset, ov, players, lu = case
    return " ".join([preset, *(f"{k}={json.dumps(v)}" for k, v in ov.items())]) + f" / {lu}"


@dataclass
class CheckReport:
    """What :func:`check_policy` found.

    Attributes
    ----------
    deals : int
        Deals played and checked.
    cases : int
        Rule variant x players x line-up combinations cycled through.
    problems : list of str
        One line per deal with a discrepancy, an illegal move, or moves that differ when the deal is
        played again (the first few are kept whole).
    counts : dict
        ``out`` / ``hand`` / ``void`` rounds, and the policy's seats that went out.
    """

    deals: int = 0
    cases: int = 0
    problems: list[str] = field(default_factory=list)
    counts: dict = field(default_factory=lambda: {"out": 0, "hand": 0, "void": 0, "seats": 0, "seats_out": 0,
                                                   "seats_hand": 0})

    @property
    def ok(self) -> bool:
        return not self.problems


def _first_difference(a: list, b: list, policies: list) -> str:
    """Where two move logs of one deal first differ: ``move 12 (turn 5, seat 1, mine): discard 8S
    the first time, discard KH the second`` (``policies``: the label of each seat)."""
    turn = seat = None
    for i, (x, y) in enumerate(itertools.zip_longest(a, b)):
        if x == y:
            if x.get("type") == "turn":
                turn, seat = x.get("turn"), x.get("seat")
            continue
        where = f"turn {turn}, seat {seat}, {policies[seat]}" if turn is not None else "before the first turn"

        def said(e):
            if e is None:
                return "the round's end"
            return " ".join(str(v) for k, v in e.items() if k != "seat")

        return f"move {i + 1} ({where}): {said(x)} the first time, {said(y)} the second"
    return "the round's result"


def _batch(args):
    """Play and check deals ``first .. first+n-1`` (deal ``d`` plays case ``d % len(cases)``), then
    play them again in the reverse order: a deal whose moves differ the second time is a problem
    (the policy is not a function of what it is shown and its parameters: a global random
    generator, or something kept from one deal to the next)."""
    from handsim.games.hand.checker import check_deal
    from ..errors import RunError
    from handsim.games.hand.rules import Rules
    from handsim.games.hand.trace import trace_deal
    from . import load_policy_files, parse_policy

    files, policy, seed, first, n = args
    load_policy_files(files)
    name = parse_policy(policy).label
    cases = policy_cases(policy)
    rep = CheckReport()
    rules_of: dict[int, Rules] = {}
    played: dict[int, list] = {}

    def play(d):
        k = d % len(cases)
        preset, ov, players, lu = case = cases[k]
        rules = rules_of.get(k)
        if rules is None:
            rules = rules_of[k] = Rules.preset(preset, **ov)
        try:
            return case, trace_deal(rules, lu, d, seed, players=players)
        except RunError as e:  # an illegal move (with its show-deal command), or an engine error
            return case, e

    for d in range(first, first + n):
        case, tr = play(d)
        rep.deals += 1
        if isinstance(tr, RunError):
            rep.problems.append(f"deal {d} ({describe(case)}): {tr}")
            continue
        played[d] = tr["events"]
        problems = check_deal(tr)
        if problems:
            rep.problems.append(f"deal {d} ({describe(case)}): {problems[0]}"
                                + (f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""))
        res = tr["result"]
        rep.counts["out"] += res["out"] is not None
        rep.counts["hand"] += bool(res["hand"])
        rep.counts["void"] += bool(res["void"])
        for s, label in enumerate(tr["policies"]):
            if label == name:
                rep.counts["seats"] += 1
                rep.counts["seats_out"] += res["out"] == s
                rep.counts["seats_hand"] += res["out"] == s and bool(res["hand"])
    # the same deals again, in the reverse order (after other deals than the first time)
    differ = []
    for d in reversed(range(first, first + n)):
        if d not in played:
            continue
        case, tr = play(d)
        again = [] if isinstance(tr, RunError) else tr["events"]
        if again != played[d]:
            shown = f"{tr}" if isinstance(tr, RunError) else _first_difference(played[d], again, tr["policies"])
            differ.append(f"deal {d} ({describe(case)}): played twice, its moves differ: {shown}; a policy's "
                          "decisions may depend only on what the API shows it and its parameters (no global random "
                          "generator, nothing kept from one deal to the next)")
    rep.problems += differ[::-1]  # the first deal first
    return rep


def warm_up(policy_file, policy: str) -> None:
    """Compile (or load from the cache) what :func:`check_policy` plays ``policy`` of ``policy_file``
    with - its engine's study driver and deal tracer - in this process, before any worker forks:
    the workers then load them, and a command's compile notice (numba's compile event, heard in
    this process only) covers the whole compilation.

    Raises
    ------
    handsim.errors.PolicyFileError, handsim.errors.PolicyError
        A policy file whose functions do not compile (one line), an unknown policy or parameter.
    """
    from ..games.hand.game import warm_up as _warm_up
    from . import load_policy_files, parse_policy
    from handsim.policies import engine_of as engine_for

    files = [str(policy_file)] if policy_file else []
    load_policy_files(files)
    _warm_up(False, engine_for([parse_policy(policy)]))  # the policy's functions compile, or a one-line error
    _batch((files, policy, 0, 0, 1))  # the tracer of the same engine: deal 0 of the first case, played and checked


def check_policy(policy_file, policy: str, deals: int = 3000, seed: int = 0, jobs: int = 1,
                 progress=None) -> CheckReport:
    """Play ``deals`` deals of ``policy`` (a name with optional parameters, ``"mine:aggr=3"``) from
    ``policy_file`` under every preset and rule variant and check each against the rules.

    Parameters
    ----------
    policy_file : path or None
        The file declaring the policy (None for a built-in policy).
    policy : str
        The policy as written on the command line.
    deals : int
        Deals in all, cycled over :func:`policy_cases` (default 3000: about 30 per case).
    seed : int
        Seed of the deals.
    jobs : int
        Worker processes.
    progress : callable, optional
        Called with the number of deals finished so far.

    Returns
    -------
    CheckReport

    Raises
    ------
    handsim.errors.PolicyFileError, handsim.errors.PolicyError
        A policy file that cannot be used; an unknown policy or parameter.
    """
    files = [str(policy_file)] if policy_file else []
    warm_up(policy_file, policy)
    report = CheckReport(cases=len(policy_cases(policy)))
    step = 100
    batches = [(files, policy, seed, s, min(step, deals - s)) for s in range(0, deals, step)]

    def merge(rep):
        report.deals += rep.deals
        report.problems += rep.problems
        for k, v in rep.counts.items():
            report.counts[k] += v
        if progress is not None:
            progress(report.deals)

    if jobs <= 1 or len(batches) <= 1:
        for b in batches:
            merge(_batch(b))
    else:
        from .._interrupt import worker_pool

        with worker_pool(jobs) as ex:  # (ends with this process; Ctrl-C does not wait for every batch)
            for rep in ex.map(_batch, batches):
                merge(rep)
    return report
