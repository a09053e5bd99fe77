#!/usr/bin/env bash
# The interleaving checker: builds the package with -DACTORPROMISE_INTERLEAVINGS (every atomic and
# lock of the library becomes a scheduling point, and its atomics the memory model's; nothing
# changes in other builds) in its own scratch directory, and runs InterleavingTests, which print
# each scenario's schedule count. The scenarios are shared out between one process per core
# (ACTORPROMISE_INTERLEAVING_PROCESSES, 1 for the scenarios in order).
#
#   scripts/interleavings.sh                                     # every schedule, ≤ 3 preemptions
#   ACTORPROMISE_INTERLEAVING_BOUND=4 scripts/interleavings.sh   # a deeper search, by hand
set -euo pipefail
cd "$(dirname "$0")/.."
SCRATCH=${SCRATCH:-.build-interleavings}
export SWIFT_DETERMINISTIC_HASHING=1
processes=${ACTORPROMISE_INTERLEAVING_PROCESSES:-$(nproc)}
swift build --build-tests -Xswiftc -DACTORPROMISE_INTERLEAVINGS -Xswiftc -warnings-as-errors --scratch-path "$SCRATCH"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/claims"
pids=()
for ((i = 0; i < processes; i++)); do
    # The test binary itself: `swift test` takes the scratch directory's lock for its whole run.
    ACTORPROMISE_INTERLEAVING_CLAIMS="$work/claims" \
        "$SCRATCH/debug/ActorPromisePackageTests.xctest" --testing-library swift-testing --filter InterleavingTests \
        >"$work/$i.log" 2>&1 &
    pids+=($!)
done
status=0
for pid in "${pids[@]}"; do wait "$pid" || status=$?; done
for ((i = 0; i < processes; i++)); do
    grep -E "^interleavings:|✘|Test run|Fatal|error:" "$work/$i.log" | cut -c1-2000 || true
done
exit $status
