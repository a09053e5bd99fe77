#!/usr/bin/env bash
# Compares the public API of the products with the last release's (the commit recorded in
# scripts/api-baseline.txt by scripts/release.sh): a change that breaks it fails, so a break is a
# deliberate act — a new major version, written in CHANGELOG.md.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -f scripts/api-baseline.txt ]; then
    echo "api-check: no release recorded yet (scripts/api-baseline.txt), nothing to compare with"
    exit 0
fi
read -r version commit < scripts/api-baseline.txt
echo "api-check: against $version ($commit)"
# The tool also compares `package` declarations, which users cannot call; a change to one that it
# reports is listed in scripts/api-breakage-allowlist.txt (one message a line). A public one is
# listed only when no caller's source can tell (the tool compares the binary interface too): today
# `value` and `outcome` running on the caller's executor (`nonisolated(nonsending)`), and the
# context (and `whenComplete`'s callback) that the operators take `consuming`, as `then` does —
# every call, method reference, protocol witness and closure that used them still compiles with
# them, and CHANGELOG says so.
swift package diagnose-api-breaking-changes "$commit" --products ActorPromise ActorPromiseTesting \
    --breakage-allowlist-path scripts/api-breakage-allowlist.txt
