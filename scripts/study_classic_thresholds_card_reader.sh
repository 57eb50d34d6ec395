#!/usr/bin/env bash
# results/classic-thresholds/card-reader/: the classic-thresholds study with the card-reading
# player (classic rules, 4 players, opening_threshold 51/71/91, joker_penalty 15; line-ups
# "card-reader x4" and "hold-hand + card-reader x3", hold-hand with its default bail-outs) on the
# same seed as the greedy baseline, 400,000 deals per configuration and line-up = 2.4 million
# rounds. The sample size follows the power calculation in the README (about +/-0.5 points on
# every per-seat mean score at threshold 91).
set -euo pipefail
cd "$(dirname "$0")/.."
handsim simulate \
    --threshold 51 --threshold 71 --threshold 91 \
    --joker-penalty 15 \
    --policy card-reader --lineup hold-hand,card-reader,card-reader,card-reader \
    --players 4 --deals "${DEALS:-400000}" --seed 20261130 --jobs "${JOBS:-1}" \
    --out results/classic-thresholds/card-reader "$@"
