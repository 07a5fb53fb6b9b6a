#!/usr/bin/env python3
"""`hybrid webdriver` driven by stock Selenium (PyPI `selenium`, no HybridKit code): a package page
and a network page on one engine, the endpoint's refusals, and (--bench) a session start and a
find + click against chromedriver driving the same Chromium, as ratios in one run.

    selenium_suite.py --hybrid .build/debug/hybrid --engine webkit|blink [--bench]

scripts/webdriver-tests.sh makes the venv and runs it for both engines (docs/testing.md)."""
import argparse, base64, http.server, json, os, pathlib, shutil, statistics, struct, subprocess, sys, tempfile, threading, time
import urllib.error, urllib.request

from selenium import webdriver
from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException, WebDriverException
from selenium.webdriver.common.by import By
from selenium.webdriver.common.options import ArgOptions
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait

SITE = pathlib.Path(__file__).resolve().parent / "site"
PACKAGE_ORIGIN = "https://m.example.test/shop/"
MINIBROWSER = "/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser"
failures = []


def check(condition, what):
    print(("  ok    " if condition else "  FAIL  ") + what, flush=True)
    if not condition:
        failures.append(what)


class Site(http.server.SimpleHTTPRequestHandler):
    """The network origin: the suite's pages, the package repository under /repo/, and two cookie routes."""
    repo = None

    def log_message(self, *args):
        pass

    def translate_path(self, path):
        if path.startswith("/repo/") and self.repo:
            return str(pathlib.Path(self.repo) / path[len("/repo/"):].split("?")[0])
        return str(SITE / path.lstrip("/").split("?")[0])

    def do_GET(self):
        if self.path.startswith("/echo-cookie"):
            return self.answer(f"<title>echo</title><p id='cookie'>{self.headers.get('Cookie', '')}</p>")
        if self.path.startswith("/set-cookie"):
            return self.answer("<title>set</title><p>set</p>", [("Set-Cookie", "served=yes; Path=/")])
        return super().do_GET()

    def answer(self, html, headers=()):
        body = html.encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)


def start_site(repo):
    Site.repo = repo
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Site)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


def publish_package(hybrid, work, origin):
    """The suite's site as package 'shop', signed, installed into a store by `hybrid update`."""
    run = lambda *args: subprocess.run([hybrid, *args], check=True, capture_output=True, text=True)
    run("keygen", "--out", f"{work}/keys")
    run("pack", str(SITE), "--id", "shop", "--version", "1", "--origin", PACKAGE_ORIGIN,
        "--key", f"{work}/keys/private", "--repo", f"{work}/repo")
    run("update", "--repo", f"{origin}/repo/", "--key", f"{work}/keys/public", "--store", f"{work}/store")
    return f"{work}/store"


