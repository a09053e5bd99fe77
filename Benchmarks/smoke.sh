#!/usr/bin/env bash
# A few seconds of every workload, so the benchmark package cannot rot. CI runs it; numbers are
# not checked here (compare.sh is the measuring command).
set -euo pipefail
cd "$(dirname "$0")"
swift build -c release --product Measure
for workload in w1 w3; do
    for library in actorpromise actorpromise-inline nio; do
        .build/release/Measure "$workload" "$library" 50
    done
done
.build/release/Measure w6 actorpromise 1000 >/dev/null
.build/release/Measure w6 nio 1000 >/dev/null
echo "benchmark smoke pass: ok"
