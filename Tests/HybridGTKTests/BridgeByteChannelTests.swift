import Foundation
import HybridCore
import HybridFixtures
import Testing

/// Bytes test actions: a digest of what arrived (so a multi-megabyte param is checked byte by
/// byte without sending it back), bytes made natively, and `Data` fields.
struct ByteChannelModule: BridgeModule {
    struct Upload: Codable, Sendable {
        var bytes: BridgeBytes
    }

    struct Fields: Codable, Sendable {
        var data: Data
    }

    let name = "bytes"
    var allowedOrigins: [OriginPattern]

    /// What the page computes too: the size and a 32-bit rolling hash.
    static func digest(_ data: Data) -> JSONValue {
        var hash: UInt32 = 0
        for byte in data { hash = hash &* 31 &+ UInt32(byte) }
        return ["size": .number(Double(data.count)), "hash": .number(Double(hash))]
    }

    var actions: [BridgeAction] {
        [
            Action("digest") { (upload: Upload, _) in Self.digest(upload.bytes.data) },
            Action("digestData") { (fields: Fields, _) in Self.digest(fields.data) },
            Action("make") { (count: Int, _) in BridgeBytes(Data((0..<count).map { UInt8(truncatingIfNeeded: $0 % 251) })) },
            Action("echo") { (upload: Upload, _) in upload.bytes },
            // `count` pattern bytes written to a feed after the reply names it, 64 KB a write.
            Action("stream") { (count: Int, ctx) in
                guard let feed = ctx.openByteFeed() else { return ["feed": JSONValue.null] as JSONValue }
                Task.detached {
                    let bytes = Data((0..<count).map { UInt8(truncatingIfNeeded: $0 % 251) })
                    for start in stride(from: 0, to: count, by: 65_536) where feed.isOpen {
                        feed.write(bytes[start..<min(start + 65_536, count)])
                        try? await Task.sleep(for: .milliseconds(1))
                    }
                    feed.finish()
                }
                return ["feed": .object(["$feed": .string(feed.token)])] as JSONValue
            },
            Action("progressBytes") { (count: Int, ctx) in
                await ctx.progress(BridgeBytes(Data(repeating: 1, count: count)))
                await ctx.progress("after")
                return "done"
            },
        ]
    }
}

/// The byte channel (docs/bridge.md, "Bytes without base64"): on WebKitGTK large byte values cross
/// as custom-scheme bodies, on Blink as bodies to the container's loopback endpoint, with the same
/// page code.
@Suite("Bridge byte channel", .serialized)
@MainActor
struct BridgeByteChannelTests {
    static let pages = [
        "index.html": "<!doctype html><title>app</title><p>app</p>",
        "next.html": "<!doctype html><title>next</title>",
    ]

    private func rig(_ kind: EngineKind, pages: [String: String] = Self.pages, limits: BridgeRouter.Limits = .init()) throws -> BridgeRig {
        try BridgeRig(kind, pages: pages, modules: [RigModule(kind), ByteChannelModule(allowedOrigins: [kind.appOrigin])],
                      limits: limits)
    }

    /// A rig with `index.html` open and its bridge ready.
    private func opened(_ kind: EngineKind, limits: BridgeRouter.Limits = .init()) async throws -> BridgeRig {
        let rig = try rig(kind, limits: limits)
        do {
            try await rig.open("index.html")
        } catch {
            rig.close()
            throw error
        }
        return rig
    }

    static let helpers = """
        const hash = (u8) => { let h = 0; for (let i = 0; i < u8.length; i++) h = (Math.imul(h, 31) + u8[i]) >>> 0; return h; };
        const pattern = (n, seed) => { const u8 = new Uint8Array(n); for (let i = 0; i < n; i++) u8[i] = (i * 7 + seed) & 255; return u8; };

        """

    /// A module's byte feed (``BridgeByteFeed``) named in its reply reaches the page as a
    /// `ReadableStream` of every byte, written after the reply, read once.
    @Test(arguments: EngineKind.allCases)
    func aModulesFeedIsAStreamInThePage(_ kind: EngineKind) async throws {
        let rig = try await opened(kind)
        defer { rig.close() }
        let result = try await rig.page("""
            await hybrid.ready;
            const reply = await hybrid.call('bytes', 'stream', 1 << 20);
            const bytes = new Uint8Array(await new Response(reply.feed).arrayBuffer());
            let same = bytes.length === 1 << 20;
            for (let i = 0; same && i < bytes.length; i++) same = bytes[i] === i % 251;
            return { stream: reply.feed instanceof ReadableStream, same };
            """)
        #expect(result["stream"] == true)
        #expect(result["same"] == true)
    }

