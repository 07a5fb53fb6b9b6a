import Foundation
import HybridCore
import HybridServer
import HybridFixtures
import Testing

/// Issue 31: a large proxied response body continues in one byte feed (``BridgeByteFeed``) that the
/// page reads from the bridge's byte channel as it arrives — one read per response instead of one
/// per chunk — on both engines, against a real loopback server that paces its bytes; and what the
/// page can do to a body on its way (abort it, cancel its stream) stops the transfer.
@Suite("Proxy body feeds", .serialized)
@MainActor
struct ProxyBodyFeedTests {
    /// A paced 6 MB body read by `fetch` and by XHR arrives byte-exact, and each response took at most
    /// five entries of the view's byte store (its first MiB in reports of 256 KB, then the feed) where
    /// reports of its chunks would have taken one per chunk (24 of 256 KB).
    @Test(arguments: EngineKind.allCases)
    func aLargeBodyArrivesThroughOneFeed(_ kind: EngineKind) async throws {
        let rig = try ProxyRig(kind)
        defer { rig.close() }
        try await rig.open()
        let size = 6 << 20
        let value = try await rig.js("""
            const hex = async (buffer) => Array.from(new Uint8Array(await crypto.subtle.digest('SHA-256', buffer)))
              .map((b) => b.toString(16).padStart(2, '0')).join('');
            const response = await fetch(url);
            const fetched = await response.arrayBuffer();
            const xhr = await new Promise((resolve, reject) => {
              const x = new XMLHttpRequest();
              x.responseType = 'arraybuffer';
              x.onload = () => resolve(x.response);
              x.onerror = () => reject(new Error('xhr failed'));
              x.open('GET', url);
              x.send();
            });
            return { status: response.status, type: response.headers.get('content-type'),
                     fetched: [fetched.byteLength, await hex(fetched)], xhr: [xhr.byteLength, await hex(xhr)] };
            """, ["url": .string(rig.url("/slow/trickle?bytes=\(size)&chunk=262144&interval=4").absoluteString)])
        let sha = TestRoutes.sha256Hex(TestRoutes.pattern(count: size))
        #expect(value["status"] == 200)
        #expect(value["type"] == "application/octet-stream")
        #expect(value["fetched"] == [.number(Double(size)), .string(sha)])
        #expect(value["xhr"] == [.number(Double(size)), .string(sha)])
        let store = try #require(rig.view.bridge.byteChannel?.store)
        #expect(store.traffic.puts <= 10, "\(store.traffic)")
        #expect(store.traffic.takes == store.traffic.puts, "every feed and chunk was read once: \(store.traffic)")
        #expect(rig.records.value.count == 2)
        #expect(rig.records.value.allSatisfy { $0.responseBodyBytes == size && $0.failure == nil })
    }

    /// A 12 MB `Blob` body by fetch and by XHR arrives byte-exact. Where the channel takes a post as
    /// it arrives (Blink's endpoint) the page posts each body whole to the sink it is offered (one
    /// entry of the store each); on WebKitGTK (a custom scheme: a `Blob` post would crash 2.50) the
    /// body goes in 2 MB slices (an entry each).
    @Test(arguments: EngineKind.allCases)
    func aBlobBodyIsPostedWholeWhereTheChannelTakesIt(_ kind: EngineKind) async throws {
        let (rig, received) = try ProxyStreamedBodyTests.rig(kind)
        defer { rig.close() }
        try await rig.open()
        let size = 12 << 20
        let value = try await rig.js(ProxyStreamedBodyTests.pattern + """
            const blob = new Blob([pattern(size)], { type: 'application/x-blob' });
            const fetched = await (await fetch(sink + '?key=fetch', { method: 'PUT', body: blob })).json();
            const xhr = await new Promise((resolve) => {
              const x = new XMLHttpRequest();
              x.onload = () => resolve(JSON.parse(x.responseText));
              x.onerror = () => resolve({ error: true });
              x.open('POST', sink + '?key=xhr');
              x.send(blob);
            });
            return [fetched, xhr];
            """, ["sink": .string(rig.url("/sink").absoluteString), "size": .number(Double(size))])
        let sha = TestRoutes.sha256Hex(TestRoutes.pattern(count: size))
        for reply in value.arrayValue ?? [] {
            #expect(reply["sha256"] == .string(sha))
            #expect(reply["contentLength"] == .string(String(size)))
            #expect(reply["contentType"] == "application/x-blob")
        }
        #expect(received.value.count == 2)
        let store = try #require(rig.view.bridge.byteChannel?.store)
        if kind == .blink {
            #expect(store.traffic.puts == 2, "one sink per body: \(store.traffic)")
        } else {
            #expect(store.traffic.puts >= 12, "2 MB slices: \(store.traffic)")
        }
    }

    /// Aborting a fetch while its body arrives through a feed, or cancelling the body's stream, stops
    /// the native transfer (the app's hook sees `cancelled`) long before the 24 MB would have arrived (in 4 s),
    /// and the page's read ends as the engine's would.
    @Test(arguments: EngineKind.allCases)
    func abortingOrCancellingTheBodyStopsTheTransfer(_ kind: EngineKind) async throws {
        let rig = try ProxyRig(kind) { $0.maxBodyBytes = 32 << 20 }
        defer { rig.close() }
        try await rig.open()
        let value = try await rig.js("""
            // Reads until 2 MB arrived (past the first MiB, after which the body is in a feed), then
            // stops the body the way `stop` says.
            const readThenStop = async (stop) => {
              const controller = new AbortController();
              const response = await fetch(url, { signal: controller.signal });
              const reader = response.body.getReader();
              let received = 0;
              try {
                while (received < (2 << 20)) {
                  const { value, done } = await reader.read();
                  if (done) return 'ended after ' + received;
                  received += value.length;
                }
                if (stop === 'abort') { controller.abort(); await reader.read(); return 'read after abort'; }
                await reader.cancel();
                return 'cancelled';
              } catch (e) { return e.name; }
            };
            return [await readThenStop('abort'), await readThenStop('cancel')];
            """, ["url": .string(rig.url("/slow/trickle?bytes=\(24 << 20)&chunk=65536&interval=10").absoluteString)])
        #expect(value == ["AbortError", "cancelled"])
        try await eventually("both transfers stopped", timeout: 10) { rig.records.value.count == 2 }
        #expect(rig.records.value.allSatisfy { $0.failure == "cancelled" }, "\(rig.records.value.map { $0.failure ?? "completed" })")
    }
}
