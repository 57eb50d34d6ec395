#!/usr/bin/env bash
# The committed study results/single-matches/: 9-round matches of single players (RULES.md
# section 7), 3 and 4 players, opening_threshold 51/71/91, two line-ups each:
#   FIELD at every seat               - the seat edge (who starts how often in 9 rounds);
#   CHALLENGER + FIELD at the others  - a stronger or weaker player among equals (skill vs luck).
# Played with standings = last_loses: the winner (the unique lowest total, ties broken by extra
# rounds) is the same as under lowest_wins on the same deals, so one run gives both standings
# (checked: identical win rates and tie-break rounds under both on 1,000 matches).
# 40,000 matches per threshold and line-up (power calculation in the README): 2 player counts x
# 3 thresholds x 2 line-ups x 40,000 matches x 9 rounds = 4.32 million rounds.
# Then scripts/single_matches.py reads the per-deal Parquet rows and writes the tables.
#   FIELD=greedy CHALLENGER=hold-hand MATCHES=40000 scripts/study_single_matches.sh
set -euo pipefail
cd "$(dirname "$0")/.."
FIELD="${FIELD:-greedy}"
CHALLENGER="${CHALLENGER:-hold-hand}"
MATCHES="${MATCHES:-40000}"
OUT="${OUT:-results/single-matches}"
for P in 3 4; do
    if [ "$P" = 3 ]; then lineup="$CHALLENGER,$FIELD,$FIELD"; else lineup="$CHALLENGER,$FIELD,$FIELD,$FIELD"; fi
    handsim simulate --players "$P" --rounds 9 --standings last_loses \
        --threshold 51 --threshold 71 --threshold 91 \
        --policy "$FIELD" --lineup "$lineup" \
        --deals "$MATCHES" --seed 20261201 --jobs "${JOBS:-1}" --per-deal --no-progress \
        --out "$OUT/p$P" "$@"
done
python scripts/single_matches.py "$OUT"
