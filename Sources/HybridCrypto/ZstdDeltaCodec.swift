#if canImport(CZstd)
import CZstd
import Foundation
import HybridBase
import HybridPackages

/// The zstd delta codec on libzstd (Debian's `libzstd-dev`, through the `CZstd` system library):
/// the new file compressed with the old one as a raw prefix, as `zstd --patch-from` does.
///
/// Settings, and why: level 19 with long-distance matching and a window covering base and target,
/// so a match anywhere in the old file is reachable (on a 4 MB minified bundle a one-line edit
/// costs about 400 bytes, a 5 % release less than `bsdiff`); no frame checksum, because the
/// updater checks the result's SHA-256 against the signed manifest anyway.
public struct ZstdDeltaCodec: DeltaCodec {
    /// The compression level patches are made at (1–19; 19 is what the figures in docs/offline-packages.md use).
    public var level: Int32

    /// A codec; `level` 19 by default.
    public init(level: Int32 = 19) {
        self.level = level
    }

    /// The window log that reaches from the end of `target` back to the start of the base.
    static func windowLog(for bytes: Int) -> Int32 {
        var log: Int32 = 10
        while log < 30, (1 << Int(log)) < bytes { log += 1 }
        return log
    }

    /// `target` compressed with `dictionary` as its prefix, or `nil` when libzstd fails or either
    /// side is too large for a 1 GB window.
    public func compress(_ target: Data, dictionary: Data) -> Data? {
        let total = dictionary.count + target.count
        guard total <= 1 << 30, let context = ZSTD_createCCtx() else { return nil }
        defer { ZSTD_freeCCtx(context) }
        let settings: [(ZSTD_cParameter, Int32)] = [
            (ZSTD_c_compressionLevel, level),
            (ZSTD_c_windowLog, Self.windowLog(for: total)),
            (ZSTD_c_enableLongDistanceMatching, 1),
            (ZSTD_c_checksumFlag, 0),
            (ZSTD_c_contentSizeFlag, 1),
        ]
        for (parameter, value) in settings where ZSTD_isError(ZSTD_CCtx_setParameter(context, parameter, value)) != 0 {
            return nil
        }
        var out = Data(count: ZSTD_compressBound(target.count))
        let written: Int = out.withUnsafeMutableBytes { output in
            dictionary.withUnsafeBytes { prefix in
                target.withUnsafeBytes { source in
                    // The prefix is referenced for one frame only, and must outlive it: it does here.
                    guard ZSTD_isError(ZSTD_CCtx_refPrefix(context, prefix.baseAddress, prefix.count)) == 0 else { return -1 }
                    let result = ZSTD_compress2(context, output.baseAddress, output.count, source.baseAddress, source.count)
                    return ZSTD_isError(result) != 0 ? -1 : result
                }
            }
        }
        guard written >= 0 else { return nil }
        out.count = written
        return out
    }

    /// Decodes one frame made with `dictionary` as its prefix into exactly `expectedSize` bytes.
    ///
    /// Decoding runs in one shot into a buffer of `expectedSize` (the signed manifest's size), so a
    /// hostile patch can neither make it allocate more nor ask for a window larger than base and
    /// result together: memory stays base + result + a small context.
    /// - Throws: ``PackageFailure/badPatch(base:reason:)``.
    public func decompress(_ stream: Data, dictionary: Data, expectedSize: Int) throws -> Data {
        func bad(_ reason: String) -> HybridError { .package(.badPatch(base: "", reason: reason)) }
        guard let context = ZSTD_createDCtx() else { throw bad("libzstd cannot allocate a context") }
        defer { ZSTD_freeDCtx(context) }
        let declared = stream.withUnsafeBytes { ZSTD_getFrameContentSize($0.baseAddress, $0.count) }
        if declared != ZSTD_CONTENTSIZE_UNKNOWN {
            guard declared != ZSTD_CONTENTSIZE_ERROR else { throw bad("not a zstd frame") }
            guard declared == UInt64(expectedSize) else { throw bad("the frame declares \(declared) bytes, expected \(expectedSize)") }
        }
        let windowLog = Self.windowLog(for: dictionary.count + expectedSize) + 1
        guard ZSTD_isError(ZSTD_DCtx_setParameter(context, ZSTD_d_windowLogMax, min(windowLog, 31))) == 0 else {
            throw bad("libzstd refused the window limit")
        }
        var out = Data(count: max(expectedSize, 1))
        let result: Int = out.withUnsafeMutableBytes { output in
            dictionary.withUnsafeBytes { prefix in
                stream.withUnsafeBytes { source in
                    let status = ZSTD_DCtx_refPrefix(context, prefix.baseAddress, prefix.count)
                    guard ZSTD_isError(status) == 0 else { return status }
                    return ZSTD_decompressDCtx(context, output.baseAddress, expectedSize, source.baseAddress, source.count)
                }
            }
        }
        if ZSTD_isError(result) != 0 { throw bad("zstd: \(String(cString: ZSTD_getErrorName(result)))") }
        guard result == expectedSize else { throw bad("decodes to \(result) bytes, expected \(expectedSize)") }
        out.count = expectedSize
        return out
    }
}
#endif
