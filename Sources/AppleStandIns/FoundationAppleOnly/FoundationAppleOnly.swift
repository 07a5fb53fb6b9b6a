// Linux-only stand-in (docs/apple.md): the part of Apple's Foundation that the Apple adapters use
// and swift-corelibs-foundation lacks: Swift's KVO (`NSObject.observe(_:options:changeHandler:)`,
// from Apple's Foundation overlay) and HTTPCookie's SameSite policy (iOS 13 / macOS 10.15).
// On Apple both are plain Foundation, which WebKit and UIKit re-export; the WebKit and UIKit
// stand-ins re-export this module (with Foundation) the same way. Declarations only: nothing
// here ever runs.
@_exported import Foundation
#if canImport(FoundationNetworking)
@_exported import FoundationNetworking
#endif

public struct NSKeyValueObservingOptions: OptionSet, Sendable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }
    public static let new = NSKeyValueObservingOptions(rawValue: 0x01)
    public static let old = NSKeyValueObservingOptions(rawValue: 0x02)
    public static let initial = NSKeyValueObservingOptions(rawValue: 0x04)
    public static let prior = NSKeyValueObservingOptions(rawValue: 0x08)
}

public struct NSKeyValueObservedChange<Value> {
    public let newValue: Value?
    public let oldValue: Value?
    public let isPrior: Bool
}

/// Keeps a KVO observation alive until invalidated or released.
public class NSKeyValueObservation: NSObject {
    public func invalidate() { surfaceOnly() }
}

/// Apple's Foundation overlay makes every NSObject observable with key paths. Current SDKs
/// declare the change handler `@Sendable` (older ones did not; code that compiles against the
/// stricter form compiles against both).
public protocol _KeyValueCodingAndObserving {}
extension NSObject: _KeyValueCodingAndObserving {}

extension _KeyValueCodingAndObserving {
    @preconcurrency
    public func observe<Value>(
        _ keyPath: KeyPath<Self, Value>, options: NSKeyValueObservingOptions = [],
        changeHandler: @escaping @Sendable (Self, NSKeyValueObservedChange<Value>) -> Void
    ) -> NSKeyValueObservation {
        surfaceOnly()
    }
}

public struct HTTPCookieStringPolicy: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public static let sameSiteLax = HTTPCookieStringPolicy(rawValue: "lax")
    public static let sameSiteStrict = HTTPCookieStringPolicy(rawValue: "strict")
}

extension HTTPCookie {
    public var sameSitePolicy: HTTPCookieStringPolicy? { surfaceOnly() }
}

extension HTTPCookiePropertyKey {
    public static let sameSitePolicy = HTTPCookiePropertyKey("SameSite")
}

/// The body of every stand-in declaration: the stand-ins are compiled, never run.
func surfaceOnly(_ function: StaticString = #function) -> Never {
    fatalError("\(function) is a declaration of Apple's SDK for type-checking; it never runs")
}
