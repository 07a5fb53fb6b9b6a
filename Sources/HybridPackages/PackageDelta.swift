import Foundation
import HybridBase

/// A dictionary compressor for byte-level patches: it compresses a file's new bytes with its old
/// bytes as a raw-content dictionary, as `zstd --patch-from` does.
///
/// HybridCore frames what it produces as RFC 9842 Dictionary-Compressed Zstandard (``DeltaPatch``),
/// so a codec only compresses and decompresses. HybridCrypto implements it with libzstd where it
/// is linked (Linux). A build without a codec (Apple's SDK has no zstd) publishes and fetches full
/// blobs only; an app plugs one in by setting ``PackagePlatform/delta`` (docs/offline-packages.md).
public protocol DeltaCodec: Sendable {
    /// Compresses `target` with `dictionary` as a raw-content prefix (zstd's `ZSTD_CCtx_refPrefix`,
    /// long-distance matching, a window covering both), or `nil` when it cannot.
    func compress(_ target: Data, dictionary: Data) -> Data?
    /// Decompresses one zstd frame made with `dictionary` as its prefix to exactly `expectedSize` bytes.
    /// - Throws: ``PackageFailure/badPatch(base:reason:)`` when the stream is corrupt, needs a larger
    ///   window than `dictionary.count + expectedSize` allows, or decodes to another size.
    func decompress(_ stream: Data, dictionary: Data, expectedSize: Int) throws -> Data
}

/// Byte-level patches as stored in a repository: RFC 9842 `dcz` framing around a zstd frame
/// compressed with the base file as its dictionary.
///
/// ```
/// 5E 2A 4D 18 20 00 00 00   a zstd skippable frame of 32 bytes (so plain zstd skips it)
/// <32 bytes>                SHA-256 of the base (the dictionary): names it in the content-addressed store
/// <zstd frame>              the new file, compressed with the base as a raw prefix
/// ```
///
/// A patch is untrusted: it is applied only to the base its header names, and its result is kept
/// only when it hashes to the signed manifest's SHA-256.
public enum DeltaPatch {
    /// The patch encoding manifests name (RFC 9842's content coding).
    public static let encoding = "dcz"
    /// The 8-byte dcz signature: a zstd skippable-frame magic (0x184D2A5E) and a length of 32.
    public static let magic: [UInt8] = [0x5E, 0x2A, 0x4D, 0x18, 0x20, 0x00, 0x00, 0x00]
    /// Magic plus the base's 32-byte SHA-256.
    public static let headerSize = 40

    /// A patch turning `base` into `target`, or `nil` when `codec` cannot make one.
    public static func make(from base: Data, to target: Data, codec: any DeltaCodec, digests: any DigestFactory) -> Data? {
        guard let stream = codec.compress(target, dictionary: base) else { return nil }
        var patch = Data(magic)
        var digest = digests.makeSHA256()
        digest.update(base)
        patch.append(digest.finalize())
        patch.append(stream)
        return patch
    }

    /// The base SHA-256 (hex) a patch's header names.
    /// - Throws: ``PackageFailure/badPatch(base:reason:)`` when the header is not dcz.
    public static func baseSHA256(of patch: Data) throws -> String {
        guard patch.count > headerSize, patch.prefix(magic.count).elementsEqual(magic) else {
            throw HybridError.pkg(.badPatch(base: "", reason: "not a dcz patch (RFC 9842 header missing)"))
        }
        return patch.subdata(in: patch.startIndex + magic.count ..< patch.startIndex + headerSize).lowercaseHex
    }

    /// Applies `patch` to `base`, whose SHA-256 is `baseSHA256`, and checks the result against the
    /// file it must become.
    /// - Returns: the new bytes: exactly `expectedSize` long with SHA-256 `expectedSHA256`.
    /// - Throws: ``PackageFailure/badPatch(base:reason:)`` for a patch naming another base, a corrupt
    ///   stream, or a result of the wrong size or hash.
    public static func apply(_ patch: Data, to base: Data, baseSHA256: String, expectedSize: Int, expectedSHA256: String,
                             codec: any DeltaCodec, digests: any DigestFactory) throws -> Data {
        let named = try Self.baseSHA256(of: patch)
        guard named == baseSHA256 else {
            throw HybridError.pkg(.badPatch(base: baseSHA256, reason: "the patch names base \(named.prefix(16))…"))
        }
        let stream = patch.subdata(in: patch.startIndex + headerSize ..< patch.endIndex)
        let result: Data
        do {
            result = try codec.decompress(stream, dictionary: base, expectedSize: expectedSize)
        } catch HybridError.package(.badPatch(_, let reason)) {
            throw HybridError.pkg(.badPatch(base: baseSHA256, reason: reason))
        } catch {
            throw HybridError.pkg(.badPatch(base: baseSHA256, reason: "\(error)"))
        }
        guard result.count == expectedSize else {
            throw HybridError.pkg(.badPatch(base: baseSHA256, reason: "result is \(result.count) bytes, expected \(expectedSize)"))
        }
        let actual = digests.sha256Hex(result)
        guard actual == expectedSHA256 else {
            throw HybridError.pkg(.badPatch(base: baseSHA256, reason: "result SHA-256 is \(actual.prefix(16))…, the manifest says \(expectedSHA256.prefix(16))…"))
        }
        return result
    }
}
