#!/usr/bin/env bash
# The committed study results/house-rules/: one rule switch at a time from classic (RULES.md
# section 9), four FIELD players (default: the card-reading player).  Each switch is its own run
# with --vary KEY=classic_value,switched_value, so the switch is measured on the same deals
# (paired); the Qahwa preset as a whole is one more run (its own deck of 4 jokers: compared with
# classic without pairing).  DEALS deals per configuration (power calculation in the README).
#   FIELD=card-reader DEALS=40000 scripts/study_house_rules.sh
set -euo pipefail
cd "$(dirname "$0")/.."
FIELD="${FIELD:-card-reader}"
DEALS="${DEALS:-40000}"
OUT="${OUT:-results/house-rules}"
common=(--policy "$FIELD" --players 4 --deals "$DEALS" --seed 20261202 --jobs "${JOBS:-1}" --no-progress)
run() {  # NAME KEY=V1,V2
    handsim simulate --vary "$2" "${common[@]}" --out "$OUT/$1" "${@:3}"
}
run saudi-ascending opening_rule=fixed,ascending
run jokers-4 jokers=2,4
run jokers-per-meld max_jokers_per_meld=1,4
run joker-penalty-30 joker_penalty=15,30
run pickup-new-meld discard_pickup=must_open,new_meld_only
run keep-a-card go_out_requires_discard=false,true
run flat-penalty unopened_penalty=add,flat
run hand-14-new hand_min_new_meld_cards=0,14
run hand-doubling-off hand_doubles_others=true,false
handsim simulate --preset qahwa "${common[@]}" --out "$OUT/qahwa"
python scripts/house_rules.py "$OUT"