    /// A 6 MB `Uint8Array`, an `ArrayBuffer`, a `DataView` over part of a buffer and a `Blob` each
    /// arrive byte-exact as `BridgeBytes` (and `Data`); a `BridgeBytes` reply of 6 MB arrives as a
    /// byte-exact `Uint8Array`, on both engines, with the same page code.
    @Test(arguments: EngineKind.allCases)
    func largeBytesCrossByteExactBothWays(_ kind: EngineKind) async throws {
        let rig = try await opened(kind)
        defer { rig.close() }
        let result = try await rig.page(Self.helpers + """
            await hybrid.ready;
            const n = 6 << 20, u8 = pattern(n, 1), buffer = pattern(n, 2).buffer, whole = pattern(n + 100, 3);
            const view = new DataView(whole.buffer, 50, n), blob = new Blob([pattern(n, 4)]);
            const sent = [u8, new Uint8Array(buffer), whole.subarray(50, 50 + n), await blob.arrayBuffer().then((b) => new Uint8Array(b))];
            const got = [
              await hybrid.call('bytes', 'digest', { bytes: u8 }),
              await hybrid.call('bytes', 'digest', { bytes: buffer }),
              await hybrid.call('bytes', 'digest', { bytes: view }),
              await hybrid.call('bytes', 'digestData', { data: blob }),
            ];
            const made = await hybrid.call('bytes', 'make', n);
            let same = made instanceof Uint8Array && made.length === n;
            for (let i = 0; same && i < n; i++) same = made[i] === i % 251;
            return { ok: got.map((d, i) => d.size === n && d.hash === hash(sent[i])), same, binary: hybrid.capabilities.binary };
            """)
        #expect(result["ok"] == [true, true, true, true])
        #expect(result["same"] == true)
        let channel = kind.capabilities.contains(.byteChannel)
        #expect(result["binary"] == (channel ? "channel" : "base64"))
        #expect((rig.host.byteChannel != nil) == channel)
        #expect(rig.host.byteChannel?.store.count ?? 0 == 0, "every token was taken")
    }

    /// A page whose Content-Security-Policy keeps `hybrid-bytes:` out of `connect-src` cannot reach
    /// the channel: its large params go inline and arrive byte-exact (a `Blob` that was to be
    /// posted unread is read; the channel is not tried again); bytes it would have to fetch fail their call with `internal` rather than arriving
    /// short or not at all, a progress report's as a reply's.
    @Test(arguments: EngineKind.allCases)
    func aPageThatCannotReachTheChannelStillSendsItsBytes(_ kind: EngineKind) async throws {
        var pages = Self.pages
        pages["strict.html"] = "<!doctype html><meta http-equiv=\"Content-Security-Policy\" content=\"connect-src 'self'\"><title>strict</title>"
        let rig = try rig(kind, pages: pages)
        defer { rig.close() }
        try await rig.open("strict.html")
        let result = try await rig.page(Self.helpers + """
            await hybrid.ready;
            const n = 1 << 20, u8 = pattern(n, 5);
            // A Blob first: where the channel is a loopback endpoint it is posted unread, and when
            // that post is refused it must be read and go inline.
            const first = await hybrid.call('bytes', 'digest', { bytes: new Blob([u8]) });
            const second = await hybrid.call('bytes', 'digest', { bytes: u8 });
            const made = await hybrid.call('bytes', 'make', n).then((b) => b.length, (e) => e.code);
            const progressed = await hybrid.call('bytes', 'progressBytes', n, { onProgress: () => {} }).then((v) => v, (e) => e.code);
            return { ok: [first, second].map((d) => d.size === n && d.hash === hash(u8)), made, progressed };
            """)
        #expect(result["ok"] == [true, true])
        if kind.capabilities.contains(.byteChannel) {
            #expect(result["made"] == "internal")
            #expect(result["progressed"] == "internal")
            // Only the app's own puts: the page's posts never arrived.
            #expect(rig.host.byteChannel?.store.traffic.puts == 2)
        } else {
            #expect(result["made"] == .number(Double(1 << 20)))
            #expect(result["progressed"] == "done")
        }
    }

