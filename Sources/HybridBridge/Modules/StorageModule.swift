import Foundation
import HybridBase

/// The `storage` module: persistent key-value storage, namespaced by the caller's origin.
///
/// - `get {key}` → the stored JSON value, or `null`
/// - `set {key, value}` → `null` (fails with `payload_too_large` or `quota_exceeded` past the limits)
/// - `remove {key}` → `true` when the key existed
/// - `keys` → the keys, sorted
/// - `clear` → `null`
///
/// A page without an origin (`about:blank`, `data:`) gets `denied`.
public struct StorageModule: BridgeModule {
    /// The name pages call the module by (`hybrid.call('storage', …)`).
    public let name = "storage"
    /// The origins whose pages may use the storage.
    public let allowedOrigins: [OriginPattern]
    /// Where values are kept, per origin.
    public let store: BridgeKeyValueStore

    /// A storage module over `store`, for `allowedOrigins`.
    public init(store: BridgeKeyValueStore, allowedOrigins: [OriginPattern]) {
        self.store = store
        self.allowedOrigins = allowedOrigins
    }

    struct KeyParams: Codable, Sendable {
        var key: String
    }

    struct SetParams: Codable, Sendable {
        var key: String
        var value: JSONValue
    }

    @Sendable static func origin(_ context: BridgeCallContext) throws -> BridgeOrigin {
        guard let origin = context.origin else { throw BridgeFailure.denied("storage needs a page with an origin") }
        return origin
    }

    /// `get`, `set`, `remove`, `keys` and `clear`.
    public var actions: [BridgeAction] {
        let store = store
        let origin = Self.origin
        return [
            Action("get") { (params: KeyParams, context) in
                let text = try await store.value(forKey: params.key, origin: try origin(context))
                return try text.map { try JSONValue(jsonText: $0) } ?? .null
            },
            Action("set") { (params: SetParams, context) in
                try await store.setValue(params.value.jsonText, forKey: params.key, origin: try origin(context))
                return BridgeEmpty()
            },
            Action("remove") { (params: KeyParams, context) in
                try await store.removeValue(forKey: params.key, origin: try origin(context))
            },
            Action("keys") { (_: Empty, context) in try await store.keys(origin: try origin(context)) },
            Action("clear") { (_: Empty, context) in
                try await store.clear(origin: try origin(context))
                return BridgeEmpty()
            },
        ]
    }
}
