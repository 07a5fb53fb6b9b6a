import Foundation
import HybridCore
import HybridServer
import HybridFixtures
import Testing

/// Issue 18 §1: request bodies that stream. Blob/File/FormData bodies and large ones stay in the
/// page and the native transfer pulls them a slice at a time, on both engines, against a real
/// loopback server that checks every byte it got — and what a hostile page or frame can do to
/// a body that is on its way.
@Suite("Proxy streamed bodies", .serialized)
@MainActor
struct ProxyStreamedBodyTests {
    /// What `/sink` received, one entry per request the server read whole.
    struct Received: Codable, Sendable, Equatable {
        var method: String
        var query: String
        var length: Int
        var sha256: String
        var contentLength: String?
        var contentType: String?
        var transferEncoding: String?
    }

    /// A rig whose server records each whole request to `/sink?key=…` and answers what it got.
    static func rig(_ kind: EngineKind, configure: (inout ProxyPolicy) -> Void = { $0.maxBodyBytes = 64 << 20 })
        throws -> (ProxyRig, Locked<[Received]>) {
        let rig = try ProxyRig(kind, configure: configure)
        let received = Locked<[Received]>([])
        rig.server.route("/sink") { request in
            let entry = Received(method: request.method, query: request.rawQuery ?? "", length: request.body.count,
                                 sha256: TestRoutes.sha256Hex(request.body), contentLength: request.headers["Content-Length"],
                                 contentType: request.headers["Content-Type"], transferEncoding: request.headers["Transfer-Encoding"])
            received.mutate { $0.append(entry) }
            return .json(entry)
        }
        return (rig, received)
    }

    /// The page's bytes: byte i is i % 251, as ``TestRoutes/pattern(count:)``.
    static let pattern = "const pattern = (n) => { const b = new Uint8Array(n); for (let i = 0; i < n; i++) b[i] = i % 251; return b; };"

    /// A 32 MB `ArrayBuffer` by fetch and a 32 MB `Blob` by XHR arrive byte-exact with their
    /// Content-Length and Content-Type (no chunked encoding); the XHR's upload events follow the
    /// bytes sent, in order, ending at the total.
    @Test(arguments: EngineKind.allCases)
    func largeBodiesArriveByteExact(_ kind: EngineKind) async throws {
        let (rig, received) = try Self.rig(kind)
        defer { rig.close() }
        try await rig.open()
        let size = 32 << 20
        let value = try await rig.js(Self.pattern + """
            const bytes = pattern(size);
            const fetched = await (await fetch(sink + '?key=fetch', { method: 'PUT', body: bytes.buffer,
              headers: { 'Content-Type': 'application/x-bytes' } })).json();
            const xhr = await new Promise((resolve) => {
              const x = new XMLHttpRequest();
              const events = [];
              x.upload.onloadstart = (e) => events.push(['loadstart', e.loaded, e.total]);
              x.upload.onprogress = (e) => events.push(['progress', e.loaded, e.total]);
              x.upload.onload = (e) => events.push(['load', e.loaded, e.total]);
              x.upload.onloadend = (e) => events.push(['loadend', e.loaded, e.total]);
              x.onload = () => resolve({ events, reply: JSON.parse(x.responseText) });
              x.onerror = () => resolve({ events, error: true });
              x.open('POST', sink + '?key=xhr');
              x.send(new Blob([bytes], { type: 'application/x-blob' }));
            });
            return { fetched, xhr };
            """, ["sink": .string(rig.url("/sink").absoluteString), "size": .number(Double(size))])
        let sha = TestRoutes.sha256Hex(TestRoutes.pattern(count: size))
        #expect(value["fetched"]?["length"] == .number(Double(size)))
        #expect(value["fetched"]?["sha256"] == .string(sha))
        #expect(value["fetched"]?["contentLength"] == .string(String(size)))
        #expect(value["fetched"]?["contentType"] == "application/x-bytes")
        #expect(value["fetched"]?["transferEncoding"] == nil)
        #expect(value["xhr"]?["reply"]?["sha256"] == .string(sha))
        #expect(value["xhr"]?["reply"]?["contentType"] == "application/x-blob")
        #expect(value["xhr"]?["reply"]?["contentLength"] == .string(String(size)))
        let events = value["xhr"]?["events"]?.arrayValue ?? []
        let names = events.compactMap { $0.arrayValue?.first?.stringValue }
        #expect(names.first == "loadstart")
        #expect(Array(names.suffix(3)) == ["progress", "load", "loadend"])
        let loaded = events.compactMap { $0.arrayValue?[1].numberValue }
        #expect(loaded == loaded.sorted(), "upload progress goes forward: \(loaded)")
        #expect(loaded.last == Double(size))
        #expect(events.dropFirst().allSatisfy { $0.arrayValue?[2].numberValue == Double(size) })
        #expect(received.value.count == 2)
        // The app's hook sees the declared size.
        #expect(rig.records.value.map(\.requestBodyBytes) == [size, size])
        // Where the engine has a byte channel, every slice crossed it as bytes (one POST, taken once);
        // on Blink the Blob body was posted whole to a sink (one entry, taken once).
        let slices = 2 * (size >> 21)   // two bodies in slices of 2 MB (ProxyBodySource.sliceBytes)
        let traffic = rig.view.bridge.byteChannel?.store.traffic ?? (0, 0)
        if kind == .blink {
            #expect(traffic == (slices / 2 + 1, slices / 2 + 1))
        } else if kind.capabilities.contains(.byteChannel) {
            #expect(traffic == (slices, slices))
        } else {
            #expect(rig.view.bridge.byteChannel == nil)
        }
    }

