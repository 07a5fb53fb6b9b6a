import Foundation
@testable import HybridBridge
@testable import HybridCore
@testable import HybridNetwork
@testable import HybridBase
@testable import HybridEngine
@testable import HybridHTTP
@testable import HybridHealth
@testable import HybridPackages
import HybridCrypto
import Testing

/// Deterministic minified-looking JavaScript: what patches are for.
enum DeltaSamples {
    static func bundle(modules: Int, seed: UInt64 = 1, edit: Int? = nil) -> Data {
        var state = seed
        func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        let words = ["createElement", "prototype", "useState", "forEach", "length", "push", "apply", "props", "state", "dispatch"]
        var text = "!function(){var m=[\n"
        for index in 0..<modules {
            text += "function(e,t,n){\"use strict\";"
            if index == edit { text += "if(e==null)return t;" }
            for _ in 0..<(4 + Int(next() % 12)) {
                let a = words[Int(next() % UInt64(words.count))], b = words[Int(next() % UInt64(words.count))]
                text += "var \(Character(UnicodeScalar(97 + UInt8(next() % 26))))=t.\(a)(n.\(b),\(next() % 1000));"
            }
            text += "},\n"
        }
        return Data((text + "]}();\n").utf8)
    }
}

@Suite struct PackageDeltaTests {
    let digests = PackagePlatform.native.digests
    let codec = try! #require(PackagePlatform.native.delta)

    @Test func patchIsDczFramedAndRebuildsTheTarget() throws {
        let base = DeltaSamples.bundle(modules: 400), target = DeltaSamples.bundle(modules: 400, edit: 200)
        let patch = try #require(DeltaPatch.make(from: base, to: target, codec: codec, digests: digests))
        // RFC 9842: the skippable-frame magic, then the base's SHA-256, then one zstd frame.
        #expect(Array(patch.prefix(8)) == [0x5E, 0x2A, 0x4D, 0x18, 0x20, 0x00, 0x00, 0x00])
        #expect(try DeltaPatch.baseSHA256(of: patch) == digests.sha256Hex(base))
        #expect(patch.count < 200, "a one-line edit costs \(patch.count) bytes")
        let rebuilt = try DeltaPatch.apply(patch, to: base, baseSHA256: digests.sha256Hex(base), expectedSize: target.count,
                                           expectedSHA256: digests.sha256Hex(target), codec: codec, digests: digests)
        #expect(rebuilt == target)
    }

    @Test func plainZstdDecodesThePatchWithTheBaseAsPrefix() throws {
        // The framing is standard: the zstd CLI skips the dcz header and decodes with --patch-from.
        let zstd = "/usr/bin/zstd"  // Debian's `zstd`, installed by scripts/bootstrap.sh
        try #require(FileManager.default.isExecutableFile(atPath: zstd), "\(zstd) is missing: run scripts/bootstrap.sh")
        let base = DeltaSamples.bundle(modules: 300), target = DeltaSamples.bundle(modules: 300, edit: 7)
        let patch = try #require(DeltaPatch.make(from: base, to: target, codec: codec, digests: digests))
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hk-dcz-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try base.write(to: directory.appendingPathComponent("base"))
        try patch.write(to: directory.appendingPathComponent("patch.dcz"))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: zstd)
        process.arguments = ["-q", "-d", "--long=31", "--patch-from=" + directory.appendingPathComponent("base").path,
                             directory.appendingPathComponent("patch.dcz").path, "-o", directory.appendingPathComponent("out").path]
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(try Data(contentsOf: directory.appendingPathComponent("out")) == target)
    }

    @Test func hostilePatchesAreRefusedWithBadPatch() throws {
        let base = DeltaSamples.bundle(modules: 200), target = DeltaSamples.bundle(modules: 200, edit: 100)
        let other = DeltaSamples.bundle(modules: 200, seed: 9)
        let patch = try #require(DeltaPatch.make(from: base, to: target, codec: codec, digests: digests))
        let baseSHA = digests.sha256Hex(base), targetSHA = digests.sha256Hex(target)
        func apply(_ patch: Data, to base: Data = base, baseSHA: String = baseSHA, size: Int = target.count, sha: String = targetSHA) throws {
            _ = try DeltaPatch.apply(patch, to: base, baseSHA256: baseSHA, expectedSize: size, expectedSHA256: sha, codec: codec, digests: digests)
        }
        func expectBadPatch(_ body: () throws -> Void, sourceLocation: SourceLocation = #_sourceLocation) {
            let error = #expect(throws: HybridError.self, sourceLocation: sourceLocation) { try body() }
            #expect(error?.code == "bad_patch", "\(String(describing: error))", sourceLocation: sourceLocation)
        }

        var corrupt = patch
        corrupt[corrupt.count - 5] ^= 0x5A
        expectBadPatch { try apply(corrupt) }
        expectBadPatch { try apply(patch.prefix(patch.count - 3)) }
        expectBadPatch { try apply(patch.prefix(DeltaPatch.headerSize)) }
        expectBadPatch { try apply(Data("not a patch at all, just some bytes long enough".utf8)) }
        // Applied to another base than the one it names: refused before decoding.
        expectBadPatch { try apply(patch, to: other, baseSHA: digests.sha256Hex(other)) }
        // The header names the right base but the bytes handed in are not it (a damaged store blob).
        expectBadPatch { try apply(patch, to: other) }
        // A result of another size or hash than the signed manifest says.
        expectBadPatch { try apply(patch, size: target.count + 1) }
        expectBadPatch { try apply(patch, sha: digests.sha256Hex(other)) }
        // A frame declaring a huge size is refused before anything that size is allocated.
        expectBadPatch { try apply(patch, size: 10) }
    }

    @Test func hashedBundleNamesFindTheirPredecessor() {
        #expect(PackagePatchBases.stem("js/app.3f2a1b9c.js") == PackagePatchBases.stem("js/app.77d0e4aa.js"))
        #expect(PackagePatchBases.stem("assets/index-BwK3xQ9z.js") == PackagePatchBases.stem("assets/index-D4a8LmQ2.js"))
        #expect(PackagePatchBases.stem("js/app.js") != PackagePatchBases.stem("js/vendor.js"))
        #expect(PackagePatchBases.stem("lib/jquery-3.6.0.min.js") == "lib/jquery-3.6.0.min.js")
        #expect(PackagePatchBases.stem("img/logo.png") == "img/logo.png")
    }
}
