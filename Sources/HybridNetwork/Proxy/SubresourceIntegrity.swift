import Foundation
#if canImport(CCrypto)
import CCrypto
#elseif canImport(CryptoKit)
import CryptoKit
#endif

/// Subresource Integrity for proxied `fetch` (W3C SRI §3.3): a request's `integrity` metadata
/// checked against the whole response body before the page sees any of it.
///
/// The digests come from OpenSSL's libcrypto on Linux (libsodium, which HybridCrypto links, has no
/// SHA-384; libcrypto is maintained, audited, and already in the process through libcurl) and from
/// CryptoKit on Apple platforms.
public enum SubresourceIntegrity {
    /// The hash algorithms SRI names, weakest first.
    public enum Algorithm: String, Sendable, CaseIterable, Comparable {
        /// SHA-256.
        case sha256
        /// SHA-384.
        case sha384
        /// SHA-512.
        case sha512

        /// Orders by strength (SHA-512 strongest).
        public static func < (a: Algorithm, b: Algorithm) -> Bool {
            allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
        }

        /// The digest of `data`.
        public func digest(_ data: Data) -> Data {
            #if canImport(CCrypto)
            let length = switch self { case .sha256: 32; case .sha384: 48; case .sha512: 64 }
            var out = [UInt8](repeating: 0, count: length)
            data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
                let bytes = raw.bindMemory(to: UInt8.self).baseAddress
                switch self {
                case .sha256: _ = SHA256(bytes, raw.count, &out)
                case .sha384: _ = SHA384(bytes, raw.count, &out)
                case .sha512: _ = SHA512(bytes, raw.count, &out)
                }
            }
            return Data(out)
            #elseif canImport(CryptoKit)
            switch self {
            case .sha256: return Data(SHA256.hash(data: data))
            case .sha384: return Data(SHA384.hash(data: data))
            case .sha512: return Data(SHA512.hash(data: data))
            }
            #else
            fatalError("no SHA-2 implementation on this platform")
            #endif
        }
    }

    /// One `alg-value[?options]` token of the metadata.
    public struct Hash: Sendable, Hashable {
        /// The algorithm.
        public var algorithm: Algorithm
        /// The expected digest, base64 as written.
        public var value: String
    }

    /// SRI §3.3.2 "parse metadata": whitespace-separated tokens `alg-base64` with optional
    /// `?options` (ignored, as the standard says); tokens of unknown algorithms are skipped.
    public static func parse(_ metadata: String) -> [Hash] {
        metadata.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" || $0 == "\u{0C}" }).compactMap { token in
            let expression = token.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            guard let dash = expression.firstIndex(of: "-"),
                  let algorithm = Algorithm(rawValue: expression[..<dash].lowercased()) else { return nil }
            let value = String(expression[expression.index(after: dash)...])
            guard !value.isEmpty else { return nil }
            return Hash(algorithm: algorithm, value: value)
        }
    }

    /// SRI §3.3.5 "does response match metadataList": no valid metadata matches anything;
    /// otherwise only the strongest algorithm's hashes count, and one of them must equal the body's
    /// digest (base64; the URL-safe alphabet is accepted too, as the current standard does).
    public static func matches(_ body: Data, metadata: String) -> Bool {
        let hashes = parse(metadata)
        guard let strongest = hashes.map(\.algorithm).max() else { return true }
        let digest = strongest.digest(body).base64EncodedString()
        let urlSafe = digest.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        return hashes.contains { hash in
            guard hash.algorithm == strongest else { return false }
            return hash.value == digest || hash.value == urlSafe
                || hash.value.trimmingCharacters(in: CharacterSet(charactersIn: "=")) == urlSafe.trimmingCharacters(in: CharacterSet(charactersIn: "="))
        }
    }
}