    /// A large binary response reaches the page byte-exact through fetch's stream and XHR; where
    /// the engine has a byte channel its chunks crossed it as bytes (each taken once), else as base64.
    @Test(arguments: EngineKind.allCases)
    func largeResponseBodiesArriveByteExact(_ kind: EngineKind) async throws {
        let (rig, _) = try Self.rig(kind)
        defer { rig.close() }
        try await rig.open()
        let size = 12 << 20
        let value = try await rig.js("""
            const hex = async (buffer) => Array.from(new Uint8Array(await crypto.subtle.digest('SHA-256', buffer)))
              .map((b) => b.toString(16).padStart(2, '0')).join('');
            const response = await fetch(url);
            const reader = response.body.getReader();
            const parts = [];
            let length = 0;
            for (;;) {
              const { done, value } = await reader.read();
              if (done) break;
              parts.push(value);
              length += value.length;
            }
            const whole = new Uint8Array(length);
            let at = 0;
            for (const part of parts) { whole.set(part, at); at += part.length; }
            const xhr = await new Promise((resolve) => {
              const x = new XMLHttpRequest();
              x.responseType = 'arraybuffer';
              x.onload = () => resolve(x.response);
              x.onerror = () => resolve(null);
              x.open('GET', url);
              x.send();
            });
            return { length, fetched: await hex(whole), xhr: xhr ? await hex(xhr) : null, xhrLength: xhr ? xhr.byteLength : -1 };
            """, ["url": .string(rig.url("/bytes?n=\(size)").absoluteString)])
        let sha = TestRoutes.sha256Hex(TestRoutes.pattern(count: size))
        #expect(value["length"] == .number(Double(size)))
        #expect(value["fetched"] == .string(sha))
        #expect(value["xhrLength"] == .number(Double(size)))
        #expect(value["xhr"] == .string(sha))
        #expect(rig.records.value.count == 2)
        if kind.capabilities.contains(.byteChannel) {
            let traffic = rig.view.bridge.byteChannel?.store.traffic ?? (puts: 0, takes: 0)
            #expect(traffic.puts > 0, "the chunks crossed the byte channel")
            #expect(traffic.takes == traffic.puts, "each chunk taken once: \(traffic)")
        }
    }

    /// FormData with a file part streams (a multipart Blob made in the page) and the server parses it.
    @Test(arguments: EngineKind.allCases)
    func formDataWithAFileStreams(_ kind: EngineKind) async throws {
        let (rig, _) = try Self.rig(kind)
        defer { rig.close() }
        try await rig.open()
        let size = 3 << 20
        let value = try await rig.js(Self.pattern + """
            const form = () => { const f = new FormData(); f.append('field', 'v1');
              f.append('file', new File([pattern(size)], 'big.bin', { type: 'application/octet-stream' })); return f; };
            const fetched = await (await fetch(multipart, { method: 'POST', body: form() })).json();
            const xhr = await new Promise((resolve) => {
              const x = new XMLHttpRequest();
              x.onload = () => resolve(JSON.parse(x.responseText));
              x.onerror = () => resolve('error');
              x.open('POST', multipart);
              x.send(form());
            });
            return { fetched, xhr };
            """, ["multipart": .string(rig.url("/multipart").absoluteString), "size": .number(Double(size))])
        let sha = TestRoutes.sha256Hex(TestRoutes.pattern(count: size))
        for name in ["fetched", "xhr"] {
            #expect(value[name]?["fields"]?["field"] == "v1", "\(name)")
            let file = value[name]?["files"]?.arrayValue?.first
            #expect(file?["filename"] == "big.bin", "\(name)")
            #expect(file?["sha256"] == .string(sha), "\(name)")
        }
    }

