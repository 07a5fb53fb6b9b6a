import Foundation
import HybridCore
import HybridFixtures
import Testing

/// Hostile tests of the byte channel at Blink's loopback endpoint (docs/engines.md, "The byte
/// channel on Blink"): whoever is not the view's own page — a local process, another view
/// replaying or guessing the view's capability, a foreign origin, a view that has closed — gets
/// nothing. The channel's own rules (tokens read once, foreign iframes, oversized bodies) are
/// `BridgeByteChannelTests`, on both engines.
@Suite("Blink byte channel endpoint", .serialized)
@MainActor
struct BlinkByteChannelTests {
    static let pages = ["index.html": "<!doctype html><title>app</title><p>app</p>"]
    static let token = "0123456789abcdef0123456789abcdef"

    private func opened(host: String = "app") async throws -> BridgeRig {
        let rig = try BridgeRig(.blink, pages: Self.pages, modules: [RigModule(.blink), ByteChannelModule(allowedOrigins: [EngineKind.blink.appOrigin])])
        do {
            try await rig.open("index.html", host: host)
        } catch {
            rig.close()
            throw error
        }
        return rig
    }

    /// The view's channel, which must be at the loopback endpoint.
    private func channel(_ rig: BridgeRig) throws -> BridgeByteChannel {
        let channel = try #require(rig.host.byteChannel)
        try #require(channel.endpoint?.hasPrefix("http://127.0.0.1:") == true, "Blink serves the channel at its loopback endpoint")
        return channel
    }

    /// What a local process gets: `curl`'s status code and body for a request (run off the main
    /// actor, which an accepted request needs).
    nonisolated static func curl(_ url: String, method: String = "GET", origin: String? = nil, body: Bool = false,
                                 headers: [String] = []) async throws -> (status: Int, body: String) {
        try await Task.detached {
            var arguments = ["-s", "-o", "-", "-w", "\n%{http_code}", "-X", method, url]
            if let origin { arguments += ["-H", "Origin: \(origin)"] }
            for header in headers { arguments += ["-H", header] }
            if body { arguments += ["--data-binary", "hostile bytes"] }
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
            process.arguments = arguments
            let output = Pipe()
            process.standardOutput = output
            try process.run()
            let data = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            let text = String(decoding: data, as: UTF8.self)
            let status = Int(text.split(separator: "\n").last ?? "") ?? -1
            return (status, String(text.dropLast(String(status).count + 1)))
        }.value
    }

    /// A local process gets nothing without the view's key: not a reply's bytes (with the page's
    /// origin, the right capability and the live token, even naming a made-up key), not a read at the
    /// post path, nothing under a guessed capability; its posts without the page's origin are
    /// refused. The token stays for its page, which reads it.
    @Test func aLocalProcessWithoutTheKeyGetsNothing() async throws {
        let rig = try await opened()
        defer { rig.close() }
        let channel = try channel(rig)
        let origin = EngineKind.blink.origin("app")
        let kept = try channel.store.put(Data([4, 5, 6]))
        let guessed = channel.readURL.replacingOccurrences(of: channel.storeID, with: BridgeByteStore.makeToken())
        let attempts = [
            try await Self.curl(channel.readURL + kept, origin: origin),
            try await Self.curl(channel.readURL + kept, origin: origin, headers: ["X-HybridKit-Channel: \(BridgeByteStore.makeToken())"]),
            try await Self.curl(channel.baseURL + kept, origin: origin),
            try await Self.curl(guessed + kept, origin: origin),
            try await Self.curl(channel.baseURL + Self.token, method: "POST", body: true),
            try await Self.curl(channel.baseURL + Self.token, method: "POST", origin: "https://evil.example", body: true),
        ]
        #expect(attempts.map(\.status) == Array(repeating: 403, count: attempts.count))
        #expect(attempts.prefix(4).allSatisfy { $0.body.isEmpty }, "a refused read says nothing")
        #expect(channel.store.count == 1, "nothing was taken or added")
        let read = try await rig.page("const r = await fetch(url); return Array.from(new Uint8Array(await r.arrayBuffer()));",
                                      arguments: ["url": .string(channel.readURL + kept)])
        #expect(read == [4, 5, 6])
    }

