#!/usr/bin/env bash
# Regenerates the Diagnostics article's picture of a pending snapshot: runs the Fetch example
# against a local server that answers slowly or with errors, asks Fetch for its pending promises
# with SIGUSR1 while a retry waits out its back-off, renders the graph with Graphviz, and prints
# the text of the same snapshot (the article quotes it).
#
# Usage: scripts/pending-picture.sh      (needs Graphviz's `dot` and python3)
set -euo pipefail
cd "$(dirname "$0")/.."
command -v dot >/dev/null || { echo "pending-picture.sh: needs Graphviz's dot (apt-get install graphviz)" >&2; exit 1; }
picture=Sources/ActorPromise/ActorPromise.docc/Resources/pending-snapshot.svg
work=$(mktemp -d)
server=""
fetch=""
trap 'kill $server $fetch 2>/dev/null || true; rm -rf "$work"' EXIT

# /slow/NAME answers after a minute; /failing answers 500 at once.
cat > "$work/server.py" <<'PY'
import http.server, sys, time
class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        if self.path.startswith("/slow/"):
            time.sleep(60)
        self.send_response(500 if self.path == "/failing" else 200)
        self.end_headers()
        self.wfile.write(b"body")
    def log_message(self, *arguments):
        pass
http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler).serve_forever()
PY
port=8765
python3 "$work/server.py" $port & server=$!
swift build --product Fetch >/dev/null
# Retries back off 0.2, 0.4, 0.8, 1.6 s: two seconds in, the failing URL's retry waits on a timer.
FETCH_PENDING_DOT="$work/pending.dot" .build/debug/Fetch --max-concurrent 3 --attempts 5 \
    "http://127.0.0.1:$port/slow/catalog" "http://127.0.0.1:$port/failing" "http://127.0.0.1:$port/slow/prices" \
    >/dev/null 2>"$work/stderr" & fetch=$!
sleep 2
kill -USR1 $fetch
for _ in $(seq 50); do [ -s "$work/pending.dot" ] && break; sleep 0.1; done
dot -Tsvg "$work/pending.dot" > "$picture"
echo "wrote $picture; the text of the same snapshot:"
cat "$work/stderr"
