import Foundation
import HybridBase

/// Persistent key-value storage for pages, one JSON file per origin, written atomically.
///
/// Every origin has its own namespace (its own file); no call can name another origin's.
/// Writes replace the whole file atomically (write to a temporary file, then rename), so a
/// crash leaves the old or the new contents, never a torn file.
public actor BridgeKeyValueStore {
    /// Size bounds per origin.
    public struct Limits: Sendable, Equatable {
        /// Longest key, in UTF-8 bytes.
        public var maxKeyBytes: Int
        /// Largest value, as JSON text in UTF-8 bytes.
        public var maxValueBytes: Int
        /// Keys plus values of one origin, in bytes.
        public var maxBytesPerOrigin: Int
        /// Number of keys of one origin.
        public var maxKeysPerOrigin: Int

        /// Defaults: 256-byte keys, 1 MiB values, 5 MiB and 1024 keys per origin.
        public init(maxKeyBytes: Int = 256, maxValueBytes: Int = 1 << 20, maxBytesPerOrigin: Int = 5 << 20,
                    maxKeysPerOrigin: Int = 1024) {
            self.maxKeyBytes = maxKeyBytes
            self.maxValueBytes = maxValueBytes
            self.maxBytesPerOrigin = maxBytesPerOrigin
            self.maxKeysPerOrigin = maxKeysPerOrigin
        }
    }

    /// Where the per-origin files live.
    public let directory: URL
    /// The bounds in force.
    public let limits: Limits
    private var namespaces: [BridgeOrigin: [String: String]] = [:]

    /// A store keeping its files in `directory` (created when first written).
    public init(directory: URL, limits: Limits = Limits()) {
        self.directory = directory
        self.limits = limits
    }

    /// The value stored under `key` for `origin`, as JSON text.
    public func value(forKey key: String, origin: BridgeOrigin) throws -> String? {
        try namespace(origin)[key]
    }

    /// Stores `valueJSON` (JSON text) under `key` for `origin`.
    /// - Throws: ``BridgeFailure/payloadTooLarge(size:limit:)`` or ``BridgeFailure/module(code:message:data:)``
    ///   (`quota_exceeded`) when a limit would be passed.
    public func setValue(_ valueJSON: String, forKey key: String, origin: BridgeOrigin) throws {
        try check(key: key)
        let size = valueJSON.utf8.count
        guard size <= limits.maxValueBytes else { throw BridgeFailure.payloadTooLarge(size: size, limit: limits.maxValueBytes) }
        var entries = try namespace(origin)
        entries[key] = valueJSON
        guard entries.count <= limits.maxKeysPerOrigin else {
            throw quota("more than \(limits.maxKeysPerOrigin) keys")
        }
        let total = entries.reduce(0) { $0 + $1.key.utf8.count + $1.value.utf8.count }
        guard total <= limits.maxBytesPerOrigin else { throw quota("more than \(limits.maxBytesPerOrigin) bytes") }
        try persist(entries, origin)
    }

    /// Removes `key`; returns whether it existed.
    @discardableResult
    public func removeValue(forKey key: String, origin: BridgeOrigin) throws -> Bool {
        var entries = try namespace(origin)
        guard entries.removeValue(forKey: key) != nil else { return false }
        try persist(entries, origin)
        return true
    }

    /// The keys stored for `origin`, sorted.
    public func keys(origin: BridgeOrigin) throws -> [String] { try namespace(origin).keys.sorted() }

    /// Removes everything stored for `origin`.
    public func clear(origin: BridgeOrigin) throws {
        namespaces[origin] = [:]
        try? FileManager.default.removeItem(at: file(for: origin))
    }

    /// The file holding `origin`'s namespace. Every byte outside `[a-z0-9.-]` is hex-escaped,
    /// so distinct origins never share a file and no origin can escape the directory.
    public func file(for origin: BridgeOrigin) -> URL {
        var name = ""
        for byte in origin.description.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "-"):
                name.append(Character(UnicodeScalar(byte)))
            default:
                name += "_" + String(byte, radix: 16)
            }
        }
        return directory.appendingPathComponent(name + ".json")
    }

    private func check(key: String) throws {
        guard !key.isEmpty, key.utf8.count <= limits.maxKeyBytes else {
            throw BridgeFailure.badParams(module: "storage", action: "set", reason: "params.key: 1 to \(limits.maxKeyBytes) bytes")
        }
    }

    private func quota(_ why: String) -> BridgeFailure {
        .module(code: "quota_exceeded", message: "storage quota exceeded: \(why)", data: nil)
    }

    private func namespace(_ origin: BridgeOrigin) throws -> [String: String] {
        if let entries = namespaces[origin] { return entries }
        let url = file(for: origin)
        var entries: [String: String] = [:]
        if let data = try? Data(contentsOf: url) {
            guard let stored = try? JSONDecoder().decode([String: JSONValue].self, from: data) else {
                throw BridgeFailure.internalError("storage file for \(origin) is unreadable")
            }
            for (key, value) in stored { entries[key] = value.jsonText }
        }
        namespaces[origin] = entries
        return entries
    }

    private func persist(_ entries: [String: String], _ origin: BridgeOrigin) throws {
        // The file is one JSON object whose values are the stored JSON texts spliced in as is.
        let body = entries.keys.sorted().map { "\($0.jsStringLiteral):\(entries[$0] ?? "null")" }.joined(separator: ",")
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try Data("{\(body)}".utf8).write(to: file(for: origin), options: .atomic)
        } catch {
            throw BridgeFailure.internalError("storage write failed: \(error.localizedDescription)")
        }
        namespaces[origin] = entries
    }
}
