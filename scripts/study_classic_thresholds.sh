#!/usr/bin/env bash
# The committed study results/classic-thresholds/: the default study (classic rules, 4 players,
# opening_threshold 51/71/91 x joker_penalty 15/30, line-ups "greedy x4" and
# "hold-hand + greedy x3") on 150,000 deals per configuration and line-up = 1.8 million rounds.
set -euo pipefail
cd "$(dirname "$0")/.."
handsim simulate \
    --threshold 51 --threshold 71 --threshold 91 \
    --joker-penalty 15 --joker-penalty 30 \
    --policy greedy --lineup hold-hand,greedy,greedy,greedy \
    --players 4 --deals 150000 --seed 20261130 --jobs "${JOBS:-2}" \
    --out results/classic-thresholds "$@"