    /// Empty bodies of every kind that streams when it has bytes (an empty `Blob`, `File`,
    /// `ArrayBuffer`) are sent as no body, by fetch and by XHR, not failed.
    @Test(arguments: EngineKind.allCases)
    func emptyBodiesAreSentAsNoBody(_ kind: EngineKind) async throws {
        let (rig, received) = try Self.rig(kind)
        defer { rig.close() }
        try await rig.open()
        let value = try await rig.js("""
            const bodies = { blob: () => new Blob([]), file: () => new File([], 'empty.bin'), buffer: () => new ArrayBuffer(0) };
            const out = {};
            for (const [name, body] of Object.entries(bodies)) {
              out['fetch-' + name] = await fetch(sink + '?key=fetch-' + name, { method: 'POST', body: body() })
                .then((r) => r.status, (e) => e.code || String(e));
              out['xhr-' + name] = await new Promise((resolve) => {
                const x = new XMLHttpRequest();
                x.onload = () => resolve(x.status);
                x.onerror = () => resolve('error');
                x.open('POST', sink + '?key=xhr-' + name);
                x.send(body());
              });
            }
            return out;
            """, ["sink": .string(rig.url("/sink").absoluteString)])
        for api in ["fetch", "xhr"] {
            for name in ["blob", "file", "buffer"] {
                #expect(value["\(api)-\(name)"] == 200, "\(api) \(name): \(String(describing: value["\(api)-\(name)"]))")
            }
        }
        #expect(received.value.count == 6)
        #expect(received.value.allSatisfy { $0.length == 0 })
    }

    /// 307 and 308 send the streamed body again, pulled from its start; 303 drops it.
    @Test(arguments: EngineKind.allCases)
    func redirectsReplayTheStreamedBody(_ kind: EngineKind) async throws {
        let (rig, received) = try Self.rig(kind)
        defer { rig.close() }
        try await rig.open()
        let size = 3 << 20 | 17
        let redirect = { (status: Int, key: String) in
            rig.url("/redirect?status=\(status)&to=" + "/sink?key=\(key)".addingPercentEncoding(withAllowedCharacters: .alphanumerics)!).absoluteString
        }
        let value = try await rig.js(Self.pattern + """
            const blob = new Blob([pattern(size)]);
            const out = {};
            for (const [name, url] of Object.entries(urls)) {
              out[name] = await (await fetch(url, { method: 'POST', body: blob })).json();
            }
            return out;
            """, ["size": .number(Double(size)),
                  "urls": ["r307": .string(redirect(307, "307")), "r308": .string(redirect(308, "308")), "r303": .string(redirect(303, "303"))]])
        let sha = TestRoutes.sha256Hex(TestRoutes.pattern(count: size))
        for name in ["r307", "r308"] {
            #expect(value[name]?["method"] == "POST", "\(name)")
            #expect(value[name]?["length"] == .number(Double(size)), "\(name)")
            #expect(value[name]?["sha256"] == .string(sha), "\(name)")
        }
        #expect(value["r303"]?["method"] == "GET")
        #expect(value["r303"]?["length"] == 0)
        #expect(received.value.count == 3)
    }

