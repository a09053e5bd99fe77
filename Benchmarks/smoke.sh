#!/usr/bin/env bash
# A few seconds of every workload, so the benchmark package cannot rot, then the regression guard
# (guard.sh: W1, W2, W5, W5x and W6 against Thresholds/guard.txt). CI runs it; compare.sh is the
# full measuring command.
set -euo pipefail
cd "$(dirname "$0")"
swift build -c release --product Measure
swift build -c release --product MeasureConcurrency
for workload in w1 w3; do
    for library in actorpromise actorpromise-inline nio; do
        .build/release/Measure "$workload" "$library" 50
    done
done
for run in "w1q actorpromise" "w1o actorpromise" "w1p actorpromise" "w2 actorpromise" "w2 nio" "w2c actorpromise" "w2p actorpromise" "w2cp actorpromise" "w5 actorpromise" "w5 continuation" \
    "w5x actorpromise" "w5x continuation" "w5x checked-continuation" "w5x task" "w5x nio" "w7 actorpromise" "w7 dispatch" "w7r actorpromise"; do
    .build/release/Measure $run 50
done
for workload in rt rtb rtm rtbm; do
    for side in actorpromise checked-cancellable unsafe-cancellable checked unsafe; do
        .build/release/MeasureConcurrency "$workload" "$side" 50
    done
done
for run in "fanin actorpromise" "fanin taskgroup" "seq actorpromise" "seq actors"; do
    .build/release/MeasureConcurrency $run 2
done
.build/release/Measure w4 actorpromise 1
.build/release/Measure w4 nio 1
.build/release/Measure w6 actorpromise 1000 >/dev/null
.build/release/Measure w6 nio 1000 >/dev/null
for run in "w6h0 actorpromise" "w6h0 nio" "w6h10 actorpromise" "w6h10 nio" "callbacks actorpromise" "callbacks nio" \
    "erase actorpromise" "erase nio"; do
    .build/release/Measure $run 1000 >/dev/null
done
.build/release/Measure loop actorpromise 1000 >/dev/null
.build/release/Measure loop nio 1000 >/dev/null
.build/release/Measure maplazy actorpromise 1000 >/dev/null
./guard.sh
echo "benchmark smoke pass: ok"
