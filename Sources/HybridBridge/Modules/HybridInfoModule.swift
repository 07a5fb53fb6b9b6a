import Foundation
import HybridBase

/// The `hybrid` module: what the runtime reports about the container.
///
/// - `info` → `{version, capabilities, modules, maxMessageBytes}` (the modules the caller's
///   origin may use)
/// - `ping` → echoes its params (an empty round trip for health checks and benchmarks)
public struct HybridInfoModule: BridgeModule {
    /// `hybrid`; ``BridgeHost`` registers this module under it unless the app registered its own.
    public static let moduleName = "hybrid"
    /// The name pages call the module by (``moduleName``).
    public let name = HybridInfoModule.moduleName
    /// None of its own: the router lets exactly the origins some other registered module admits
    /// call it, so a page the app allowed nothing learns nothing (default deny).
    public let allowedOrigins: [OriginPattern] = []
    private let info: @MainActor @Sendable (BridgeOrigin?) -> JSONValue

    /// - Parameter info: What to report for a caller's origin (``BridgeRouter/info(for:)``).
    public init(info: @escaping @MainActor @Sendable (BridgeOrigin?) -> JSONValue) {
        self.info = info
    }

    /// `info` and `ping`, both answered at once (no task per call).
    public var actions: [BridgeAction] {
        let info = info
        return [
            .immediate("info") { (_: Empty, context) in info(context.origin) },
            .immediate("ping") { (value: JSONValue, _) in value },
        ]
    }
}
