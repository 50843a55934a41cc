#!/usr/bin/env python3
"""A scripted OpenAI-compatible Chat Completions server for tests (Python 3 standard library only).

Usage: fake_llm_server.py SCRIPT.json REQUEST_LOG.jsonl [--port N]

Listens on 127.0.0.1 (port 0: the system picks one) and prints "PORT <n>" as its first line on stdout.

Every POST to a path ending in /chat/completions consumes the next entry of the script, a JSON list; when the
script is exhausted the server answers 410 with the body "fake server: script exhausted". Other paths get 404
without consuming an entry.

Every request is appended to REQUEST_LOG.jsonl as one JSON object per line, flushed at once:
  {"method": "POST", "path": "/v1/chat/completions", "headers": {"authorization": "Bearer ...", ...},
   "body": <the parsed JSON body, or null>, "raw_body": <the body text when it is not JSON>}
Header names are lower-case.

Script entries ("kind" selects the behaviour; every other field is optional):

  {"kind": "reply", "content": "Hello", "stream": true, "usage": {...}}
      A completion. "stream" defaults to the request's "stream"; true sends server-sent events (chunked transfer
      encoding, a flush and a pause after each event), false one JSON body.
      "chunks": ["Hel", "lo"]   the content deltas, in order (default: "content" cut into pieces of "chunk_chars",
                                3 characters)
      "usage": {"prompt_tokens": 5, "completion_tokens": 2, "total_tokens": 7}: in the body, or for streams in a
                                last chunk with "choices": [] sent only when the request asked for it with
                                "stream_options": {"include_usage": true}, as OpenAI does
      "finish_reason": "stop"   null sends no finish_reason
      "done": true              false: no "data: [DONE]" at the end
      "chunk_delay_ms": 10      pause after each event
      "crlf": false             true: events end lines with CRLF
      "comments": false         true: a ": keep-alive" comment line before each event
      "model": "..."            the model named in the reply (default: the request's)
  {"kind": "status", "code": 429, "retry_after": "1", "body": "..."}
      An error status. "retry_after" becomes the Retry-After header; "body" (default: an OpenAI-style error
      object) is sent as application/json, with "$AUTH" replaced by the request's bearer token (to test that the
      client redacts a key that a server echoes).
  {"kind": "stall", "after_chunks": 2, "seconds": 30}
      Starts a stream, sends "after_chunks" content chunks ("content" is cut as for "reply"), then goes silent for
      "seconds" and closes the connection without ending the chunked body.
  {"kind": "truncate", "after_chunks": 2}
      Starts a stream, sends "after_chunks" content chunks, then closes the socket mid-body.
  {"kind": "malformed"}
      For a streamed request: one good chunk, then a chunk that is not JSON. Otherwise: 200 with a body that is
      not JSON. "stream" overrides the choice.
  {"kind": "huge", "bytes": 8000000}
      A 200 reply of about "bytes" bytes: a stream of large chunks, or one JSON body with a Content-Length.
"""

import json
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Script:
    def __init__(self, entries):
        self._entries = list(entries)
        self._lock = threading.Lock()

    def next(self):
        with self._lock:
            return self._entries.pop(0) if self._entries else None


class RequestLog:
    def __init__(self, path):
        self._file = open(path, "a", encoding="utf-8")
        self._lock = threading.Lock()

    def write(self, record):
        with self._lock:
            self._file.write(json.dumps(record) + "\n")
            self._file.flush()


