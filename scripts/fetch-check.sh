#!/usr/bin/env bash
# Runs the Fetch example against a local HTTP server (scripts/fetch-server.py, on 127.0.0.1 only):
# a batch with a failing request that is retried, then a batch interrupted with SIGINT, which must
# exit promptly with status 130 and make no request after the signal.
set -euo pipefail
cd "$(dirname "$0")/.."
swift build --product Fetch -Xswiftc -warnings-as-errors >/dev/null
FETCH="$(swift build --show-bin-path)/Fetch"
WORK=$(mktemp -d)
python3 scripts/fetch-server.py --port-file "$WORK/port" --log "$WORK/requests" --lifetime 120 &
SERVER=$!
trap 'kill $SERVER 2>/dev/null || true; rm -rf "$WORK"' EXIT
for _ in $(seq 100); do [ -s "$WORK/port" ] && break; sleep 0.1; done
BASE="http://127.0.0.1:$(cat "$WORK/port")"
fail() { echo "fetch-check: $*"; echo "--- output"; cat "$WORK/out" || true; echo "--- server log"; cat "$WORK/requests" || true; exit 1; }

echo "-- a batch of 7, one of them failing once"
URLS=()
for i in 1 2 3 4 5 6; do URLS+=("$BASE/ok/$i?delay=0.1"); done
URLS+=("$BASE/flaky/1")
status=0; "$FETCH" --max-concurrent 3 "${URLS[@]}" >"$WORK/out" 2>&1 || status=$?
[ "$status" -eq 0 ] || fail "exit status $status, expected 0"
[ "$(tail -1 "$WORK/out")" = "fetched 7 of 7 URLs, 2150 bytes" ] || fail "the summary (main-actor code run by wait()) is not the last line"
[ "$(grep -c "^  http.* bytes$" "$WORK/out")" -eq 7 ] || fail "expected one line per URL"
grep -q "^\[7/7\] 100%" "$WORK/out" || fail "no final progress line"
[ "$(grep -c "REQUEST /flaky/1 " "$WORK/requests")" -eq 2 ] || fail "the failed request was not retried once"
grep "\[" "$WORK/out" | head -3

echo "-- a batch interrupted with SIGINT"
: >"$WORK/requests"
URLS=()
for i in 1 2 3 4 5 6; do URLS+=("$BASE/ok/$i?delay=30"); done
"$FETCH" --max-concurrent 2 "${URLS[@]}" >"$WORK/out" 2>&1 &
FETCHING=$!
for _ in $(seq 200); do [ "$(grep -c REQUEST "$WORK/requests" || true)" -ge 2 ] && break; sleep 0.05; done
[ "$(grep -c REQUEST "$WORK/requests")" -eq 2 ] || fail "expected 2 requests in flight"
sent=$(date +%s.%N)
kill -INT $FETCHING
status=0; wait $FETCHING || status=$?
took=$(python3 -c "import time; print(f'{time.time() - $sent:.2f}')")
[ "$status" -eq 130 ] || fail "exit status $status after SIGINT, expected 130"
python3 -c "import sys; sys.exit(0 if $took < 3 else 1)" || fail "took ${took}s to exit after SIGINT"
grep -q "^cancelled" "$WORK/out" || fail "no 'cancelled' line"
sleep 1
[ "$(grep -c REQUEST "$WORK/requests")" -eq 2 ] || fail "a request was made after SIGINT"
echo "exit 130 ${took}s after SIGINT; requests made: 2 before it, none after"
echo "fetch-check: ok"
