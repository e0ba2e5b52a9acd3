#!/usr/bin/env python3
"""An OTLP/HTTP trace collector for benches: accepts POST /v1/traces, reads the body, answers 200 with an
empty protobuf body (an ExportTraceServiceResponse with nothing in it) and keeps nothing but counts, so
an exporter never backs up on it. GET /stats answers {"requests": N, "bytes": B} (bodies as received).

    python3 bench/lib/otlp-sink.py PORT
"""
import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

counts = {"requests": 0, "bytes": 0}
lock = threading.Lock()


class Sink(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive: the exporter reuses its connection

    def read_body(self):
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            size = 0
            while True:
                n = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if n == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass  # trailers
                    return size
                self.rfile.read(n)
                self.rfile.readline()
                size += n
        length = int(self.headers.get("Content-Length", "0"))
        self.rfile.read(length)
        return length

    def answer(self, status, body, content_type):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self):
        size = self.read_body()
        if self.path != "/v1/traces":
            self.answer(404, b"", "text/plain")
            return
        with lock:
            counts["requests"] += 1
            counts["bytes"] += size
        self.answer(200, b"", "application/x-protobuf")

    def do_GET(self):
        if self.path != "/stats":
            self.answer(404, b"", "text/plain")
            return
        with lock:
            body = json.dumps(counts).encode()
        self.answer(200, body, "application/json")

    def log_message(self, *args):
        pass  # one line per export would be the sink's main work


if __name__ == "__main__":
    server = ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Sink)
    server.daemon_threads = True
    server.serve_forever()