    /// Aborting mid-upload (XHR `abort()`, a fetch's `AbortSignal`) stops the pulls and cancels the
    /// transfer: the page gets the standard's abort events, the server never gets a whole request,
    /// and the app's hook sees `cancelled`. Navigating away mid-upload ends it the same way.
    @Test(arguments: EngineKind.allCases)
    func abortMidUploadStopsThePullsAndTheTransfer(_ kind: EngineKind) async throws {
        let (rig, received) = try Self.rig(kind)
        defer { rig.close() }
        try await rig.open()
        let value = try await rig.js("""
            const big = new Blob([new Uint8Array(16 << 20)]);
            const xhr = await new Promise((resolve) => {
              const x = new XMLHttpRequest();
              const log = [];
              x.upload.onprogress = (e) => { if (e.loaded > 0 && !log.includes('abort()')) { log.push('abort()'); x.abort(); } };
              x.upload.onabort = () => log.push('upload.abort');
              x.upload.onloadend = () => log.push('upload.loadend');
              x.onabort = () => log.push('abort');
              x.onload = () => log.push('load');
              x.onloadend = () => { log.push('loadend'); setTimeout(() => resolve({ log, state: x.readyState }), 0); };
              x.open('POST', sink + '?key=xhr');
              x.send(big);
            });
            return { xhr };
            """, ["sink": .string(rig.url("/sink").absoluteString)])
        #expect(value["xhr"]?["log"] == ["abort()", "upload.abort", "upload.loadend", "abort", "loadend"])
        #expect(value["xhr"]?["state"] == 0)
        try await eventually("the XHR's transfer over") { rig.recordCount == 1 }
        #expect(rig.records.value.first?.failure == "cancelled")

        // A fetch aborted once its upload is under way: the page sees the proxy script read the
        // Blob's second slice (the first was sent), and aborts then; on Blink, where the Blob is
        // posted whole to a sink, once the post has begun (its one slice, an untyped copy).
        let under = kind == .blink ? 1 : 2
        let watchSlices = """
            if (window.slices === undefined) {
              const slice = Blob.prototype.slice;
              Blob.prototype.slice = function () { window.slices++; return slice.apply(this, arguments); };
            }
            window.slices = 0;
            """
        let fetchError = try await rig.js(watchSlices + """
            const controller = new AbortController();
            const body = new Blob([new Uint8Array(16 << 20)]);
            const pending = fetch(sink + '?key=fetch', { method: 'POST', body, signal: controller.signal });
            const until = Date.now() + 30000;
            await new Promise((resolve, reject) => {
              const check = () => window.slices >= under ? resolve() : Date.now() > until ? reject(new Error('no slice read')) : setTimeout(check, 5);
              check();
            });
            controller.abort();
            try { await pending; return 'sent'; } catch (e) { return e.name; }
            """, ["sink": .string(rig.url("/sink").absoluteString), "under": .number(Double(under))])
        #expect(fetchError == "AbortError")
        try await eventually("both transfers over") { rig.records.value.count == 2 }
        #expect(rig.records.value.allSatisfy { $0.failure == "cancelled" }, "\(rig.records.value.map { $0.failure ?? "completed" })")

        // Navigating away mid-upload: the call is cancelled with its document.
        _ = try await rig.js(watchSlices + """
            fetch(sink + '?key=navigate', { method: 'POST', body: new Blob([new Uint8Array(16 << 20)]) }).catch(() => {});
            return true;
            """, ["sink": .string(rig.url("/sink").absoluteString)])
        try await eventually("the upload under way") { try await rig.js("return window.slices >= \(under)") == true }
        try await rig.view.loadAndWait(rig.url("/proxy/page?next"))
        try await eventually("the navigated-away upload over") { rig.records.value.count == 3 }
        // WebKit fails the leaving document's Blob reads as soon as the navigation starts ("The
        // I/O read operation failed."), before `pagehide`: the page script then answers the pull
        // with that error and the request ends as `invalid_body` just before its call is cancelled.
        // Blink ends the leaving document's post to the sink the same way: the body stops short of
        // its size (`invalid_body`), unless the call's cancellation comes first.
        let ended = rig.records.value.last?.failure
        #expect(ended == "cancelled" || ended == "invalid_body", "\(ended ?? "completed")")
        // The server never read a whole request of any of them.
        #expect(received.value.isEmpty, "\(received.value.map(\.query))")
    }

    /// A body over the app's limit fails with `payload_too_large` and nothing is sent: not by the
    /// page script, and not for a page that declares the size itself and skips the script's check.
    @Test(arguments: EngineKind.allCases)
    func overTheLimitNothingIsSent(_ kind: EngineKind) async throws {
        let (rig, received) = try Self.rig(kind) { $0.maxBodyBytes = 4 << 20 }
        defer { rig.close() }
        try await rig.open()
        let value = try await rig.js("""
            const out = {};
            try { await fetch(sink + '?key=fetch', { method: 'POST', body: new Blob([new Uint8Array(5 << 20)]) }); out.fetch = 'sent'; }
            catch (e) { out.fetch = [e.name, e.code]; }
            let pulls = 0;
            try {
              await hybrid.call('proxy', 'request', { url: sink + '?key=direct', method: 'POST', headers: [], bodySize: 5 << 20 },
                { onProgress: (p) => { if (p.phase === 'pull') pulls++; } });
              out.direct = 'sent';
            } catch (e) { out.direct = e.code; }
            out.pulls = pulls;
            return out;
            """, ["sink": .string(rig.url("/sink").absoluteString)])
        #expect(value["fetch"] == ["TypeError", "payload_too_large"])
        #expect(value["direct"] == "payload_too_large")
        #expect(value["pulls"] == 0)
        #expect(received.value.isEmpty)
    }

