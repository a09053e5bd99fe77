#!/usr/bin/env bash
# Builds the DocC catalog (Sources/ActorPromise/ActorPromise.docc) with the toolchain's own `docc`,
# over the symbol graphs of both library modules (ActorPromise and the contexts it re-exports); warnings (a broken link, an unknown symbol) are
# errors. The site lands in .build-docs/ActorPromise.doccarchive.
#
#   scripts/docs.sh
set -euo pipefail
cd "$(dirname "$0")/.."
SCRATCH=.build-docs
GRAPHS="$SCRATCH/symbol-graphs"
# The dump also tries the test modules, which it cannot load; that failure is harmless, and a
# missing library graph makes the copy below fail instead.
swift package --scratch-path "$SCRATCH" dump-symbol-graph --minimum-access-level public >/dev/null 2>&1 || true
rm -rf "$GRAPHS" && mkdir -p "$GRAPHS"
# Only the library's own modules (the dump also holds the demo's and the tests').
for module in ActorPromise ActorPromiseExecutors; do
    cp "$SCRATCH"/*/symbolgraph/"$module"*.symbols.json "$GRAPHS"/
done
docc convert Sources/ActorPromise/ActorPromise.docc \
    --additional-symbol-graph-dir "$GRAPHS" \
    --fallback-display-name ActorPromise --fallback-bundle-identifier org.actorpromise.ActorPromise \
    --output-path "$SCRATCH/ActorPromise.doccarchive" \
    --warnings-as-errors
echo "docs: ok ($SCRATCH/ActorPromise.doccarchive)"
