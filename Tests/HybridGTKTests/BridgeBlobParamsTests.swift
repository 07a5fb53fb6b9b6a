import Foundation
import HybridCore
import HybridTestSupport
import Testing

/// `Blob`s and `File`s in `hybrid.call` params travel as bytes, like `ArrayBuffer`s: the runtime
/// reads them first, so page code hands over what an `<input type=file>` gave it unchanged.
@Suite("Blobs in bridge params", .serialized)
@MainActor
struct BridgeBlobParamsTests {
    /// Runs `body` in a fresh rig's page, its bridge ready.
    private func run(_ kind: EngineKind, _ body: String) async throws -> JSONValue {
        let rig = try BridgeRig(kind, pages: ["index.html": "<!doctype html><title>app</title><p>app</p>"])
        defer { rig.close() }
        try await rig.open("index.html")
        return try await rig.page("await hybrid.ready;\n" + body)
    }

    @Test(arguments: EngineKind.allCases)
    func blobsAndFilesArriveAsTheirBytes(_ kind: EngineKind) async throws {
        let result = try await run(kind, """
            const big = new Uint8Array(300000).map((_, i) => i % 251);
            const back = await hybrid.call('probe', 'reverse', new Blob([big.subarray(0, 100000), big.subarray(100000)]));
            let same = back.length === big.length;
            for (let i = 0; same && i < big.length; i++) same = back[i] === big[big.length - 1 - i];
            const file = new File([new Uint8Array([1, 2, 3])], 'a.bin', { type: 'application/octet-stream' });
            const shared = new Blob(['hi']);
            const nested = await hybrid.call('probe', 'echo', { name: file.name, file, parts: [shared, { again: shared }], empty: new Blob([]) });
            return { same, isBytes: back instanceof Uint8Array, name: nested.name, file: Array.from(nested.file),
                     parts: [Array.from(nested.parts[0]), Array.from(nested.parts[1].again)], empty: Array.from(nested.empty),
                     binary: hybrid.capabilities.binary };
            """)
        #expect(result["same"] == true)
        #expect(result["isBytes"] == true)
        #expect(result["name"] == "a.bin")
        #expect(result["file"] == [1, 2, 3])
        #expect(result["parts"] == [[104, 105], [104, 105]])
        #expect(result["empty"] == [])
        // No engine carries bytes in script messages as bytes: each says why.
        #expect(result["binary"] == "base64")
        let provider = try kind.provider()
        #expect(!provider.capabilities.contains(.binaryMessages))
        #expect(provider.limitations[.binaryMessages]?.isEmpty == false)
    }

    /// Hostile: Blobs too large for one message are refused by the page runtime before they are
    /// read or sent, with the typed error and the limit; params that are a web of shared objects
    /// are searched for Blobs once, not once per path; the bridge keeps working.
    @Test(arguments: EngineKind.allCases)
    func oversizedBlobsAreRefusedBeforeTheyAreRead(_ kind: EngineKind) async throws {
        let result = try await run(kind, """
            const limit = (await hybrid.call('hybrid', 'info')).maxMessageBytes;
            // Two Blobs that fit alone but not together (as base64, 4 bytes per 3).
            const half = new Blob([new Uint8Array(Math.floor(limit * 3 / 8) + 1024)]);
            const refused = await attempt(hybrid.call('probe', 'echo', { a: half, b: new Blob([half]) }));
            // Params whose objects refer to each other 2^64 ways are walked once, then refused.
            const knot = {};
            for (let i = 0; i < 64; i++) knot.next = { a: knot.next ?? knot, b: knot.next ?? knot };
            const cyclic = await attempt(hybrid.call('probe', 'echo', knot));
            const after = await hybrid.call('probe', 'add', { a: 1, b: 2 });
            return { refused, limit, cyclic, after };
            """)
        #expect(result["refused"]?["ok"] == false)
        #expect(result["refused"]?["code"] == "payload_too_large")
        #expect(result["refused"]?["message"]?.stringValue?.hasPrefix("Blob params") == true)
        #expect(result["refused"]?["data"]?["limit"] == result["limit"])
        #expect(result["cyclic"]?["code"] == "bad_params")
        #expect(result["after"] == 3)
    }
}