    /// A page that answers its own pulls wrongly — wrong offset, bad base64, more bytes than asked,
    /// fewer then the end — fails its request with `invalid_body` and the server never gets a
    /// whole (wrong) body; an answer under a forged name is refused and changes nothing.
    @Test(arguments: EngineKind.allCases)
    func malformedOrForgedSlicesNeverReachTheServer(_ kind: EngineKind) async throws {
        let (rig, received) = try Self.rig(kind)
        defer { rig.close() }
        try await rig.open()
        let size = 2 << 20 | 5
        let value = try await rig.js(Self.pattern + """
            const b64 = (bytes) => { let s = ''; for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000)); return btoa(s); };
            const body = pattern(size);
            const send = (key, tamper) => new Promise((resolve) => {
              const sliceErrors = [];
              hybrid.call('proxy', 'request', { url: sink + '?key=' + key, method: 'POST', headers: [], bodySize: size, timeout: 20000 },
                { onProgress: (p) => {
                    if (p.phase !== 'pull') return;
                    const q = p.pull;
                    const honest = { id: q.id, seq: q.seq, offset: q.offset, data: b64(body.subarray(q.offset, q.offset + q.length)) };
                    for (const answer of tamper(q, honest)) hybrid.call('proxy', 'slice', answer).catch((e) => sliceErrors.push(e.code));
                } })
                .then((r) => resolve({ sent: JSON.parse(r.text || atob(r.body)), sliceErrors }), (e) => resolve({ code: e.code, sliceErrors }));
            });
            const last = (q) => q.offset + q.length === size;
            return {
              offset: await send('offset', (q, a) => [last(q) ? { ...a, offset: a.offset - 1 } : a]),
              base64: await send('base64', (q, a) => [last(q) ? { ...a, data: '%%%' } : a]),
              more: await send('more', (q, a) => [last(q) ? { ...a, data: b64(pattern(q.length + 1)) } : a]),
              fewer: await send('fewer', (q, a) => [last(q) ? { ...a, data: b64(body.subarray(q.offset, q.offset + 2)) } : a]),
              forged: await send('forged', (q, a) => [{ ...a, id: 'f'.repeat(32), data: b64(new Uint8Array(q.length)) }, a]),
            };
            """, ["sink": .string(rig.url("/sink").absoluteString), "size": .number(Double(size))])
        for name in ["offset", "base64", "more", "fewer"] {
            #expect(value[name]?["code"] == "invalid_body", "\(name): \(String(describing: value[name]))")
            #expect(value[name]?["sliceErrors"] == ["invalid_body"], "\(name)")
        }
        #expect(value["forged"]?["sent"]?["sha256"] == .string(TestRoutes.sha256Hex(TestRoutes.pattern(count: size))))
        #expect(value["forged"]?["sliceErrors"]?.arrayValue?.allSatisfy { $0 == "invalid_body" } == true)
        #expect(received.value.map(\.query) == ["key=forged"])
    }

    /// A cross-origin iframe cannot reach the bridge to answer (or read) the slices of its parent's
    /// upload; the parent's body arrives byte-exact while it tries.
    @Test(arguments: EngineKind.allCases)
    func aForeignFrameCannotAnswerSlices(_ kind: EngineKind) async throws {
        let (rig, _) = try Self.rig(kind)
        defer { rig.close() }
        rig.server.route("/proxy/frame") { _ in
            .html("""
                <!doctype html><script>
                const tries = {};
                try { tries.parent = typeof window.parent.hybrid; } catch (e) { tries.parent = e.name; }
                tries.own = typeof window.hybrid;
                try { tries.call = typeof window.parent.hybrid.call('proxy', 'slice', { id: 'x', seq: 0, offset: 0, data: '' }); } catch (e) { tries.call = e.name; }
                parent.postMessage(JSON.stringify(tries), '*');
                </script>
                """)
        }
        try await rig.open()
        let size = 3 << 20
        let value = try await rig.js(Self.pattern + """
            const tried = new Promise((resolve) => addEventListener('message', (e) => resolve(JSON.parse(e.data)), { once: true }));
            const upload = fetch(sink + '?key=parent', { method: 'POST', body: new Blob([pattern(size)]) }).then((r) => r.json());
            const frame = document.createElement('iframe');
            frame.src = foreign;
            document.body.appendChild(frame);
            return { tries: await tried, sent: await upload };
            """, ["sink": .string(rig.url("/sink").absoluteString), "size": .number(Double(size)),
                  "foreign": .string(rig.url("/proxy/frame", host: "localhost").absoluteString)])
        #expect(value["tries"]?["parent"] == "SecurityError")
        #expect(value["tries"]?["own"] == "undefined")
        #expect(value["tries"]?["call"] == "SecurityError")
        #expect(value["sent"]?["sha256"] == .string(TestRoutes.sha256Hex(TestRoutes.pattern(count: size))))
    }
}
