#!/usr/bin/env python3
"""A small HTTP server on 127.0.0.1 for checking the Fetch example (scripts/fetch-check.sh).

  /ok/N?delay=S   waits S seconds, then answers 200 with N*100 bytes
  /flaky/N        answers 503 the first time it is asked, 200 afterwards
  /missing        answers 404

Every request is logged, one line each, to the log file given; the port it listens on is written
to the port file. It stops by itself after --lifetime seconds.
"""
import argparse, threading, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlparse, parse_qs

parser = argparse.ArgumentParser()
parser.add_argument("--port-file", required=True)
parser.add_argument("--log", required=True)
parser.add_argument("--lifetime", type=float, default=300)
options = parser.parse_args()
lock = threading.Lock()
seen = {}

def log(line):
    with lock, open(options.log, "a") as f:
        f.write(line + "\n")

class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_GET(self):
        url = urlparse(self.path)
        log(f"REQUEST {url.path} {time.time():.3f}")
        parts = url.path.strip("/").split("/")
        status, body = 404, b"not found"
        if parts[0] == "ok" and len(parts) == 2:
            time.sleep(float(parse_qs(url.query).get("delay", ["0"])[0]))
            status, body = 200, b"x" * (100 * int(parts[1]))
        elif parts[0] == "flaky":
            with lock:
                seen[url.path] = seen.get(url.path, 0) + 1
                first = seen[url.path] == 1
            status, body = (503, b"try again") if first else (200, b"y" * 50)
        try:
            self.send_response(status)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            log(f"ABORTED {url.path} {time.time():.3f}")

server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
with open(options.port_file, "w") as f:
    f.write(str(server.server_address[1]))
threading.Timer(options.lifetime, server.shutdown).start()
server.serve_forever()
