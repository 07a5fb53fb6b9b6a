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

/// `dcz` patches (RFC 9842 framing around a zstd frame with the base as its prefix).
///
/// Input: a mode byte, two bytes of expected size, two bytes of base length, the base, then the patch.
/// Mode bit 0 puts a valid header (magic and the base's SHA-256) in front of the patch, so most
/// inputs reach zstd; otherwise the bytes are the whole patch, header included.
/// - `apply` returns exactly the declared size or throws `bad_patch` — never anything else, and
///   never a byte past the declared size (the output buffer is exactly that size; AddressSanitizer
///   watches it).
/// - Round trip: a patch made from the base to the rest of the input applies back to it.
enum DeltaChecks {
    static let codec = ZstdDeltaCodec(level: 3)
    static let digests = SodiumDigests()

    static func check(_ bytes: [UInt8]) throws {
        guard bytes.count >= 5 else { return }
        let mode = bytes[0]
        let expectedSize = Int(bytes[1]) << 8 | Int(bytes[2])
        let baseCount = min(Int(bytes[3]) << 8 | Int(bytes[4]), bytes.count - 5)
        let base = Data(bytes[5 ..< 5 + baseCount])
        let rest = Data(bytes[(5 + baseCount)...])
        let baseSHA = digests.sha256Hex(base)
        var patch = Data()
        if mode & 1 == 1 {
            patch.append(contentsOf: DeltaPatch.magic)
            var digest = digests.makeSHA256()
            digest.update(base)
            patch.append(digest.finalize())
        }
        patch.append(rest)
        do {
            let result = try DeltaPatch.apply(patch, to: base, baseSHA256: baseSHA, expectedSize: expectedSize,
                                              expectedSHA256: digests.sha256Hex(Data()), codec: codec, digests: digests)
            try require(result.count == expectedSize, "apply returned \(result.count) bytes for a declared \(expectedSize)")
        } catch {
            try requireCode(error, in: ["bad_patch"], "DeltaPatch.apply")
        }
        do {
            let output = try codec.decompress(rest, dictionary: base, expectedSize: expectedSize)
            try require(output.count == expectedSize, "decompress returned \(output.count) bytes for a declared \(expectedSize)")
        } catch {
            try requireCode(error, in: ["bad_patch"], "ZstdDeltaCodec.decompress")
        }
        if mode & 2 == 2, rest.count <= 4096 {
            guard let made = DeltaPatch.make(from: base, to: rest, codec: codec, digests: digests) else {
                throw FuzzViolation(description: "no patch from \(base.count) to \(rest.count) bytes")
            }
            let applied = try DeltaPatch.apply(made, to: base, baseSHA256: baseSHA, expectedSize: rest.count,
                                               expectedSHA256: digests.sha256Hex(rest), codec: codec, digests: digests)
            try require(applied == rest, "a patch made here does not apply back")
        }
    }
}
