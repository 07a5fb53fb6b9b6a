import Foundation
import HybridCore
import HybridServer
import HybridFixtures
import Testing

/// What a page observes of a proxied request equals what it observes of the same request made
/// by the engine itself: each test runs one script against the engine's own networking and then
/// through the proxy (``ProxyOracle``) and expects the same result, on both engines.
@Suite("Proxy fidelity", .serialized)
@MainActor
struct ProxyFidelityTests {
    /// Page helpers: `xhr(method, url, {body, type, setup, headers})` resolves at loadend with
    /// the XHR and an event log (`name:readyState:status`); a run of LOADING readystatechange and
    /// progress events is one `loading` entry: how many arrive depends on timing, and which
    /// readyState the last progress sees is engine detail (WebKit flushes it in DONE).
    static let helpers = """
        const same = (s) => String(s).replace(new RegExp('((?:/|%2F)[a-z]+(?:/|%2F))' + via, 'g'), '$1VIA');
        const xhr = (method, url, o = {}) => new Promise((resolve) => {
          const x = new XMLHttpRequest();
          const log = [];
          const note = (entry) => { if (log[log.length - 1] !== entry) log.push(entry); };
          const rec = (prefix) => (e) => note(prefix + e.type + ':' + x.readyState + ':' + x.status);
          ['readystatechange', 'loadstart', 'progress', 'abort', 'error', 'load', 'timeout'].forEach((t) => x.addEventListener(t, rec('')));
          if (o.upload) ['loadstart', 'progress', 'abort', 'error', 'load', 'timeout', 'loadend'].forEach((t) => x.upload.addEventListener(t, rec('upload.')));
          const collapse = (entries) => entries.reduce((out, e) => {
            const loading = /^(readystatechange:3|progress:[34]):/.test(e) ? 'loading' : e;
            if (out[out.length - 1] !== loading) out.push(loading);
            return out;
          }, []);
          x.addEventListener('loadend', (e) => { rec('')(e); setTimeout(() => resolve({ x, log: collapse(log) }), 0); });
          x.open(method, url);
          if (o.type) x.responseType = o.type;
          for (const [n, v] of Object.entries(o.headers || {})) x.setRequestHeader(n, v);
          if (o.setup) o.setup(x, log);
          x.send(o.body === undefined ? null : o.body);
          if (o.after) o.after(x, log);
        });
        """

    // MARK: 2. Streaming

    /// `fetch` resolves when the headers arrive, and `response.body` delivers the body as it
    /// comes (a server sending 500 bytes every 250 ms), not all at once at the end.
    @Test(arguments: EngineKind.allCases)
    func fetchResolvesAtTheHeadersAndStreamsTheBody(_ kind: EngineKind) async throws {
        let oracle = try ProxyOracle(kind)
        defer { oracle.close() }
        try await oracle.rig.open()
        let (engine, proxy) = try await oracle.run("""
            const t0 = performance.now();
            const r = await fetch(`${base}/trickle/${via}?bytes=2000&chunk=500&interval=250`);
            const head = performance.now() - t0;
            const reader = r.body.getReader();
            const sizes = [];
            let first = 0;
            for (;;) {
              const { done, value } = await reader.read();
              if (done) break;
              if (!sizes.length) first = performance.now() - t0;
              sizes.push(value.length);
            }
            const end = performance.now() - t0;
            return { headEarly: head < end - 400, firstChunkEarly: first < end - 300, pieces: sizes.length >= 3,
                     total: sizes.reduce((a, b) => a + b, 0), stream: r.body instanceof ReadableStream, used: r.bodyUsed,
                     length: r.headers.get('content-length') };
            """)
        #expect(engine == proxy)
        #expect(proxy["headEarly"] == true)
        #expect(proxy["pieces"] == true)
    }

    /// XHR goes through LOADING while the body arrives: partial responseText, progress events
    /// with the bytes so far and the Content-Length; `response` of an arraybuffer is null until DONE.
    /// (500 bytes every 250 ms: far enough apart that a loaded machine still sees them apart.)
    @Test(arguments: EngineKind.allCases)
    func xhrLoadingDeliversThePartialResponse(_ kind: EngineKind) async throws {
        let oracle = try ProxyOracle(kind)
        defer { oracle.close() }
        try await oracle.rig.open()
        let (engine, proxy) = try await oracle.run("""
            const run = (type) => new Promise((resolve) => {
              const x = new XMLHttpRequest();
              const partial = [], loaded = [];
              let total = 0, computable = false, early = null;
              x.onprogress = (e) => {
                loaded.push(e.loaded); total = e.total; computable = e.lengthComputable;
                if (x.readyState === 3) {
                  if (type === '') partial.push(x.responseText.length);
                  else if (early === null) early = x.response;
                }
              };
              x.onload = () => resolve({ partial: partial.some((n) => n > 0 && n < 2000), progress: loaded.length >= 2,
                                         increasing: loaded.every((n, i) => i === 0 || n >= loaded[i - 1]), last: loaded[loaded.length - 1],
                                         total, computable, early, final: type === '' ? x.responseText.length : x.response.byteLength });
              x.open('GET', `${base}/trickle/${via}?bytes=2000&chunk=500&interval=250`);
              x.responseType = type;
              x.send();
            });
            return { text: await run(''), buffer: await run('arraybuffer') };
            """)
        #expect(engine == proxy)
        #expect(proxy["text"]?["partial"] == true)
    }

