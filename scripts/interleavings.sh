#!/usr/bin/env bash
# The interleaving checker: builds the package with -DACTORPROMISE_INTERLEAVINGS (every atomic and
# lock of the promise core becomes a scheduling point; nothing changes in other builds) in its own
# scratch directory, and runs InterleavingTests, which print each scenario's schedule count.
#
#   scripts/interleavings.sh                                     # every schedule, ≤ 3 preemptions
#   ACTORPROMISE_INTERLEAVING_BOUND=4 scripts/interleavings.sh   # a deeper search, by hand
set -euo pipefail
cd "$(dirname "$0")/.."
SCRATCH=${SCRATCH:-.build-interleavings}
export SWIFT_DETERMINISTIC_HASHING=1
swift build --build-tests -Xswiftc -DACTORPROMISE_INTERLEAVINGS -Xswiftc -warnings-as-errors --scratch-path "$SCRATCH"
log=$(mktemp)
status=0
swift test --disable-xctest --skip-build --scratch-path "$SCRATCH" --filter InterleavingTests >"$log" 2>&1 || status=$?
grep -E "^interleavings:|✘|Test run|Fatal|error:" "$log" | cut -c1-2000 || true
rm -f "$log"
exit $status