def pieces(entry):
    if "chunks" in entry:
        return list(entry["chunks"])
    content = entry.get("content", "partial reply")
    n = max(1, int(entry.get("chunk_chars", 3)))
    return [content[i:i + n] for i in range(0, len(content), n)]


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "FakeLLM/1"

    def log_message(self, format, *args):  # quiet: the tests read the request log instead
        pass

    # --- plumbing ---------------------------------------------------------------------------------------------

    def read_request(self):
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw) if raw else None
            raw_text = None
        except ValueError:
            body, raw_text = None, raw.decode("utf-8", "replace")
        headers = {k.lower(): v for k, v in self.headers.items()}
        self.server.request_log.write({"method": self.command, "path": self.path, "headers": headers,
                                       "body": body, "raw_body": raw_text})
        return headers, body if isinstance(body, dict) else {}

    def send_body(self, code, payload, content_type="application/json", extra_headers=None):
        data = payload if isinstance(payload, bytes) else payload.encode("utf-8")
        self.send_response(code)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Connection", "close")
        for name, value in (extra_headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()
        self.close_connection = True

    def start_stream(self):
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.flush()
        self.close_connection = True

    def send_chunk(self, data):
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()

    def end_stream(self):
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def send_event(self, data, entry=None):
        entry = entry or {}
        eol = "\r\n" if entry.get("crlf") else "\n"
        text = (": keep-alive" + eol if entry.get("comments") else "") + "data: " + data + eol + eol
        self.send_chunk(text.encode("utf-8"))
        delay = entry.get("chunk_delay_ms", 10)
        if delay:
            time.sleep(delay / 1000.0)

    def abort_socket(self):
        try:
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.connection.close()
        self.close_connection = True

    # --- OpenAI shapes ----------------------------------------------------------------------------------------

    @staticmethod
    def chunk(model, delta, finish_reason=None):
        return json.dumps({"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": int(time.time()),
                           "model": model, "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}]})

    def stream_prefix(self, entry, model, count=None):
        """Headers, the role chunk and the first `count` content chunks (all of them when None)."""
        self.start_stream()
        self.send_event(self.chunk(model, {"role": "assistant", "content": ""}), entry)
        for piece in pieces(entry)[:count]:
            self.send_event(self.chunk(model, {"content": piece}), entry)

    # --- behaviours -------------------------------------------------------------------------------------------

    def do_reply(self, entry, request, model):
        streamed = entry.get("stream", bool(request.get("stream")))
        finish = entry.get("finish_reason", "stop")
        usage = entry.get("usage")
        if not streamed:
            message = {"role": "assistant", "content": "".join(pieces(entry))}
            body = {"id": "chatcmpl-fake", "object": "chat.completion", "created": int(time.time()), "model": model,
                    "choices": [{"index": 0, "message": message, "finish_reason": finish}]}
            if usage is not None:
                body["usage"] = usage
            self.send_body(entry.get("status", 200), json.dumps(body))
            return
        self.stream_prefix(entry, model)
        if finish is not None:
            self.send_event(self.chunk(model, {}, finish), entry)
        include_usage = (request.get("stream_options") or {}).get("include_usage")
        if usage is not None and include_usage:
            self.send_event(json.dumps({"id": "chatcmpl-fake", "object": "chat.completion.chunk", "model": model,
                                        "choices": [], "usage": usage}), entry)
        if entry.get("done", True):
            self.send_event("[DONE]", entry)
        self.end_stream()

    def do_status(self, entry, headers):
        code = int(entry.get("code", 500))
        body = entry.get("body")
        if body is None:
            body = json.dumps({"error": {"message": "fake status %d" % code, "type": "fake_error", "code": code}})
        token = headers.get("authorization", "")
        token = token[len("Bearer "):] if token.startswith("Bearer ") else token
        body = body.replace("$AUTH", token)
        extra = {"Retry-After": str(entry["retry_after"])} if "retry_after" in entry else {}
        self.send_body(code, body, extra_headers=extra)

    def do_stall(self, entry, model):
        self.stream_prefix(entry, model, int(entry.get("after_chunks", 2)))
        deadline = time.monotonic() + float(entry.get("seconds", 30))
        while time.monotonic() < deadline and not self.server.stopping:
            time.sleep(0.05)
        self.abort_socket()

    def do_truncate(self, entry, model):
        self.stream_prefix(entry, model, int(entry.get("after_chunks", 2)))
        self.wfile.write(b"40\r\ndata: {\"choices\": [{\"delta\": {\"cont")  # a chunk cut short
        self.wfile.flush()
        self.abort_socket()

    def do_malformed(self, entry, request, model):
        if entry.get("stream", bool(request.get("stream"))):
            self.start_stream()
            self.send_event(self.chunk(model, {"role": "assistant", "content": "ok"}), entry)
            self.send_event('{"choices": [{"delta": {"content": "broken', entry)
            self.send_event("[DONE]", entry)
            self.end_stream()
        else:
            self.send_body(200, '{"choices": [{"message": {"content": "broken')

    def do_huge(self, entry, request, model):
        size = int(entry.get("bytes", 8000000))
        if entry.get("stream", bool(request.get("stream"))):
            self.start_stream()
            piece = "x" * 65536
            sent = 0
            while sent < size:
                self.send_event(self.chunk(model, {"content": piece}), {"chunk_delay_ms": 0})
                sent += len(piece)
            self.send_event("[DONE]", {"chunk_delay_ms": 0})
            self.end_stream()
        else:
            body = {"model": model, "choices": [{"index": 0, "finish_reason": "stop",
                                                 "message": {"role": "assistant", "content": "x" * size}}]}
            self.send_body(200, json.dumps(body))

    def do_POST(self):
        headers, request = self.read_request()
        if not self.path.rstrip("/").endswith("/chat/completions"):
            self.send_body(404, json.dumps({"error": {"message": "no route " + self.path}}))
            return
        entry = self.server.script.next()
        if entry is None:
            self.send_body(410, "fake server: script exhausted", "text/plain")
            return
        model = entry.get("model") or request.get("model") or "fake-model"
        kind = entry.get("kind")
        try:
            if kind == "reply":
                self.do_reply(entry, request, model)
            elif kind == "status":
                self.do_status(entry, headers)
            elif kind == "stall":
                self.do_stall(entry, model)
            elif kind == "truncate":
                self.do_truncate(entry, model)
            elif kind == "malformed":
                self.do_malformed(entry, request, model)
            elif kind == "huge":
                self.do_huge(entry, request, model)
            else:
                self.send_body(500, "fake server: unknown script kind %r" % kind, "text/plain")
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True  # the client gave up (cancel, size limit): expected

    def do_GET(self):
        self.read_request()
        self.send_body(404, json.dumps({"error": {"message": "no route " + self.path}}))


def main(argv):
    if len(argv) < 3:
        sys.stderr.write(__doc__)
        return 2
    with open(argv[1], encoding="utf-8") as f:
        entries = json.load(f)
    port = int(argv[argv.index("--port") + 1]) if "--port" in argv else 0
    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    server.daemon_threads = True
    server.script = Script(entries)
    server.request_log = RequestLog(argv[2])
    server.stopping = False
    print("PORT %d" % server.server_address[1], flush=True)
    try:
        server.serve_forever(poll_interval=0.1)
    except KeyboardInterrupt:
        pass
    finally:
        server.stopping = True
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