    /// Aborting after the headers errors the body with AbortError at once and stops the native
    /// transfer (the app's hook sees it cancelled long before the body could have finished);
    /// cancelling the body's stream stops it too.
    @Test(arguments: EngineKind.allCases)
    func abortAfterTheHeadersStopsTheTransfer(_ kind: EngineKind) async throws {
        let oracle = try ProxyOracle(kind)
        defer { oracle.close() }
        try await oracle.rig.open()
        let (engine, proxy) = try await oracle.run("""
            const slow = `${base}/trickle/${via}?bytes=100000&chunk=1000&interval=100`;
            const c = new AbortController();
            const r = await fetch(slow + '&abort', { signal: c.signal });
            const reader = r.body.getReader();
            await reader.read();
            const t0 = performance.now();
            c.abort();
            let error;
            try { while (!(await reader.read()).done); error = 'done'; } catch (e) { error = e.name; }
            const quick = performance.now() - t0 < 1000;
            const s = await fetch(slow + '&cancel');
            const sr = s.body.getReader();
            await sr.read();
            await sr.cancel();
            return { error, quick };
            """)
        #expect(engine == proxy)
        #expect(proxy["error"] == "AbortError")
        // Both transfers were stopped natively: the body would have taken 10 s.
        try await eventually("both transfers cancelled") {
            oracle.rig.records.value.filter { $0.failure == "cancelled" }.count == 2
        }
        #expect(oracle.rig.records.value.allSatisfy { $0.duration < 5 })
    }

    // MARK: 3. Abort after the response

    /// Aborting after `fetch` resolved errors the body: every body method rejects with the
    /// signal's reason (AbortError by default), a reader mid-stream too; a body read to its end
    /// before the abort stays read.
    @Test(arguments: EngineKind.allCases)
    func abortAfterTheResponseRejectsBodyReads(_ kind: EngineKind) async throws {
        let oracle = try ProxyOracle(kind)
        defer { oracle.close() }
        try await oracle.rig.open()
        let (engine, proxy) = try await oracle.run(Self.helpers + """
            const out = {};
            for (const method of ['text', 'json', 'arrayBuffer', 'blob', 'formData']) {
              const c = new AbortController();
              const r = await fetch(`${base}/echo/${via}?m=${method}`, { signal: c.signal });
              c.abort();
              try { await r[method](); out[method] = 'resolved'; } catch (e) { out[method] = e.name; }
              out[method + 'Used'] = r.bodyUsed;
            }
            {
              const c = new AbortController();
              const r = await fetch(`${base}/trickle/${via}?bytes=4000&chunk=500&interval=100`, { signal: c.signal });
              const reader = r.body.getReader();
              const first = await reader.read();
              c.abort();
              let next;
              try { while (!(await reader.read()).done); next = 'done'; } catch (e) { next = e.name; }
              out.midRead = [first.done, first.value.length > 0, next];
            }
            {
              const c = new AbortController();
              const r = await fetch(`${base}/echo/${via}?reason`, { signal: c.signal });
              c.abort(new RangeError('mine'));
              try { await r.text(); out.reason = 'resolved'; } catch (e) { out.reason = [e.name, e.message]; }
            }
            {
              const c = new AbortController();
              const pending = fetch(`${base}/slow/${via}?ms=2000`, { signal: c.signal });
              c.abort(new RangeError('early'));
              try { await pending; out.beforeResponse = 'resolved'; } catch (e) { out.beforeResponse = [e.name, e.message]; }
              try { await fetch(`${base}/slow/${via}?ms=2000`, { signal: AbortSignal.timeout(100) }); out.timeout = 'resolved'; } catch (e) { out.timeout = e.name; }
            }
            {
              const c = new AbortController();
              const r = await fetch(`${base}/echo/${via}?read`, { signal: c.signal });
              const text = await r.text();
              c.abort();
              out.readBefore = [JSON.parse(text).path.length > 0, r.bodyUsed];
            }
            {
              // An empty body is closed before the abort, so the abort leaves it closed (the
              // standard; web-platform-tests fetch/api/abort, "Stream will not error if body is empty").
              const c = new AbortController();
              const r = await fetch(`${base}/bytes/${via}?n=0`, { signal: c.signal });
              await r.clone().text();
              const reader = r.body.getReader();
              c.abort();
              try { out.emptyBody = (await reader.read()).done ? 'done' : 'chunk'; } catch (e) { out.emptyBody = e.name; }
            }
            {
              const c = new AbortController();
              const r = await fetch(`${base}/echo/${via}?bodyAfter`, { signal: c.signal });
              c.abort();
              try { await r.body.getReader().read(); out.bodyAfterAbort = 'read'; } catch (e) { out.bodyAfterAbort = e.name; }
            }
            {
              // The body stream's own rules: one object, locked by a reader, read through it.
              const r = await fetch(`${base}/echo/${via}?locks`);
              const one = r.body === r.body, unused = r.bodyUsed;
              const reader = r.body.getReader();
              let text, clone;
              try { await r.text(); text = 'resolved'; } catch (e) { text = e.name; }
              try { r.clone(); clone = 'cloned'; } catch (e) { clone = e.name; }
              const first = await reader.read();
              out.locks = [one, unused, text, clone, first.done, first.value.length > 0, r.bodyUsed];
              const s = await fetch(`${base}/echo/${via}?touch`);
              const touched = s.body;
              out.touch = [touched !== null, JSON.parse(await s.text()).path.length > 0, s.bodyUsed];
            }
            {
              const c = new AbortController();
              const r = await fetch(`${base}/echo/${via}?clone`, { signal: c.signal });
              const copy = r.clone();
              c.abort();
              const results = await Promise.allSettled([r.text(), copy.text()]);
              out.clone = results.map((p) => p.status === 'rejected' ? p.reason.name : 'resolved');
            }
            return out;
            """)
        for key in engine.objectValue?.keys.sorted() ?? [] where key != "clone" || kind == .blink {
            #expect(engine[key] == proxy[key], "\(key)")
        }
        #expect(engine["text"] == "AbortError")
        #expect(proxy["emptyBody"] == "done")
        // Blink errors both branches of a clone, as the standard says, and so does the proxy on
        // both engines; WebKit's clone resolves or rejects with a TypeError depending on how much
        // of the body had arrived.
        #expect(proxy["clone"] == ["AbortError", "AbortError"])
    }

