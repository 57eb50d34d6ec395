"""A short version of scripts/fuzz.py: random and scripted line-ups under every preset and every
rule option of RULES.md sections 1-6, every deal replayed through the pure-Python checker; and
elimination matches (RULES.md section 7), every round replayed and each match held against its score sheet."""

import importlib.util
from pathlib import Path

import pytest

_spec = importlib.util.spec_from_file_location("fuzz", Path(__file__).parent.parent / "scripts" / "fuzz.py")
fuzz = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fuzz)


def test_fuzz_cases_cover_every_option_value():
    from handsim.games.hand.rules import PARAMS, Rules

    seen = {p.name: set() for p in PARAMS}
    for preset, ov, players, lineup in fuzz.cases():
        r = Rules.preset(preset, **ov)
        for p in PARAMS:
            seen[p.name].add(getattr(r, p.name))
    for p in PARAMS:
        if p.kind in ("bool", "choice") and p.name != "standings":  # standings: matches, not deals
            allowed = {True, False} if p.kind == "bool" else set(p.choices)
            assert seen[p.name] == allowed, p.name
    assert {51, 71, 91} <= seen["opening_threshold"]
    assert {15, 30} <= seen["joker_penalty"]
    assert {0, 1, 3} <= seen["max_reshuffles"]
    assert {1, 3, 4} <= seen["max_jokers_per_meld"]
    assert {-30, -50, 0} <= seen["out_score"] and {-60, -150, -400} <= seen["hand_score"]
    assert {0, 100, 200} <= seen["unopened_points"]
    assert {0, 1, 10} <= seen["ascending_increment"]
    assert {1, 10, 11} <= seen["ace_value"]
    assert {3, 5, 13} <= seen["max_run_length"]


def test_fuzz_cases_include_go_out_with_discard_and_2v2():
    from handsim.games.hand.rules import Rules

    cases = [(Rules.preset(preset, **ov), n, lu) for preset, ov, n, lu in fuzz.cases()]
    gord_must_open = [lu for r, _, lu in cases if r.go_out_requires_discard and r.discard_pickup == "must_open"]
    for policy in ("greedy", "hold-hand", "random", "card-reader", "sampler", "searcher"):
        assert any(policy in lu for lu in gord_must_open), policy
    two_v_two = [(r, n, lu) for r, n, lu in cases if r.partnership]
    assert all(n == 4 for _, n, _ in two_v_two)
    assert {r.opening_scope for r, _, _ in two_v_two} == {"player", "team"}
    assert {r.opening_rule for r, _, _ in two_v_two} == {"fixed", "ascending"}
    assert any("support_hand=1" in lu for _, _, lu in two_v_two)
    assert all(any(p in lu for _, _, lu in two_v_two) for p in ("card-reader", "sampler", "searcher"))


def test_every_builtin_policy_and_its_options_play_under_every_preset():
    """Every built-in policy, and card-reader's joker_play values and sampler's rollouts, under every
    preset (issue 8: every new player under every preset and option value joins the replay fuzz)."""
    from handsim.policies import parse_lineup
    from handsim.policies.registry import BUILTIN_IDS
    from handsim.games.hand.rules import PRESETS

    for preset in PRESETS:
        specs = [s for pr, _, _, lu in fuzz.cases() if pr == preset for s in parse_lineup(lu)]
        assert set(BUILTIN_IDS) <= {s.name for s in specs}, preset
        cr = {dict(s.params)["joker_play"] for s in specs if s.name == "card-reader"}
        assert cr == {0, 1, 2}, preset
        assert {dict(s.params)["rollout"] for s in specs if s.name == "sampler"} == {0, 1}, preset
        assert {dict(s.params)["rollout"] for s in specs if s.name == "searcher"} == {0, 1}, preset


@pytest.mark.parametrize("first", [0, 331])
def test_short_fuzz_has_no_discrepancy(first):
    n = len(fuzz.cases())  # one deal of every case
    counts, failures = fuzz._check((7, first, n))
    assert counts["deals"] == n
    assert failures == [], failures[0]["problems"][:3]


@pytest.mark.slow
def test_longer_fuzz_has_no_discrepancy():
    counts, failures = fuzz._check((11, 0, 5000))
    assert counts["deals"] == 5000
    assert failures == [], failures[0]["problems"][:3]


def test_russian_fuzz_cases_cover_every_option_value_and_player_count():
    from handsim.games.russian.rules import PARAMS, RussianRules

    seen = {p.name: set() for p in PARAMS}
    for ov, players, lineup in fuzz.russian_cases():
        r = RussianRules.preset(**ov)
        r.validate(players)
        for p in PARAMS:
            seen[p.name].add(getattr(r, p.name))
    for p in PARAMS:
        if p.kind == "choice":
            assert seen[p.name] == set(p.choices), p.name
    assert seen["ace_value"] == {1, 11}
    assert {players for _, players, _ in fuzz.russian_cases()} == {2, 3, 4, 5}
    from handsim.policies import split_lineup

    assert {x.split(":")[0] for _, _, lu in fuzz.russian_cases() for x in split_lineup(lu)} == {"greedy", "patient",
                                                                                                  "random"}


def test_short_russian_fuzz_has_no_discrepancy():
    n = 2 * len(fuzz.russian_cases())  # two games of every case
    counts, failures = fuzz._check_russian((7, 0, n))
    assert counts["deals"] == n
    assert counts["plays"] > n  # games with plays, not only draws
    assert failures == [], failures[0]["problems"][:3]


def test_elimination_fuzz_cases_cover_its_scores_presets_players_and_every_builtin_policy():
    from handsim.policies import parse_lineup
    from handsim.policies.registry import BUILTIN_IDS

    cs = fuzz.elimination_cases()
    assert {ov["elimination_score"] for _, ov, _, _ in cs} == {50, 201, 301}
    assert {p for p, _, _, _ in cs} == {"classic", "levant", "qahwa", "saudi", "jawaker_saudi"}
    assert {n for _, _, n, _ in cs} == {2, 3, 4, 5}
    assert set(BUILTIN_IDS) <= {s.name for _, _, _, lu in cs for s in parse_lineup(lu)}


def test_short_elimination_fuzz_has_no_discrepancy():
    total = {"deals": 0, "rounds": 0, "smaller_tables": 0}
    for m in range(0, len(fuzz.elimination_cases()), 11):  # 10 matches over the 105 cases (2 to 5 players)
        counts, failures = fuzz._check_elimination((5, m, 1))
        assert failures == [], failures[0]["problems"][:3]
        for k in total:
            total[k] += counts[k]
    assert total["deals"] == 10 and total["rounds"] > 20 and total["smaller_tables"] > 0
