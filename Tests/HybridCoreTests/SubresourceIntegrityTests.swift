import Foundation
@testable import HybridBridge
@testable import HybridCore
@testable import HybridNetwork
@testable import HybridBase
@testable import HybridEngine
@testable import HybridHTTP
@testable import HybridHealth
@testable import HybridPackages
import Testing

/// Subresource Integrity's metadata parsing and matching (``SubresourceIntegrity``), against the
/// standard's rules and FIPS 180's "abc" vectors.
@Suite("SubresourceIntegrity")
struct SubresourceIntegrityTests {
    static let abc = Data("abc".utf8)
    static let sha256 = "ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0="
    static let sha384 = "ywB1P0WjXou1oD1pmsZQBycsMqsO3tFjGotgWkP/W+2AhgcroefMI1i67KE0yCWn"
    static let sha512 = "3a81oZNherrMQXNJriBBMRLm+k6JqX6iCp7u5ktV05ohkpkqJ0/BqDa6PCOj/uu9RU1EI2Q86A4qmslPpUyknw=="

    @Test func digestsAreTheStandardsVectors() {
        #expect(SubresourceIntegrity.Algorithm.sha256.digest(Self.abc).base64EncodedString() == Self.sha256)
        #expect(SubresourceIntegrity.Algorithm.sha384.digest(Self.abc).base64EncodedString() == Self.sha384)
        #expect(SubresourceIntegrity.Algorithm.sha512.digest(Self.abc).base64EncodedString() == Self.sha512)
        #expect(SubresourceIntegrity.Algorithm.sha384.digest(Data()).base64EncodedString()
                == "OLBgp1GsljhM2TJ+sbHjaiH9txEUvgdDTAzHv2P24donTt6/529l+9Ua0vFImLlb")
    }

    @Test func eachAlgorithmMatchesItsDigestOnly() {
        #expect(SubresourceIntegrity.matches(Self.abc, metadata: "sha256-\(Self.sha256)"))
        #expect(SubresourceIntegrity.matches(Self.abc, metadata: "sha384-\(Self.sha384)"))
        #expect(SubresourceIntegrity.matches(Self.abc, metadata: "SHA512-\(Self.sha512)"))
        #expect(!SubresourceIntegrity.matches(Data("abd".utf8), metadata: "sha384-\(Self.sha384)"))
        #expect(!SubresourceIntegrity.matches(Self.abc, metadata: "sha256-wrong"))
    }

    @Test func theStrongestAlgorithmWins() {
        // SRI §3.3.4: only the strongest algorithm's hashes are compared; a right weaker one does not help.
        #expect(!SubresourceIntegrity.matches(Self.abc, metadata: "sha256-\(Self.sha256) sha384-wrong"))
        #expect(SubresourceIntegrity.matches(Self.abc, metadata: "sha256-wrong sha384-\(Self.sha384)"))
        // Several hashes of one algorithm: any may match.
        #expect(SubresourceIntegrity.matches(Self.abc, metadata: "sha512-other sha512-\(Self.sha512)"))
    }

    @Test func optionsAreIgnoredAndUnknownTokensSkipped() {
        #expect(SubresourceIntegrity.matches(Self.abc, metadata: "sha384-\(Self.sha384)?foo=bar?baz"))
        #expect(SubresourceIntegrity.parse("md5-abc sha1-xyz nonsense sha256-").isEmpty)
        // No valid metadata: nothing to check, the response matches.
        #expect(SubresourceIntegrity.matches(Self.abc, metadata: "md5-abc  "))
        #expect(SubresourceIntegrity.matches(Self.abc, metadata: ""))
        // An unknown algorithm beside a wrong known one does not rescue it.
        #expect(!SubresourceIntegrity.matches(Self.abc, metadata: "sha999-x sha256-wrong"))
        // The URL-safe base64 alphabet (`-`, `_`) is accepted too.
        let urlSafe = Self.sha512.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        #expect(SubresourceIntegrity.matches(Self.abc, metadata: "sha512-\(urlSafe)"))
    }
}
