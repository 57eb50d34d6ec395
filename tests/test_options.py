"""handsim.options: the one RulesBase both games' rules classes derive from, Param's shortcut and
vary declarations, and the shared move-log file check."""

import pytest

from handsim.errors import RulesError
from handsim.games.russian.rules import RussianRules
from handsim.options import Param, RulesBase, option_key
from handsim.games.hand.rules import PARAM_BY_NAME, Rules


def test_both_rules_classes_derive_from_rules_base():
    assert issubclass(Rules, RulesBase) and issubclass(RussianRules, RulesBase)
    # the methods are written once: neither class redefines them
    for name in ("preset", "from_dict", "from_toml", "replace", "with_settings", "to_dict", "to_vector",
                 "__post_init__"):
        assert name not in vars(Rules) and name not in vars(RussianRules), name


def test_old_import_paths_are_the_shared_pieces():
    import handsim.games.hand.rules as R

    assert R.Param is Param and R.option_key is option_key
    assert R.check_json_rules.__module__ == "handsim.options"


def test_shortcuts_and_vary_refusals_come_from_the_declarations():
    assert Rules.shortcuts() == {"joker_penalty": "--joker-penalty", "opening_threshold": "--threshold"}
    assert RussianRules.shortcuts() == {}
    assert PARAM_BY_NAME["rounds"].vary_refusal() == ("cannot vary 'rounds' (the match length): run one match "
                                                      "study per length (--rounds N)")
    assert PARAM_BY_NAME["partnership"].vary_refusal() == ("cannot vary 'partnership' (singles and 2 v 2 are "
                                                           "different games): run one study per format")
    assert PARAM_BY_NAME["jokers"].vary_refusal() == ""
    assert PARAM_BY_NAME["jokers"].deal_vary_refusal() == ""
    assert PARAM_BY_NAME["dealer_rotation"].deal_vary_refusal() == (
        "cannot vary 'dealer_rotation' in a study of single deals: it changes only matches, so every value "
        "would play the same deals; add --matches")
    assert [p.name for p in PARAM_BY_NAME.values() if p.match_only] == ["dealer_rotation", "standings",
                                                                         "elimination_score"]
    assert [p.name for p in Rules.PARAMS if p.fixed] == ["rounds", "partnership", "elimination_score"]
    assert PARAM_BY_NAME["elimination_score"].vary_refusal() == (
        "cannot vary 'elimination_score' (how a match ends): run one match study per elimination score "
        "(--set elimination_score=N)")


def test_russian_rules_get_the_shared_checks():
    r = RussianRules.preset()
    assert r.with_settings(["Stock-Out-End=last_card"]).stock_out_end == "last_card"
    with pytest.raises(RulesError, match=r"^--set hand_size is given twice \(hand_size=6 and hand_size=8\)"):
        r.with_settings(["hand_size=6", "hand_size=8"])
    with pytest.raises(RulesError, match=r"^unknown Russian Hand rule 'jokers' in --set: allowed hand_size, "):
        r.with_settings(["jokers=2"])
    with pytest.raises(RulesError, match=r"^bad --set 'x': expected key=value, e.g. stock_out_end=last_card$"):
        r.with_settings(["x"])
    with pytest.raises(RulesError, match="^rules must be a mapping"):
        RussianRules.from_dict(["hand_size"])
    assert r.differs_from(r.replace(ace_value=1)) == ["ace_value"]
    assert list(r.to_vector()) == [7, 0, 0, 11]
    assert list(r.replace(first_round="free", stock_out_end="last_card").to_vector()) == [7, 2, 1, 11]


def test_russian_rules_from_toml(tmp_path):
    f = tmp_path / "r.toml"
    f.write_text('preset = "russian"\nhand-size = 8\n')
    assert RussianRules.from_toml(f) == RussianRules.preset(hand_size=8)
    f.write_text('hand_size = "8"\n')
    with pytest.raises(RulesError, match="rule 'hand_size' in .* must be a TOML integer such as hand_size = 7"):
        RussianRules.from_toml(f)


def test_the_move_log_file_check_is_shared(tmp_path):
    from handsim import movelog

    f = tmp_path / "logs.jsonl"
    f.write_text('{"deal": 3}\n\n[1]\nnot json\n')
    seen = []

    def check(trace):
        seen.append(trace)
        return ["odd"] if isinstance(trace, dict) else []

    n, problems = movelog.check_file(f, check)
    assert n == 3 and seen == [{"deal": 3}, [1]]
    assert problems[0] == (3, "odd") and problems[1][0] is None and problems[1][1].startswith("line 4: not a JSON")


def test_every_game_answers_what_the_command_line_asks():
    from handsim.games import GAMES, PRESETS, get_game

    assert GAMES == ("hand", "russian")
    hand, russian = map(get_game, GAMES)
    assert (hand.rules_section, russian.rules_section) == ("1-7", "8")
    assert hand.options_text("qahwa").startswith("Rule options (qahwa; * = differs from the default)")
    assert "  russian        Russian Hand, the second game (RULES.md section 8): 'handsim rules --preset russian'" \
        in hand.options_text("classic").splitlines()
    assert russian.options_text("russian").startswith("Russian Hand options (RULES.md §8")
    assert russian.options_text("russian", markdown=True).splitlines()[2].startswith("| `hand_size` | `7` |")
    for name in GAMES:
        schema = get_game(name).trace_schema()
        assert set(schema) == {"what", "unit", "fields", "types", "event_types", "result_types"}
        assert set(schema["fields"]) <= set(schema["types"]) and PRESETS[name]
    assert (hand.trace_schema()["unit"], russian.trace_schema()["unit"]) == ("deal", "game")
    assert hand.check_deal({"deal": 4}) != [] and russian.check_deal({"deal": 4}) != []


def test_rules_are_spelled_from_the_nearest_preset_everywhere():
    from handsim.cli._common import rules_note

    saudi71 = Rules.preset("saudi", opening_threshold=71)
    # one option from saudi, two from classic (in the option table's order)
    assert saudi71.note() == "saudi + opening_threshold=71"
    assert saudi71.note("classic") == "classic + opening_threshold=71, opening_rule=ascending"
    assert rules_note(saudi71) == "classic + opening_threshold=71, opening_rule=ascending"
    assert Rules.preset("qahwa").note() == "qahwa" and Rules.preset().note() == "classic"
    assert Rules.preset("classic", joker_swap=False).note() == "classic + joker_swap=false"
    # a base of another game is the rules' own first preset
    assert rules_note(RussianRules.preset(), "classic") == RussianRules.preset().note() == "russian"