    // MARK: 4. XHR abort

    /// `abort()` in HEADERS_RECEIVED, LOADING and DONE: the standard's events (readystatechange
    /// to DONE, abort, loadend — none from DONE) and then readyState 0 and status 0; during an
    /// upload the upload's abort and loadend too; before send() nothing.
    @Test(arguments: EngineKind.allCases)
    func xhrAbortInEveryState(_ kind: EngineKind) async throws {
        let oracle = try ProxyOracle(kind)
        defer { oracle.close() }
        try await oracle.rig.open()
        let (engine, proxy) = try await oracle.run(Self.helpers + """
            const out = {};
            const abortAt = (state) => (x, log) => x.addEventListener('readystatechange', () => {
              if (x.readyState === state && !log.includes('abort()')) { log.push('abort()'); x.abort(); log.push('after:' + x.readyState + ':' + x.status); }
            });
            let r = await xhr('GET', `${base}/echo/${via}?a=2`, { setup: abortAt(2) });
            out.headers = [r.log, r.x.readyState, r.x.status, r.x.getAllResponseHeaders(), same(r.x.responseURL)];
            out.headersText = r.x.responseText;
            r = await xhr('GET', `${base}/trickle/${via}?bytes=3000&chunk=500&interval=80`, { setup: abortAt(3) });
            out.loading = [r.log, r.x.readyState, r.x.status, r.x.responseText, same(r.x.responseURL)];
            r = await xhr('GET', `${base}/echo/${via}?a=4`);
            const log = [];
            r.x.onreadystatechange = () => log.push('rs' + r.x.readyState);
            r.x.onabort = () => log.push('abort');
            r.x.onloadend = () => log.push('loadend');
            const before = [r.x.readyState, r.x.status];
            r.x.abort();
            out.done = [before, log, r.x.readyState, r.x.status, r.x.statusText, r.x.responseText, r.x.getResponseHeader('content-type'), same(r.x.responseURL)];
            r = await xhr('POST', `${base}/slow/${via}?ms=2000`, { upload: true, body: 'x'.repeat(20000), after: (x) => x.abort() });
            out.upload = [r.log, r.x.readyState, r.x.status];
            r = await xhr('POST', `${base}/slow/${via}?ms=2000`, { body: 'payload', after: (x) => x.abort() });
            out.noUploadListeners = [r.log, r.x.readyState];
            const x = new XMLHttpRequest();
            const quiet = [];
            x.onreadystatechange = () => quiet.push('rs' + x.readyState);
            x.open('GET', `${base}/echo/${via}?unsent`);
            x.abort();
            out.opened = [quiet, x.readyState];
            // open() while loading ends the request without events.
            r = await new Promise((resolve) => {
              const y = new XMLHttpRequest();
              const seen = [];
              y.onreadystatechange = () => {
                seen.push('rs' + y.readyState);
                if (y.readyState === 3 && !seen.includes('reopen')) { seen.push('reopen'); y.open('GET', `${base}/echo/${via}?again`); setTimeout(() => resolve([seen, y.readyState, y.status]), 300); }
              };
              ['abort', 'error', 'load', 'loadend'].forEach((t) => y.addEventListener(t, () => seen.push(t)));
              y.open('GET', `${base}/trickle/${via}?bytes=3000&chunk=500&interval=80`);
              y.send();
            });
            out.reopen = r;
            return out;
            """)
        #expect(engine["headers"] == proxy["headers"])
        #expect(engine["loading"] == proxy["loading"])
        #expect(engine["done"] == proxy["done"])
        #expect(engine["upload"] == proxy["upload"])
        #expect(engine["noUploadListeners"] == proxy["noUploadListeners"])
        #expect(engine["opened"] == proxy["opened"])
        #expect(engine["reopen"] == proxy["reopen"])
        #expect(engine["upload"]?.arrayValue?.first?.arrayValue?.count == 8)
        // After abort() in HEADERS_RECEIVED the standard's responseText is empty, and the proxy's
        // is; WebKit's own sometimes holds the body that was already on its way (a race in
        // WebKit's XMLHttpRequest, which does not clear its buffer on abort).
        #expect(proxy["headersText"] == "")
        if kind == .blink { #expect(engine["headersText"] == "") }
    }

    /// A timeout set, or changed, after send() counts from send() on Blink (the standard); WebKit
    /// keeps the one it had at send().
    @Test(arguments: EngineKind.allCases)
    func xhrTimeoutSetAfterSend(_ kind: EngineKind) async throws {
        let oracle = try ProxyOracle(kind)
        defer { oracle.close() }
        try await oracle.rig.open()
        let (engine, proxy) = try await oracle.run(Self.helpers + """
            const late = await xhr('GET', `${base}/slow/${via}?ms=1500`, { after: (x) => { x.timeout = 200; } });
            const cleared = await xhr('GET', `${base}/slow/${via}?ms=400`, { after: (x) => { x.timeout = 100; x.timeout = 0; } });
            return { late: [late.log, late.x.status], cleared: [cleared.log, cleared.x.responseText] };
            """)
        #expect(engine == proxy)
        #expect(engine["late"]?.arrayValue?.first?.arrayValue?.contains("timeout:4:0") == (kind == .blink))
    }

    // MARK: 5. Headers

    /// Repeated response headers, names differing in case, an empty value; getAllResponseHeaders
    /// lower-cased, sorted and combined; `Headers` iteration; `Set-Cookie` hidden.
    @Test(arguments: EngineKind.allCases)
    func responseHeadersReadAsTheEngineReadsThem(_ kind: EngineKind) async throws {
        let oracle = try ProxyOracle(kind)
        defer { oracle.close() }
        try await oracle.rig.open()
        let query = "X-Foo-Test=1&x-FOO-test=2,%203&HEYA=&X-Dup=a&X-Dup=b&Zeta=z&Alpha=a&Set-Cookie=c%3D1&Access-Control-Expose-Headers=x"
        let (engine, proxy) = try await oracle.run(Self.helpers + """
            const drop = (text) => text.split('\\r\\n').filter((line) => !/^(date|server|content-length):/.test(line)).join('\\r\\n');
            const r = await xhr('GET', `${base}/headers/${via}?${query}`);
            const x = r.x;
            const f = await fetch(`${base}/headers/${via}?${query}`);
            return {
              all: drop(x.getAllResponseHeaders()),
              foo: x.getResponseHeader('X-FOO-TEST'), heya: x.getResponseHeader('heya'), dup: x.getResponseHeader('x-dup'),
              missing: x.getResponseHeader('nope'), cookie: x.getResponseHeader('set-cookie'),
              fetch: [...f.headers].filter(([n]) => !['date', 'server', 'content-length'].includes(n)),
              fetchFoo: f.headers.get('x-foo-test'), fetchHeya: f.headers.get('HEYA'),
            };
            """, ["query": .string(query)])
        #expect(engine == proxy)
        #expect(engine["foo"] == "1, 2, 3")
        #expect(engine["heya"] == "")
    }

    /// A header whose names differ only in case, without an `X-` prefix (Foundation on Linux kept
    /// one of the two values; the proxy now reads the raw header lines): `fetch`'s `Headers`, and
    /// XHR's `getResponseHeader` and `getAllResponseHeaders`, read every value in order, as the
    /// engine does.
    @Test(arguments: EngineKind.allCases)
    func caseVariantHeadersWithoutXPrefix(_ kind: EngineKind) async throws {
        let oracle = try ProxyOracle(kind)
        defer { oracle.close() }
        try await oracle.rig.open()
        let (engine, proxy) = try await oracle.run(Self.helpers + """
            const f = await fetch(`${base}/headers/${via}?foo-TEST=1&FOO-test=2,%203&HEYA=`);
            const r = await xhr('GET', `${base}/headers/${via}?foo-TEST=1&FOO-test=2,%203&HEYA=`);
            const line = (name) => r.x.getAllResponseHeaders().split('\\r\\n').find((l) => l.startsWith(name + ':'));
            return { fetch: f.headers.get('foo-test'), fetchHeya: f.headers.get('heya'), xhr: r.x.getResponseHeader('Foo-Test'),
                     xhrHeya: r.x.getResponseHeader('heya'), all: line('foo-test'), allHeya: line('heya') };
            """)
        #expect(engine == proxy)
        #expect(engine["fetch"] == "1, 2, 3")
        #expect(engine["xhr"] == "1, 2, 3")
        #expect(engine["all"] == "foo-test: 1, 2, 3")
        #expect(engine["xhrHeya"] == "")
    }

    // MARK: 6. Upload listeners

    /// Upload events fire only when the upload had listeners at send(); listeners added after
    /// send() get none. With listeners: loadstart, progress…, load, loadend, before the response.
    @Test(arguments: EngineKind.allCases)
    func uploadEventsAreDecidedAtSend(_ kind: EngineKind) async throws {
        let oracle = try ProxyOracle(kind)
        defer { oracle.close() }
        try await oracle.rig.open()
        let (engine, proxy) = try await oracle.run(Self.helpers + """
            const out = {};
            let r = await xhr('POST', `${base}/echo/${via}?late`, { body: 'x'.repeat(100000), after: (x, log) => {
              ['loadstart', 'progress', 'load', 'loadend'].forEach((t) => x.upload.addEventListener(t, () => log.push('upload.' + t)));
              x.upload.onload = () => log.push('upload.onload');
            } });
            out.late = r.log;
            r = await xhr('POST', `${base}/echo/${via}?early`, { body: 'x'.repeat(100000), upload: true });
            out.early = r.log.filter((e) => !e.startsWith('upload.progress'));
            r = await xhr('POST', `${base}/echo/${via}?handler`, { body: 'abc', setup: (x, log) => { x.upload.onloadend = (e) => log.push('upload.loadend:' + e.loaded + '/' + e.total); } });
            out.handler = r.log;
            r = await xhr('POST', `${base}/echo/${via}?removed`, { body: 'abc', setup: (x, log) => {
              const f = () => log.push('upload.load');
              x.upload.addEventListener('load', f);
              x.upload.removeEventListener('load', f);
            } });
            out.removed = r.log;
            r = await xhr('GET', `${base}/echo/${via}?get`, { upload: true });
            out.get = r.log;
            return out;
            """)
        #expect(engine == proxy)
    }

    // MARK: 7. MIME types and charsets

    /// responseType blob without a Content-Type is text/xml; overrideMimeType decides the blob's
    /// type and the text's charset; a charset in the response's Content-Type decodes the text;
    /// responseXML only for XML and HTML (HTML with responseType document only).
    @Test(arguments: EngineKind.allCases)
    func mimeTypesAndCharsets(_ kind: EngineKind) async throws {
        let oracle = try ProxyOracle(kind)
        defer { oracle.close() }
        try await oracle.rig.open()
        let (engine, proxy) = try await oracle.run(Self.helpers + """
            const raw = (hex, type) => `${base}/raw/${via}?hex=${hex}` + (type ? '&type=' + encodeURIComponent(type) : '');
            const out = {};
            let r = await xhr('GET', raw('3c612f3e'), { type: 'blob' });
            out.blobNoType = r.x.response.type;
            r = await xhr('GET', raw('3c612f3e', 'text/plain; charset="UTF-8"'), { type: 'blob' });
            out.blobType = r.x.response.type.toLowerCase();
            out.blobTypeCase = r.x.response.type;
            r = await xhr('GET', raw('e9e8'), { type: 'blob', setup: (x) => x.overrideMimeType('text/html;charset=windows-1252') });
            out.blobOverride = r.x.response.type;
            r = await xhr('GET', raw('e9e8'), { type: 'blob', setup: (x) => x.overrideMimeType('bogus') });
            out.blobBogus = r.x.response.type;
            r = await xhr('GET', raw('e9e8', 'text/plain;charset=windows-1252'));
            out.latin = r.x.responseText;
            r = await xhr('GET', raw('e9e8', 'text/plain'), { setup: (x) => x.overrideMimeType('text/plain;charset=windows-1252') });
            out.override = r.x.responseText;
            r = await xhr('GET', raw('efbbbf41c3a9', 'text/plain;charset=windows-1252'));
            out.bom = r.x.responseText;
            r = await xhr('GET', raw('e9e8', 'text/plain'));
            out.invalidUtf8 = r.x.responseText;
            r = await xhr('GET', raw('7b2261223a317d', 'application/json;charset=windows-1252'), { type: 'json' });
            out.json = r.x.response;
            const f = await fetch(raw('e9e8', 'text/plain;charset=windows-1252'));
            out.fetchText = await f.text();
            const g = await fetch(raw('e9', 'text/html;charset=windows-1252'));
            out.fetchBlob = (await g.blob()).type;
            r = await xhr('GET', raw('3c613e623c2f613e', 'application/xml'));
            out.xml = [r.x.responseXML && r.x.responseXML.documentElement.nodeName, r.x.responseText];
            r = await xhr('GET', raw('3c703e683c2f703e', 'text/html'));
            out.htmlEmptyType = r.x.responseXML;
            r = await xhr('GET', raw('3c703e683c2f703e', 'text/html'), { type: 'document' });
            out.htmlDocument = r.x.response && r.x.response.body.textContent;
            r = await xhr('GET', raw('7b7d', 'application/json'));
            out.jsonXML = r.x.responseXML;
            r = await xhr('GET', raw('3c613e', 'text/xml'));
            out.badXML = r.x.responseXML;
            return out;
            """)
        for key in engine.objectValue?.keys.sorted() ?? [] where key != "blobTypeCase" {
            #expect(engine[key] == proxy[key], "\(key)")
        }
        #expect(engine["blobNoType"] == "text/xml")
        // A Blob made by script has its type lower-cased (the File API), so the proxy cannot give
        // WebKit's `charset=UTF-8` its upper case (Blink drops the parameters anyway).
        withKnownIssue("a Blob built by script lower-cases its type", isIntermittent: kind == .blink) {
            #expect(engine["blobTypeCase"] == proxy["blobTypeCase"])
        }
    }

    // MARK: What the server sees

    /// The request headers a server (or a page reading an echo) sees: Origin, Referer by the
    /// referrer policy, Content-Type per body kind (none for bytes), the engine's User-Agent, Fetch
    /// Metadata, Accept, Accept-Language.
    @Test(arguments: EngineKind.allCases)
    func requestHeadersTheServerSees(_ kind: EngineKind) async throws {
        let oracle = try ProxyOracle(kind)
        defer { oracle.close() }
        try await oracle.rig.open()
        let (engine, proxy) = try await oracle.run(Self.helpers + """
            const names = ['origin', 'referer', 'content-type', 'user-agent', 'sec-fetch-dest', 'sec-fetch-mode', 'sec-fetch-site', 'accept', 'accept-language', 'accept-encoding', 'cookie', 'x-page'];
            const pick = (echo) => names.map((n) => { const p = echo.headers.find((h) => h[0].toLowerCase() === n); return p ? same(p[1]) : null; });
            const f = async (url, init) => pick(await (await fetch(url, init)).json());
            const echo = `${base}/echo/${via}`;
            return {
              get: await f(echo + '?get'),
              bytes: await f(echo, { method: 'POST', body: new Uint8Array(10) }),
              text: await f(echo, { method: 'POST', body: 'text' }),
              params: await f(echo, { method: 'POST', body: new URLSearchParams({ a: '1' }) }),
              blob: await f(echo, { method: 'POST', body: new Blob(['b'], { type: 'application/x-thing' }) }),
              put: await f(echo, { method: 'PUT', body: 'x', headers: { 'X-Page': 'p' } }),
              noReferrer: await f(echo + '?nr', { referrerPolicy: 'no-referrer' }),
              originPolicy: await f(echo + '?op', { referrerPolicy: 'origin' }),
              referrer: await f(echo + '?r', { referrer: '/some/where?x=1' }),
              accept: await f(echo + '?a', { headers: { Accept: 'application/json' } }),
              cross: await f(`${cross}/cors/${via}?acao=*`),
              crossPost: await f(`${cross}/cors/${via}?acao=*`, { method: 'POST', body: 'x' }),
              xhr: pick((await xhr('POST', echo + '?xhr', { body: 'x', type: 'json' })).x.response),
              // Forbidden names are ignored, as the engines ignore them.
              forbidden: pick((await xhr('GET', echo + '?forbidden', { type: 'json', headers: { Referer: 'https://evil.example/', Cookie: 'a=1', Origin: 'https://evil.example', 'X-Page': 'p' } })).x.response),
            };
            """)
        for key in engine.objectValue?.keys.sorted() ?? [] {
            #expect(engine[key] == proxy[key], "\(key)")
        }
    }

    /// A compressed response (`Content-Encoding: gzip` or `deflate`, the encodings both engines
    /// name) reaches the page decoded, with its `Content-Encoding` header, as the engine gives it;
    /// the server saw the engine's own `Accept-Encoding` (`requestHeadersTheServerSees`).
    @Test(arguments: EngineKind.allCases)
    func compressedResponsesAreDecoded(_ kind: EngineKind) async throws {
        let oracle = try ProxyOracle(kind)
        defer { oracle.close() }
        // "compressed hello " 20 times, gzip (no timestamp) and zlib-wrapped deflate.
        let gzip: [UInt8] = [31, 139, 8, 0, 0, 0, 0, 0, 2, 3, 75, 206, 207, 45, 40, 74, 45, 46, 78, 77, 81, 200, 72, 205, 201, 201, 87,
                             72, 30, 21, 160, 84, 0, 0, 173, 123, 27, 207, 84, 1, 0, 0]
        let deflate: [UInt8] = [120, 156, 75, 206, 207, 45, 40, 74, 45, 46, 78, 77, 81, 200, 72, 205, 201, 201, 87, 72, 30, 21, 160, 84,
                                0, 0, 80, 183, 130, 181]
        oracle.rig.server.route("/gzip") { _ in
            ServerResponse(status: 200, headers: ["Content-Type": "text/plain", "Content-Encoding": "gzip"], body: Data(gzip))
        }
        oracle.rig.server.route("/deflate") { _ in
            ServerResponse(status: 200, headers: ["Content-Type": "text/plain", "Content-Encoding": "deflate"], body: Data(deflate))
        }
        try await oracle.rig.open()
        let (engine, proxy) = try await oracle.run("""
            const read = async (path) => {
              const r = await fetch(`${base}/${path}/${via}`);
              const text = await r.text();
              return [r.status, r.headers.get('content-encoding'), text.length, text.slice(0, 17)];
            };
            return { gzip: await read('gzip'), deflate: await read('deflate') };
            """)
        #expect(engine["gzip"] == proxy["gzip"])
        #expect(engine["deflate"] == proxy["deflate"])
        #expect(proxy["gzip"]?.arrayValue?[2] == .number(340))
    }

    /// A fetch body given as bytes, text, `URLSearchParams` or a `Blob` is taken at the call, as the
    /// engine takes it (the proxy reads it in the page without the engine's `Request`,
    /// docs/request-proxy.md): bytes changed after `fetch()` returns change nothing sent, a `DataView`
    /// sends its window only, large text, parameters and Blobs stream with the engine's
    /// `Content-Type`, a `GET` or `HEAD` with a body is refused with the engine's error, a detached
    /// buffer is sent as the engine sends it, a resizable one refused as the engine refuses it, and
    /// init members are read through the init's prototype chain.
    @Test(arguments: EngineKind.allCases)
    func fetchTakesItsBodyAtTheCall(_ kind: EngineKind) async throws {
        let oracle = try ProxyOracle(kind)
        defer { oracle.close() }
        try await oracle.rig.open()
        let (engine, proxy) = try await oracle.run("""
            const echo = `${base}/echo/${via}`;
            const sent = async (pending) => {
              const r = await (await pending).json();
              const type = r.headers.find((h) => h[0].toLowerCase() === 'content-type');
              return [r.method, r.bodyLength, r.bodySHA256, type ? type[1] : null];
            };
            const refused = async (init) => {
              try { await fetch(echo + '?refused', init); return 'sent'; } catch (e) { return e.name; }
            };
            const big = new Uint8Array(300000).fill(7);
            const changed = fetch(echo, { method: 'POST', body: big });
            big.fill(9);
            const detached = new ArrayBuffer(8);
            structuredClone(detached, { transfer: [detached] });
            const detachedView = new Uint8Array(new ArrayBuffer(8), 2, 4);
            structuredClone(detachedView.buffer, { transfer: [detachedView.buffer] });
            const backing = new Uint8Array(200000).fill(3);
            const viewed = fetch(echo, { method: 'POST', body: new DataView(backing.buffer, 1000, 150000) });
            backing.fill(4);
            return {
              changed: await sent(changed),
              view: await sent(viewed),
              buffer: await sent(fetch(echo, { method: 'PUT', body: big.buffer })),
              text: await sent(fetch(echo, { method: 'POST', body: 'é'.repeat(100000) })),
              params: await sent(fetch(echo, { method: 'POST', body: new URLSearchParams({ q: 'x&y'.repeat(40000) }) })),
              blob: await sent(fetch(echo, { method: 'POST', body: new Blob([big], { type: 'Application/X-Thing' }) })),
              file: await sent(fetch(echo, { method: 'PUT', body: new File([backing], 'f.bin') })),
              getWithBody: await refused({ method: 'GET', body: new Uint8Array(100000) }),
              getWithBlob: await refused({ method: 'GET', body: new Blob(['x']) }),
              detached: await sent(fetch(echo, { method: 'POST', body: detached })),
              detachedView: await sent(fetch(echo, { method: 'POST', body: detachedView })),
              resizable: await refused({ method: 'POST', body: new ArrayBuffer(8, { maxByteLength: 16 }) }),
              // Members of the init read through its prototype chain, as the engine reads them.
              inherited: await sent(fetch(echo, Object.create({ method: 'PUT', body: 'i'.repeat(70000) }))),
              headWithBody: await refused({ method: 'HEAD', body: 'x'.repeat(100000) }),
            };
            """)
        #expect(engine["changed"] == ["POST", 300000, .string(TestRoutes.sha256Hex(Data(repeating: 7, count: 300000))), .null])
        #expect(engine["view"]?.arrayValue?[2] == .string(TestRoutes.sha256Hex(Data(repeating: 3, count: 150000))))
        #expect(engine["text"]?.arrayValue?[1] == 200000)
        #expect(engine["getWithBody"] == "TypeError")
        #expect(engine["inherited"]?.arrayValue?.first == "PUT")
        #expect(engine["detached"]?.arrayValue?[1] == 0)
        for key in engine.objectValue?.keys.sorted() ?? [] {
            #expect(engine[key] == proxy[key], "\(key)")
        }
    }

    // MARK: 9. Synchronous XHR

    /// A synchronous XHR to a proxied URL throws NotSupportedError at open() with a message that
    /// says what to do: the bridge is asynchronous, and blocking the page's thread on it would
    /// deadlock the engines that answer on that thread (docs/request-proxy.md). The same
    /// synchronous request to an unproxied URL still works.
    @Test(arguments: EngineKind.allCases)
    func synchronousXHRIsRefusedWithAClearError(_ kind: EngineKind) async throws {
        let oracle = try ProxyOracle(kind)
        defer { oracle.close() }
        try await oracle.rig.open()
        let (engine, proxy) = try await oracle.run("""
            const x = new XMLHttpRequest();
            try { x.open('GET', `${base}/echo/${via}?sync`, false); x.send(); return ['sent', x.status]; }
            catch (e) { return [e.name, /asynchronous/.test(e.message), x.readyState]; }
            """, proxied: false)
        #expect(engine == ["sent", 200])
        #expect(proxy == ["NotSupportedError", true, 0])
    }

    // MARK: 1. Response type, URL, redirects

    /// `type` basic (same origin), cors (cross-origin), opaque (no-cors), opaqueredirect
    /// (manual); `url` and `redirected` after a redirect; status, ok, statusText, headers guard.
    @Test(arguments: EngineKind.allCases)
    func fetchResponseTypeURLAndRedirected(_ kind: EngineKind) async throws {
        let oracle = try ProxyOracle(kind)
        defer { oracle.close() }
        try await oracle.rig.open()
        let (engine, proxy) = try await oracle.run(Self.helpers + """
            const describe = async (p) => {
              try {
                const r = await p;
                let guard = 'mutable';
                try { r.headers.set('x-page', '1'); } catch (e) { guard = e.name; }
                const c = r.clone();
                return [r.type, same(r.url), r.redirected, r.status, r.ok, r.statusText, guard, r.body === null, c.type, same(c.url), c.redirected];
              } catch (e) { return e.name; }
            };
            const to = (path) => encodeURIComponent(path);
            return {
              basic: await describe(fetch(`${base}/echo/${via}?t=1#frag`)),
              redirected: await describe(fetch(`${base}/redirect/${via}?to=${to(`/echo/${via}?r=1`)}`)),
              cors: await describe(fetch(`${cross}/cors/${via}?acao=*`)),
              corsRedirect: await describe(fetch(`${base}/redirect/${via}?to=${to(`${cross}/cors/${via}?acao=*`)}`)),
              opaque: await describe(fetch(`${cross}/cors/${via}?x=1`, { mode: 'no-cors' })),
              manual: await describe(fetch(`${base}/redirect/${via}?to=${to(`/echo/${via}`)}`, { redirect: 'manual' })),
              error: await describe(fetch(`${base}/redirect/${via}?to=${to(`/echo/${via}`)}`, { redirect: 'error' })),
              sameOriginMode: await describe(fetch(`${cross}/cors/${via}?acao=*`, { mode: 'same-origin' })),
              status: await describe(fetch(`${base}/echo/${via}?status=404`)),
              head: await describe(fetch(`${base}/echo/${via}?head`, { method: 'HEAD' })),
              noContent: await describe(fetch(`${base}/echo/${via}?status=204`)),
            };
            """)
        for key in engine.objectValue?.keys.sorted() ?? [] {
            #expect(engine[key] == proxy[key], "\(key)")
        }
        #expect(engine["basic"]?.arrayValue?.first == "basic")
        #expect(engine["cors"]?.arrayValue?.first == "cors")
    }

    /// 301, 302, 303, 307 and 308 after GET, POST and PUT, with fetch and XHR: the method, the
    /// body and the body's headers on the last hop, the final URL.
    @Test(arguments: EngineKind.allCases)
    func redirectMethodAndBodyRules(_ kind: EngineKind) async throws {
        let oracle = try ProxyOracle(kind)
        defer { oracle.close() }
        try await oracle.rig.open()
        let (engine, proxy) = try await oracle.run(Self.helpers + """
            const out = {};
            const header = (echo, name) => (echo.headers.find((p) => p[0].toLowerCase() === name) || [])[1] || null;
            for (const status of [301, 302, 303, 307, 308]) {
              for (const method of ['GET', 'POST', 'PUT']) {
                const target = encodeURIComponent(`/echo/${via}?s=${status}`);
                const url = `${base}/redirect/${via}?status=${status}&to=${target}`;
                const body = method === 'GET' ? undefined : 'payload';
                const headers = { 'Content-Type': 'text/plain;charset=UTF-8', 'Content-Language': 'fr', 'X-Keep': 'kept' };
                const r = await fetch(url, { method, body, headers });
                const echo = await r.json();
                const x = await xhr(method, url, { body, headers, type: 'json' });
                const e2 = x.x.response;
                out[status + ' ' + method] = [
                  [echo.method, echo.bodyLength, header(echo, 'content-type'), header(echo, 'content-language'), header(echo, 'x-keep'), r.redirected, same(r.url)],
                  [e2.method, e2.bodyLength, header(e2, 'content-type'), header(e2, 'content-language'), header(e2, 'x-keep'), same(x.x.responseURL)],
                ];
              }
            }
            return out;
            """)
        for key in engine.objectValue?.keys.sorted() ?? [] {
            #expect(engine[key] == proxy[key], "\(key)")
        }
        #expect(engine["302 POST"]?.arrayValue?.first?.arrayValue?.first == "GET")
        #expect(engine["307 POST"]?.arrayValue?.first?.arrayValue?.first == "POST")
    }
}
