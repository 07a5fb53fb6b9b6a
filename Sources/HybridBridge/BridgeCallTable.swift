import Foundation
import HybridEngine

/// The calls a router has accepted and not yet answered, with the bookkeeping that bounds them.
///
/// Each call is removed exactly once (``remove(_:)``); whoever removes it answers it. That single
/// rule is what makes "every pending call fails exactly once" hold under races between a reply,
/// a timeout, a cancel message, a navigation and a content-process crash.
struct BridgeCallTable {
    struct Entry {
        let id: Int
        let module: String
        let action: String
        let generation: Int
        let bytes: Int
        /// The timeout the call runs under, in milliseconds (reported in `timeout` errors).
        let timeoutMilliseconds: Int
        /// Who waits for the answer: `nil` while the handler has not suspended yet (see
        /// ``BridgeRouter/finish(_:_:)``, which then keeps the answer for the caller to pick up).
        var continuation: CheckedContinuation<ScriptReply, Never>?
        var task: Task<Void, Never>?
    }

    private struct Key: Hashable {
        let generation: Int
        let id: Int
    }

    private var entries: [UInt64: Entry] = [:]
    private var tokensByID: [Key: UInt64] = [:]
    private var nextToken: UInt64 = 0
    /// Sum of the wire sizes of the pending calls.
    private(set) var bytes = 0

    var count: Int { entries.count }
    var tokens: [UInt64] { entries.keys.sorted() }

    func contains(_ token: UInt64) -> Bool { entries[token] != nil }

    func contains(generation: Int, id: Int) -> Bool { tokensByID[Key(generation: generation, id: id)] != nil }

    func token(generation: Int, id: Int) -> UInt64? { tokensByID[Key(generation: generation, id: id)] }

    func generation(of token: UInt64) -> Int? { entries[token]?.generation }

    /// Tokens of calls that belong to any generation but `generation`.
    func tokens(notIn generation: Int) -> [UInt64] {
        entries.filter { $0.value.generation != generation }.keys.sorted()
    }

    mutating func insert(_ entry: Entry) -> UInt64 {
        nextToken += 1
        entries[nextToken] = entry
        tokensByID[Key(generation: entry.generation, id: entry.id)] = nextToken
        bytes += entry.bytes
        return nextToken
    }

    mutating func attach(_ token: UInt64, task: Task<Void, Never>) {
        entries[token]?.task = task
    }

    mutating func attach(_ token: UInt64, continuation: CheckedContinuation<ScriptReply, Never>) {
        entries[token]?.continuation = continuation
    }

    func timeoutMilliseconds(of token: UInt64) -> Int? { entries[token]?.timeoutMilliseconds }

    /// Removes a call; `nil` when it was already answered.
    mutating func remove(_ token: UInt64) -> Entry? {
        guard let entry = entries.removeValue(forKey: token) else { return nil }
        tokensByID[Key(generation: entry.generation, id: entry.id)] = nil
        bytes -= entry.bytes
        return entry
    }
}
