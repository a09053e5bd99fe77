#!/usr/bin/env bash
# Proof that the interleaving checker bites: each patch in scripts/planted-defects/ plants one
# concurrency defect (most are earlier race fixes reverted). For each, in a scratch copy of the
# working tree, this applies the patch, builds the checker's build and runs InterleavingTests,
# which must fail; it prints the scenario that failed and after how many schedules.
#
#   scripts/planted-defects.sh                  # every patch (about a minute each after the first)
#   scripts/planted-defects.sh gate-*           # some of them
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
work=${WORK:-/tmp/actorpromise-planted}
patterns=("${@:-*}")
rm -rf "$work/src"
mkdir -p "$work/src"
git ls-files -z | xargs -0 -I{} cp --parents {} "$work/src"
found=0 missed=0
for pattern in "${patterns[@]}"; do
    for patch in "$root"/scripts/planted-defects/$pattern.patch; do
        name=$(basename "$patch" .patch)
        if ! (cd "$work/src" && patch -p1 --quiet --dry-run < "$patch" >/dev/null); then
            echo "$name: DOES NOT APPLY to this tree (make it again against the code it plants in)"
            missed=$((missed + 1))
            continue
        fi
        (cd "$work/src" && patch -p1 --quiet < "$patch")
        log="$work/$name.log"
        # A patch may name, in a first line `# scenarios: text`, the scenarios to run (those whose
        # name holds the text); without it every scenario runs until the first failure.
        only=$(sed -n '1s/^# scenarios: //p' "$patch")
        if (cd "$work/src" && ACTORPROMISE_INTERLEAVING_SCENARIO="$only" ACTORPROMISE_INTERLEAVING_FIRST_FAILURE=1 ACTORPROMISE_INTERLEAVING_PROCESSES=1 \
            SCRATCH="$work/build" scripts/interleavings.sh >"$log" 2>&1); then
            echo "$name: NOT FOUND (every scenario passed)"
            missed=$((missed + 1))
        else
            first=$(grep -m1 "FAILED after" "$log" | sed -e 's/^interleavings: //' || true)
            echo "$name: found — ${first:-the build or run failed, see $log}"
            found=$((found + 1))
        fi
        (cd "$work/src" && patch -p1 -R --quiet < "$patch")
    done
done
echo "planted defects: $found found, $missed not found"
[ "$missed" -eq 0 ]