    /// Small values keep travelling inline as `$bytes` (no request); values from the threshold on
    /// take the channel where there is one: one POST per param, one GET per reply.
    @Test(arguments: EngineKind.allCases)
    func onlyLargeValuesTakeTheChannel(_ kind: EngineKind) async throws {
        let rig = try await opened(kind)
        defer { rig.close() }
        let traffic = { rig.host.byteChannel?.store.traffic ?? (0, 0) }
        let small = try await rig.page(Self.helpers + """
            const small = await hybrid.call('bytes', 'echo', { bytes: pattern(1000, 5) });
            return small.length === 1000 && hash(small) === hash(pattern(1000, 5));
            """)
        #expect(small == true)
        #expect(traffic() == (0, 0), "small values stay inline")
        let large = try await rig.page(Self.helpers + """
            const large = await hybrid.call('bytes', 'echo', { bytes: pattern(256 << 10, 6) });
            return large.length === 256 << 10 && hash(large) === hash(pattern(256 << 10, 6));
            """)
        #expect(large == true)
        // The param posted and taken by the call, the reply put and fetched by the page.
        let expected = kind.capabilities.contains(.byteChannel) ? 2 : 0
        #expect(traffic() == (expected, expected))
    }

    /// Large bytes in progress reports and events arrive as `Uint8Array`s, and what follows them
    /// waits: progress stays in order and before the reply.
    @Test(arguments: EngineKind.allCases)
    func progressAndEventsCarryLargeBytesInOrder(_ kind: EngineKind) async throws {
        let rig = try await opened(kind)
        defer { rig.close() }
        let seen = try await rig.page("""
            const seen = [];
            const label = (v) => v instanceof Uint8Array ? 'bytes:' + v.length + ':' + v[v.length - 1] : v;
            seen.push(await hybrid.call('bytes', 'progressBytes', 300000, { onProgress: (p) => seen.push(label(p)) }));
            window.event = new Promise((resolve) => hybrid.on('blob', (v) => resolve(label(v))));
            return seen;
            """)
        #expect(seen == ["bytes:300000:1", "after", "done"])
        try rig.host.emit("blob", BridgeBytes(Data(repeating: 3, count: 200_000)))
        #expect(try await rig.page("return await window.event;") == "bytes:200000:3")
        #expect(rig.host.byteChannel?.store.count ?? 0 == 0)
        if kind.capabilities.contains(.byteChannel) { #expect(rig.host.byteChannel?.store.traffic.puts == 2) }
    }

    /// Hostile: a `$blob` the page makes up is `bad_params` with a clear message (a size that lies,
    /// a used token: BridgeByteChannelRouterTests); the bridge keeps working.
    @Test(arguments: EngineKind.allCases)
    func madeUpTokensAreBadParams(_ kind: EngineKind) async throws {
        let rig = try await opened(kind)
        defer { rig.close() }
        let result = try await rig.page("""
            await hybrid.ready;
            return { unknown: await attempt(hybrid.call('bytes', 'digest', { bytes: { $blob: '0123456789abcdef0123456789abcdef', size: 3 } })),
                     after: await hybrid.call('probe', 'add', { a: 1, b: 2 }) };
            """)
        #expect(result["unknown"]?["code"] == "bad_params")
        let message = result["unknown"]?["message"]?.stringValue ?? ""
        #expect(message.contains(kind.capabilities.contains(.byteChannel) ? "no bytes under this token" : "no byte channel"), "\(message)")
        #expect(result["after"] == 3)
    }

    /// Hostile: a param larger than the container's limit is refused by the channel with
    /// `payload_too_large` and nothing is kept; a direct POST of too many bytes is refused too.
    @Test(arguments: EngineKind.allCases)
    func oversizedBytesAreRefusedAndNotKept(_ kind: EngineKind) async throws {
        try kind.require(.byteChannel)
        let rig = try await opened(kind, limits: .init(maxMessageBytes: 1 << 20))
        defer { rig.close() }
        let channel = try #require(rig.host.byteChannel)
        let result = try await rig.page("""
            await hybrid.ready;
            const call = await attempt(hybrid.call('bytes', 'digest', { bytes: new Uint8Array((1 << 20) + 1) }));
            const direct = await fetch(base + '0123456789abcdef0123456789abcdef', { method: 'POST', body: new Uint8Array(2 << 20) });
            return { call, direct: direct.status, after: await hybrid.call('probe', 'add', { a: 1, b: 2 }) };
            """, arguments: ["base": .string(channel.baseURL)])
        #expect(result["call"]?["code"] == "payload_too_large")
        #expect(result["direct"] == 413)
        #expect(result["after"] == 3)
        #expect(channel.store.count == 0 && channel.store.totalBytes == 0)
    }

    /// Hostile: a reply's token is read once; a foreign-origin iframe in the same view can neither
    /// read nor post a token (no CORS answer, the token stays); a second view, even of the same
    /// origin, reaches only its own store.
    @Test(arguments: EngineKind.allCases)
    func tokensAreReadOnceAndOnlyByTheirPage(_ kind: EngineKind) async throws {
        try kind.require(.byteChannel)
        var pages = Self.pages
        pages["host.html"] = """
            <!doctype html><body><script>window.addEventListener('message', (e) => { window.frameReport = e.data; });</script>
            """
        pages["frame.html"] = """
            <!doctype html><script>
            (async () => {
              const [url, base] = location.hash.slice(1).split('|'), report = {};
              try { const r = await fetch(url); report.get = r.status; } catch (e) { report.get = e.name; }
              try { const r = await fetch(base + 'fedcba9876543210fedcba9876543210',
                      { method: 'POST', body: new Uint8Array(8) }); report.post = r.status; } catch (e) { report.post = e.name; }
              parent.postMessage(JSON.stringify(report), '*');
            })();
            </script>
            """
        let rig = try rig(kind, pages: pages)
        defer { rig.close() }
        try await rig.open("index.html")
        let channel = try #require(rig.host.byteChannel)
        let token = try channel.store.put(Data([9, 8, 7]))
        let once = try await rig.page("""
            const first = await fetch(url), bytes = Array.from(new Uint8Array(await first.arrayBuffer()));
            const second = await fetch(url);
            return { first: first.status, bytes, second: second.status };
            """, arguments: ["url": .string(channel.readURL + token)])
        #expect(once["first"] == 200)
        #expect(once["bytes"] == [9, 8, 7])
        #expect(once["second"] == 404)

        // A foreign iframe: the engine refuses the unanswered CORS request; the token survives.
        try await rig.open("host.html")
        let kept = try channel.store.put(Data([1, 2]))
        _ = try await rig.page("""
            const frame = document.createElement('iframe'); frame.src = frameURL; document.body.appendChild(frame); return true;
            """, arguments: ["frameURL": .string(kind.url("frame.html", host: "evil").absoluteString + "#" + channel.readURL + kept + "|" + channel.baseURL)])
        try await rig.engine.waitUntil("window.frameReport")
        let report = try JSONValue(jsonText: try #require(try await rig.page("return window.frameReport;").stringValue))
        #expect(report["get"] == "TypeError")
        #expect(report["post"] == "TypeError")
        #expect(channel.store.count == 1, "the foreign frame neither took nor added a token")

        // Another view of the same origin: its requests reach its own (other) store on a custom
        // scheme (404 there); at a loopback endpoint they lack this view's key and get no answer.
        let other = try self.rig(kind)
        defer { other.close() }
        try await other.open("index.html")
        let foreign = try await other.page("try { const r = await fetch(url); return r.status; } catch (e) { return e.name; }",
                                           arguments: ["url": .string(channel.readURL + kept)])
        #expect(foreign == (channel.endpoint == nil ? 404 : "TypeError"))
        #expect(try channel.store.take(kept) == Data([1, 2]), "the other view did not consume this view's token")
    }

    /// A navigation frees the store's entries, and so does closing the view.
    @Test(arguments: EngineKind.allCases)
    func navigationAndCloseFreeTheStore(_ kind: EngineKind) async throws {
        try kind.require(.byteChannel)
        let rig = try rig(kind)
        try await rig.open("index.html")
        let channel = try #require(rig.host.byteChannel)
        try channel.store.put(Data(count: 100))
        try await rig.open("next.html")
        #expect(channel.store.count == 0)
        try channel.store.put(Data(count: 100))
        rig.close()
        #expect(channel.store.count == 0)
    }
}