    /// Another view replaying this view's capability, or guessing one, reads nothing: a page of the
    /// same origin and a page of a foreign origin both get no answer for a live token; the foreign
    /// page cannot post either. The token is still there for its own page.
    @Test func anotherViewReplayingOrGuessingTheCapabilityGetsNothing() async throws {
        let rig = try await opened()
        defer { rig.close() }
        let channel = try channel(rig)
        let kept = try channel.store.put(Data([7, 7]))
        let probe = """
            const outcome = async (p) => { try { const r = await p; return r.status; } catch (e) { return e.name; } };
            return {
              read: await outcome(fetch(read + token)),
              post: await outcome(fetch(base + fresh, { method: 'POST', body: new Uint8Array(70000) })),
              guessed: await outcome(fetch(guessed + token)),
            };
            """
        let guessed = channel.readURL.replacingOccurrences(of: channel.storeID, with: BridgeByteStore.makeToken())
        let arguments: [String: JSONValue] = ["read": .string(channel.readURL), "base": .string(channel.baseURL), "token": .string(kept),
                                              "fresh": .string(Self.token), "guessed": .string(guessed)]
        let sameOrigin = try await opened()
        defer { sameOrigin.close() }
        let same = try await sameOrigin.page(probe, arguments: arguments)
        #expect(same["read"] == "TypeError")
        #expect(same["guessed"] == "TypeError")
        // A post carries no key (Fetch would copy its body onto the pipe): a page of the page's own
        // origin that holds the capability may add bytes under a token it made up, which this view's
        // page never names; it can read back neither them nor anything of this view's.
        #expect(same["post"] == 200)
        #expect(channel.store.count == 2)
        let foreign = try await opened(host: "evil")
        defer { foreign.close() }
        let evil = try await foreign.page(probe, arguments: arguments)
        #expect(evil == ["read": "TypeError", "post": "TypeError", "guessed": "TypeError"])
        #expect(try channel.store.take(kept) == Data([7, 7]), "no other view consumed the token")
    }

    /// Chromium lets only pages that may call the bridge reach the loopback endpoint at all: a page
    /// of an origin no module allows gets no Local Network Access grant from the view, so even an
    /// opaque `no-cors` request to the endpoint fails there, while the app's page gets its response.
    @Test func onlyPagesThatMayCallTheBridgeReachTheEndpoint() async throws {
        let rig = try await opened()
        defer { rig.close() }
        let channel = try channel(rig)
        let probe = "try { const r = await fetch(url, { mode: 'no-cors' }); return r.type; } catch (e) { return e.name; }"
        let arguments: [String: JSONValue] = ["url": .string((channel.endpoint ?? "") + "/anything")]
        #expect(try await rig.page(probe, arguments: arguments) == "opaque")
        let foreign = try await opened(host: "evil")
        defer { foreign.close() }
        #expect(try await foreign.page(probe, arguments: arguments) == "TypeError")
    }

    /// A capability dies with its view: while the view is open its page posts and reads through it,
    /// and once it closes the same requests — from a page of the same origin in another view, or from
    /// a local process with the page's origin — get nothing.
    @Test func aCapabilityDiesWithItsView() async throws {
        let rig = try await opened()
        let channel = try channel(rig)
        let origin = EngineKind.blink.origin("app")
        let alive = try await Self.curl(channel.baseURL + Self.token, method: "POST", origin: origin, body: true)
        #expect(alive.status == 200, "the page's origin may post while the view lives")
        #expect(try channel.store.take(Self.token) == Data("hostile bytes".utf8))
        let kept = try channel.store.put(Data([1]))
        rig.close()

        let dead = try await Self.curl(channel.baseURL + BridgeByteStore.makeToken(), method: "POST", origin: origin, body: true)
        #expect(dead.status == 403)
        let other = try await opened()
        defer { other.close() }
        let replay = try await other.page("""
            try { const r = await fetch(url); return r.status; } catch (e) { return e.name; }
            """, arguments: ["url": .string(channel.readURL + kept)])
        #expect(replay == "TypeError")
    }
}
