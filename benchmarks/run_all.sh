#!/usr/bin/env bash
# Runs every runner benchmark one after another; exits non-zero if any goal was missed.
# Ray Tune rows need `pip install -e .[bench]`; without it they are skipped with a printed reason.
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
echo "== early_stopping_precision"
python benchmarks/early_stopping_precision.py || status=1
echo "== pbt_toy"
if [ "${1:-}" = "--quick" ]; then
    python benchmarks/pbt_toy.py --seeds 3 || status=1
else
    python benchmarks/pbt_toy.py || status=1
fi
echo "== checkpoints_large"
python benchmarks/checkpoints_large.py "$@" || status=1
echo "== team_store"
python benchmarks/team_store.py "$@" || status=1
echo "== detached_search"
python benchmarks/detached_search.py "$@" || status=1
exit "$status"