def start_endpoint(hybrid, engine, work, store):
    url_file = f"{work}/endpoint-{engine}-{time.time_ns()}"
    process = subprocess.Popen([hybrid, "webdriver", "--port", "0", "--engine", engine, "--store", store, "--url-file", url_file],
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    for line in process.stdout:
        if line.strip() == "ready":
            break
    else:
        raise SystemExit(f"hybrid webdriver exited ({process.wait()}) before it was ready")
    threading.Thread(target=lambda: [None for _ in process.stdout], daemon=True).start()
    return process, pathlib.Path(url_file).read_text().strip()


def stop(process):
    process.terminate()
    try:
        process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        process.kill()


def options(**hybrid):
    opts = ArgOptions()
    opts.set_capability("browserName", "hybridkit")
    opts.set_capability("hybrid:options", hybrid)
    return opts


def http_status(url, method="GET", headers=None, body=None):
    request = urllib.request.Request(url, method=method, headers=headers or {}, data=body)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code


def png_size(data):
    return struct.unpack(">II", data[16:24]) if data[:8] == b"\x89PNG\r\n\x1a\n" else (0, 0)


def refusals(endpoint):
    """The endpoint answers only its token, from loopback, never a web page."""
    base, token = endpoint.rsplit("/", 1)
    check(http_status(f"{base}/status") == 403, "no token: refused (403)")
    check(http_status(f"{base}/{'0' * len(token)}/status") == 403, "a wrong token: refused (403)")
    check(http_status(f"{endpoint}/status", headers={"Origin": "http://evil.example"}) == 403, "an Origin header (a page's request): refused")
    port = base.rsplit(":", 1)[1]
    check(http_status(f"{endpoint}/status", headers={"Host": f"evil.example:{port}"}) == 403, "a non-loopback Host (DNS rebinding): refused")
    check(http_status(f"{endpoint}/status") == 200, "the token: answered")
    check(http_status(f"{endpoint}/session", "POST", {"Content-Type": "application/json"},
                      json.dumps({"capabilities": {"alwaysMatch": {"hybrid:options": {"debug": True}}}}).encode()) == 400,
          "an unknown hybrid:options key: invalid argument (400)")


def scenario(driver, engine, page, network_origin, endpoint):
    """One page in the container, as a test suite drives it."""
    label = f"[{engine} {page}]"
    check(driver.title == "WebDriver home", f"{label} title {driver.title!r}")
    driver.find_element(By.ID, "name").send_keys("Ada")
    driver.find_element(By.CSS_SELECTOR, "#greet").click()
    check(driver.find_element(By.ID, "out").text == "Hello, Ada!", f"{label} typed into the form and clicked")
    check(driver.find_element(By.XPATH, "//h1").text == "Shop", f"{label} found by XPath")
    try:
        driver.find_element(By.ID, "missing")
        check(False, f"{label} a missing element raises NoSuchElementException")
    except NoSuchElementException:
        check(True, f"{label} a missing element raises NoSuchElementException")

    bridge = driver.execute_async_script("""
        const done = arguments[arguments.length - 1];
        hybrid.ready.then(() => hybrid.call('device', 'info', {}))
          .then((info) => done({ ok: true, platform: info.platform }), (error) => done({ ok: false, error: String(error) }));""")
    check(bridge.get("ok") is True and bool(bridge.get("platform")), f"{label} a bridge result through execute_async_script: {bridge}")
    heading = driver.execute_script("return document.getElementById(arguments[0])", "heading")
    check(heading.text == "Shop", f"{label} an element returned by execute_script")

    driver.find_element(By.ID, "alert").click()
    alert = WebDriverWait(driver, 5).until(EC.alert_is_present())
    check(alert.text == "hello from the page", f"{label} alert text {alert.text!r}")
    alert.accept()
    check(driver.find_element(By.ID, "answer").text == "alert closed", f"{label} alert accepted")
    driver.find_element(By.ID, "confirm").click()
    WebDriverWait(driver, 5).until(EC.alert_is_present()).dismiss()
    check(driver.find_element(By.ID, "answer").text == "refused", f"{label} confirm dismissed → false")

    driver.switch_to.frame(driver.find_element(By.ID, "frame"))
    driver.find_element(By.ID, "inner").click()
    check(driver.find_element(By.ID, "state").text == "clicked", f"{label} clicked inside the iframe")
    check(driver.execute_script("return document.title") == "Frame", f"{label} execute_script runs in the frame")
    driver.switch_to.default_content()
    check(driver.find_element(By.ID, "heading").is_displayed(), f"{label} back in the top document")

    width, height = png_size(driver.get_screenshot_as_png())
    check(width > 0 and height > 0, f"{label} page screenshot {width}x{height}")
    element_png = driver.find_element(By.ID, "greet").screenshot_as_png
    ew, eh = png_size(element_png)
    check(0 < ew < width and 0 < eh < height, f"{label} element screenshot {ew}x{eh}")

    if page == "network":
        driver.get(f"{network_origin}/set-cookie")
        names = {c["name"] for c in driver.get_cookies()}
        check("served" in names, f"{label} a Set-Cookie of the server in get_cookies: {sorted(names)}")
        driver.add_cookie({"name": "wd", "value": "42"})
        check((driver.get_cookie("wd") or {}).get("value") == "42", f"{label} add_cookie then get_cookie")
        driver.get(f"{network_origin}/echo-cookie")
        sent = driver.find_element(By.ID, "cookie").text
        check("wd=42" in sent and "served=yes" in sent, f"{label} the next request carries the added cookie: {sent!r}")
        driver.delete_cookie("wd")
        check(driver.get_cookie("wd") is None, f"{label} delete_cookie")
        # A page cannot start automation: its request to the endpoint (even with the token) is refused.
        attempt = driver.execute_async_script("""
            const done = arguments[arguments.length - 1];
            fetch(arguments[0] + '/session', { method: 'POST', body: '{"capabilities":{}}' })
              .then((r) => done('status ' + r.status), (e) => done('failed: ' + e));""", endpoint)
        sessions = json.load(urllib.request.urlopen(f"{endpoint}/status", timeout=10))["value"]["message"]
        check(not attempt.startswith("status 200") and sessions.endswith(" 1 session(s)"),
              f"{label} a page's POST to the endpoint makes no session ({attempt}; {sessions})")
        driver.back()
        driver.back()

    kept = driver.find_element(By.ID, "heading")
    driver.find_element(By.LINK_TEXT, "Second page").click()
    WebDriverWait(driver, 10).until(EC.title_is("Second"))
    check(driver.find_element(By.ID, "where").text == "second page", f"{label} followed a link by its text")
    try:
        _ = kept.text
        check(False, f"{label} an element of the previous page is stale")
    except StaleElementReferenceException:
        check(True, f"{label} an element of the previous page is stale")
    driver.back()
    WebDriverWait(driver, 10).until(EC.title_is("WebDriver home"))
    check(driver.current_url.endswith("index.html"), f"{label} back: {driver.current_url}")


def suite(args, work, store, origin):
    process, endpoint = start_endpoint(args.hybrid, args.engine, work, store)
    try:
        refusals(endpoint)
        for page, hybrid in (("network", {"url": f"{origin}/index.html", "allow": [origin]}), ("package", {"package": "shop"})):
            driver = webdriver.Remote(command_executor=endpoint, options=options(**hybrid))
            check(driver.capabilities.get("hybrid:engine") in ("webkit", "blink"), f"[{args.engine} {page}] session on {driver.capabilities.get('hybrid:engine')}")
            try:
                scenario(driver, args.engine, page, origin, endpoint)
            finally:
                driver.quit()
        check(http_status(f"{endpoint}/session/nope/url") == 404, f"[{args.engine}] an ended or unknown session: invalid session id (404)")
    finally:
        stop(process)


def bench(args, work, store, origin, rounds=15):
    """Session start and find + click on the same page: `hybrid webdriver` against each engine's own
    browser driver, in one run — chromedriver on the same Chromium (Blink), WebKitWebDriver on
    MiniBrowser (WebKitGTK, when webkit2gtk-driver is installed). Prints one JSON line."""
    page = f"{origin}/index.html"

    def measure(make):
        start = time.perf_counter()
        driver = make()
        session = (time.perf_counter() - start) * 1000
        try:
            driver.get(page)
            times = []
            for _ in range(rounds):
                start = time.perf_counter()
                driver.find_element(By.ID, "greet").click()
                times.append((time.perf_counter() - start) * 1000)
        finally:
            driver.quit()
        return session, statistics.median(times)

    def hybrid(engine):
        process, endpoint = start_endpoint(args.hybrid, engine, work, store)
        try:
            make = lambda: webdriver.Remote(command_executor=endpoint, options=options(allow=[origin]))
            cold, click = measure(make)   # the first session starts the engine (Chromium, or WebKitGTK's processes)
            warm, _ = measure(make)
        finally:
            stop(process)
        return cold, warm, click

    def chromedriver():
        from selenium.webdriver.chrome.service import Service
        chrome = webdriver.ChromeOptions()
        chrome.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
        for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run"):
            chrome.add_argument(flag)
        return webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=chrome)

    def webkitwebdriver():
        from selenium.webdriver.webkitgtk.options import Options
        from selenium.webdriver.webkitgtk.service import Service
        minibrowser = Options()
        minibrowser.binary_location = MINIBROWSER
        minibrowser.add_argument("--automation")
        return webdriver.WebKitGTK(options=minibrowser, service=Service(shutil.which("WebKitWebDriver")))

    figures = {}
    pairs = [("blink", chromedriver, "chromedriver")]
    if shutil.which("WebKitWebDriver") and os.path.exists(MINIBROWSER):
        pairs.append(("webkit", webkitwebdriver, "webkitwebdriver"))
    else:
        print("bench: WebKitGTK pair skipped (webkit2gtk-driver and its MiniBrowser are not installed)", flush=True)
    for engine, native, name in pairs:
        cold, warm, click = hybrid(engine)
        native_session, native_click = measure(native)
        figures.update({
            f"{engine}_hybrid_session_cold_ms": round(cold, 1), f"{engine}_hybrid_session_warm_ms": round(warm, 1),
            f"{engine}_{name}_session_ms": round(native_session, 1),
            f"{engine}_session_cold_ratio": round(cold / native_session, 2),
            f"{engine}_session_warm_ratio": round(warm / native_session, 2),
            f"{engine}_hybrid_find_click_ms": round(click, 2), f"{engine}_{name}_find_click_ms": round(native_click, 2),
            f"{engine}_find_click_ratio": round(click / native_click, 2),
        })
    print(json.dumps(figures, sort_keys=True))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--hybrid", required=True)
    parser.add_argument("--engine", choices=["webkit", "blink"], default="webkit")
    parser.add_argument("--bench", action="store_true")
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="hybrid-webdriver-")
    try:
        server, origin = start_site(f"{work}/repo")
        store = publish_package(args.hybrid, work, origin)
        if args.bench:
            bench(args, work, store, origin)
        else:
            suite(args, work, store, origin)
        server.shutdown()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    what = "bench" if args.bench else f"suite ({args.engine})"
    if failures:
        print(f"selenium {what}: {len(failures)} failed", flush=True)
        return 1
    print(f"selenium {what}: all passed", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
