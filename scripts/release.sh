#!/usr/bin/env bash
# Cuts a release. VERSION needs its section in CHANGELOG.md ("## [VERSION] - YYYY-MM-DD"); the
# tree must be clean and on main. Runs CI's checks (.ci/run), tags the commit vVERSION, and
# records it as the API baseline in scripts/api-baseline.txt (a commit of its own), against which
# CI's API check compares every later change.
#
#   scripts/release.sh 1.1.0
set -euo pipefail
cd "$(dirname "$0")/.."
version=${1:?usage: scripts/release.sh VERSION}
fail() { echo "release: $*" >&2; exit 1; }

[[ $version =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || fail "$version is not MAJOR.MINOR.PATCH"
[[ -z $(git status --porcelain) ]] || fail "the tree has changes that are not committed"
[[ $(git rev-parse --abbrev-ref HEAD) == main ]] || fail "not on main"
grep -Eq "^## \[$version\] - [0-9]{4}-[0-9]{2}-[0-9]{2}$" CHANGELOG.md \
    || fail "CHANGELOG.md has no section '## [$version] - YYYY-MM-DD'"
! git rev-parse -q --verify "refs/tags/v$version" >/dev/null || fail "v$version is tagged already"

echo "== the checks CI runs (.ci/run)"
bash .ci/run

commit=$(git rev-parse HEAD)
git tag -a "v$version" -m "ActorPromise $version"
printf '%s %s\n' "$version" "$commit" > scripts/api-baseline.txt
git add scripts/api-baseline.txt
git commit -q -F - <<EOF
Release $version: its commit is the API baseline

Motivation:

The API check compares the public interface with the last release.

Modifications:

scripts/api-baseline.txt names $version at $commit (tag v$version).

Result:

Later changes are checked against $version.
EOF
echo "released $version at $commit (tag v$version); push main and the tag"
