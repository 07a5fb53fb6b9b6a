#!/usr/bin/env python3
"""Per-megabyte cost of each way bytes can cross between a Blink page and the app (issue #31).

Drives Chromium over --remote-debugging-pipe with a small client (Python's C-accelerated JSON, so
the figures are the transport's floor, not Foundation's), and a loopback HTTP server in this
process for the page to post to and fetch from. Prints one line per path: ms per MiB (median of
--rounds) for --mb MiB.

    xvfb-run -a python3 scripts/blink-byte-paths.py [--mb 8] [--rounds 5]

Paths: pipe base64 page->app (Runtime.evaluate returning the page's base64) and app->page (a
base64 literal evaluated in the page); IO.read of a page Blob (IO.resolveBlob); a response body
taken with Fetch.takeResponseBodyAsStream and IO.read; a page POST paused in Fetch (the body in
requestPaused); loopback HTTP POST and GET of raw bytes (fetch to 127.0.0.1).
"""
import argparse, base64, http.server, json, os, socketserver, statistics, subprocess, sys, tempfile, threading, time

parser = argparse.ArgumentParser()
parser.add_argument("--mb", type=int, default=8)
parser.add_argument("--rounds", type=int, default=5)
parser.add_argument("--chromium", default=os.environ.get("HYBRID_CHROMIUM", "chromium"))
args = parser.parse_args()
SIZE = args.mb << 20
BLOB = bytes((i * 7) & 255 for i in range(256)) * (SIZE // 256)


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def cors(self):
        self.send_header("Access-Control-Allow-Origin", self.headers.get("Origin", "*"))
        self.send_header("Access-Control-Allow-Private-Network", "true")

    def do_OPTIONS(self):
        self.send_response(204)
        self.cors()
        self.send_header("Access-Control-Allow-Methods", "GET, POST")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_GET(self):
        body = b"<!doctype html><title>paths</title>" if self.path == "/" else BLOB
        self.send_response(200)
        self.cors()
        self.send_header("Content-Type", "text/html" if self.path == "/" else "application/octet-stream")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        left = length
        while left > 0:
            left -= len(self.rfile.read(min(left, 1 << 20)))
        self.send_response(200)
        self.cors()
        self.send_header("Content-Length", "0")
        self.end_headers()


server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
threading.Thread(target=server.serve_forever, daemon=True).start()
ORIGIN = f"http://127.0.0.1:{server.server_address[1]}"

to_chrome_r, to_chrome_w = os.pipe()
from_chrome_r, from_chrome_w = os.pipe()


def child_fds():
    os.dup2(to_chrome_r, 3)
    os.dup2(from_chrome_w, 4)


profile = tempfile.mkdtemp(prefix="hk-paths-")
chrome = subprocess.Popen(
    [args.chromium, "--headless=new", "--no-sandbox", "--remote-debugging-pipe", f"--user-data-dir={profile}",
     "--no-first-run", "--disable-gpu", "about:blank"],
    preexec_fn=child_fds, pass_fds=(3, 4), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
os.close(to_chrome_r)
os.close(from_chrome_w)
reader = os.fdopen(from_chrome_r, "rb", buffering=1 << 20)
writer = os.fdopen(to_chrome_w, "wb", buffering=0)
pending = b""
next_id = 0
events = []


def read_message():
    global pending
    while True:
        end = pending.find(b"\0")
        if end >= 0:
            message, pending = pending[:end], pending[end + 1:]
            return json.loads(message)
        chunk = reader.read1(1 << 20)
        if not chunk:
            raise SystemExit("chromium closed the pipe")
        pending += chunk


def call(method, params=None, session=None):
    global next_id
    next_id += 1
    message = {"id": next_id, "method": method, "params": params or {}}
    if session:
        message["sessionId"] = session
    writer.write(json.dumps(message).encode() + b"\0")
    while True:
        reply = read_message()
        if reply.get("id") == next_id:
            if "error" in reply:
                raise RuntimeError(f"{method}: {reply['error']}")
            return reply["result"]
        events.append(reply)


def wait_event(name):
    while True:
        for index, event in enumerate(events):
            if event.get("method") == name:
                return events.pop(index)
        events.append(read_message())


target = call("Target.createTarget", {"url": "about:blank"})["targetId"]
session = call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
call("Page.enable", session=session)
call("Page.navigate", {"url": ORIGIN + "/"}, session=session)
wait_event("Page.loadEventFired")
events.clear()


def evaluate(expression, by_value=True):
    result = call("Runtime.evaluate", {"expression": expression, "awaitPromise": True, "returnByValue": by_value}, session=session)
    if "exceptionDetails" in result:
        raise RuntimeError(result["exceptionDetails"])
    return result["result"]


evaluate(f"window.bytes = new Uint8Array({SIZE}); for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 7) & 255; true")


def timed(run):
    samples = []
    for _ in range(args.rounds + 1):
        start = time.perf_counter()
        run()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples[1:]) * 1000 / args.mb


def pipe_to_app():
    text = evaluate("bytes.toBase64()")["value"]
    assert len(base64.b64decode(text)) == SIZE


literal = base64.b64encode(BLOB).decode()


def pipe_to_page():
    assert evaluate(f"Uint8Array.fromBase64('{literal}').length")["value"] == SIZE


def io_read_blob():
    blob = evaluate("new Blob([bytes])", by_value=False)
    uuid = call("IO.resolveBlob", {"objectId": blob["objectId"]}, session=session)["uuid"]
    received = 0
    while True:
        chunk = call("IO.read", {"handle": f"blob:{uuid}", "size": 1 << 20}, session=session)
        received += len(base64.b64decode(chunk["data"])) if chunk.get("base64Encoded") else len(chunk["data"].encode("latin-1"))
        if chunk.get("eof"):
            break
    call("IO.close", {"handle": f"blob:{uuid}"}, session=session)
    assert received == SIZE, received


def take_response_stream():
    call("Fetch.enable", {"patterns": [{"urlPattern": ORIGIN + "/stream*", "requestStage": "Response"}]}, session=session)
    call("Runtime.evaluate", {"expression": f"window.done = fetch('{ORIGIN}/stream').then(r => r.arrayBuffer()).catch(() => 0)"}, session=session)
    paused = wait_event("Fetch.requestPaused")["params"]
    stream = call("Fetch.takeResponseBodyAsStream", {"requestId": paused["requestId"]}, session=session)["stream"]
    received = 0
    while True:
        chunk = call("IO.read", {"handle": stream, "size": 1 << 20}, session=session)
        received += len(base64.b64decode(chunk["data"])) if chunk.get("base64Encoded") else len(chunk["data"].encode("latin-1"))
        if chunk.get("eof"):
            break
    call("IO.close", {"handle": stream}, session=session)
    call("Fetch.failRequest", {"requestId": paused["requestId"], "errorReason": "Aborted"}, session=session)
    evaluate("window.done.then(() => true)")
    call("Fetch.disable", session=session)
    assert received == SIZE, received


def paused_post():
    call("Fetch.enable", {"patterns": [{"urlPattern": ORIGIN + "/paused*", "requestStage": "Request"}]}, session=session)
    call("Runtime.evaluate", {"expression": f"window.done = fetch('{ORIGIN}/paused', {{ method: 'POST', body: bytes }})"}, session=session)
    paused = wait_event("Fetch.requestPaused")["params"]
    entries = paused["request"].get("postDataEntries", [])
    assert sum(len(base64.b64decode(e.get("bytes", ""))) for e in entries) == SIZE
    call("Fetch.continueRequest", {"requestId": paused["requestId"]}, session=session)
    evaluate("window.done.then(() => true)")
    call("Fetch.disable", session=session)


def loopback_post():
    assert evaluate(f"fetch('{ORIGIN}/sink', {{ method: 'POST', body: bytes }}).then(r => r.status)")["value"] == 200


def loopback_get():
    assert evaluate(f"fetch('{ORIGIN}/bytes').then(r => r.arrayBuffer()).then(b => b.byteLength)")["value"] == SIZE


try:
    for name, run in [("pipe base64, page -> app (Runtime.evaluate of toBase64)", pipe_to_app),
                      ("pipe base64, app -> page (evaluate a base64 literal)", pipe_to_page),
                      ("IO.read of a page Blob (IO.resolveBlob, 1 MiB reads)", io_read_blob),
                      ("Fetch.takeResponseBodyAsStream + IO.read", take_response_stream),
                      ("POST paused in Fetch (body in requestPaused)", paused_post),
                      ("loopback HTTP POST, page -> app", loopback_post),
                      ("loopback HTTP GET, app -> page", loopback_get)]:
        print(f"{timed(run):8.1f} ms/MiB  {name}", flush=True)
finally:
    chrome.kill()
    chrome.wait()
    subprocess.run(["rm", "-rf", profile])
