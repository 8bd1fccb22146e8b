#!/usr/bin/env bash
# Runs every runner benchmark one after another; exits non-zero if any goal was missed.
# Usage: benchmarks/run_all.sh [--quick]
set -u
cd "$(dirname "$0")/.."
status=0
for name in dispatch bookkeeping utilization streaming numpy_metrics scale; do
    echo "== runner_${name}"
    python "benchmarks/runner_${name}.py" "$@" || status=1
done
echo "== hung_trials"
python benchmarks/hung_trials.py || status=1
exit "$status"
