import Foundation
import HybridBase

/// Who may use the camera, microphone, position and notifications: per origin, allow, deny or ask
/// the delegate; an origin the app did not list is denied without asking.
///
/// An answer to an ``PermissionRule/ask`` rule is remembered per origin and kind (for the
/// session, or in a file: ``PermissionMemory``), so the delegate is never asked twice for the same
/// origin and kind while it is remembered. One policy can serve many views (share the object).
///
/// ```swift
/// let permissions = PermissionPolicy(memory: .persistent(appSupport.appendingPathComponent("permissions.json")))
/// permissions.set(.ask, for: "https://m.example.com", kinds: [.camera, .microphone])
/// permissions.set(.allow, for: "https://m.example.com", kinds: [.geolocation])
/// configuration.permissions = permissions
/// ```
@MainActor
public final class PermissionPolicy {
    /// How long answers to ``PermissionRule/ask`` rules are kept.
    public let memory: PermissionMemory
    private var rules: [BridgeOrigin: [PermissionKind: PermissionRule]] = [:]
    private var remembered: [BridgeOrigin: [PermissionKind: PermissionDecision]] = [:]
    /// How many times the delegate was asked (tests, diagnostics).
    public private(set) var askCount = 0
    /// How many requests wait for a question already put to the delegate about the same origin
    /// and kind (tests, diagnostics).
    public var waitingCount: Int { asking.reduce(0) { $0 + $1.waiting.count } }
    /// Questions the delegate has not answered yet: a request for the same origin and kind waits
    /// for one of them instead of asking again.
    private var asking: [Question] = []

    /// A question in flight and the requests waiting for its answer.
    private final class Question {
        package let origin: BridgeOrigin
        package let kinds: Set<PermissionKind>
        package var waiting: [CheckedContinuation<PermissionDecision, Never>] = []

        package init(origin: BridgeOrigin, kinds: Set<PermissionKind>) {
            self.origin = origin
            self.kinds = kinds
        }
    }

    /// A policy that denies everything until rules are set.
    /// - Parameter memory: How long the delegate's answers are kept; a persistent file is read now
    ///   (a missing or unreadable file is an empty memory).
    public init(memory: PermissionMemory = .session) {
        self.memory = memory
        if case .persistent(let file) = memory, let data = try? Data(contentsOf: file),
           let stored = try? JSONDecoder().decode([String: [String: PermissionDecision]].self, from: data) {
            for (originText, decisions) in stored {
                guard let url = URL(string: originText), let origin = BridgeOrigin(url: url) else { continue }
                for (kindText, decision) in decisions {
                    if let kind = PermissionKind(rawValue: kindText) { remembered[origin, default: [:]][kind] = decision }
                }
            }
        }
    }

    /// Sets the rule for `kinds` at `origin` (`https://m.example.com`, a port if not the default).
    /// Remembered answers stay (an app sets its rules at every launch; a persistent answer must
    /// survive that); they count only while the rule is ``PermissionRule/ask``. ``forgetAnswers()``
    /// drops them.
    /// - Parameters:
    ///   - rule: Allow, deny or ask.
    ///   - origin: The origin as `scheme://host[:port]`; an unparsable origin sets nothing.
    ///   - kinds: The kinds the rule applies to (all by default).
    public func set(_ rule: PermissionRule, for origin: String, kinds: Set<PermissionKind> = Set(PermissionKind.allCases)) {
        guard let url = URL(string: origin), let parsed = BridgeOrigin(url: url) else { return }
        for kind in kinds { rules[parsed, default: [:]][kind] = rule }
    }

    /// The rule for `kind` at `origin`: ``PermissionRule/deny`` for an origin or kind not listed.
    public func rule(for kind: PermissionKind, at origin: BridgeOrigin) -> PermissionRule {
        rules[origin]?[kind] ?? .deny
    }

    /// The origins and kinds granted without asking: what an engine that cannot ask at request
    /// time (no ``EngineCapabilities/permissionPrompts``) is told up front. Includes remembered
    /// grants.
    public var grants: [String: Set<PermissionKind>] {
        var result: [String: Set<PermissionKind>] = [:]
        for (origin, kinds) in rules {
            for (kind, rule) in kinds where rule == .allow || (rule == .ask && remembered[origin]?[kind] == .allow) {
                result[origin.description, default: []].insert(kind)
            }
        }
        return result
    }

    /// Decides `request`: denied when any kind is denied (listed as deny, or not listed at all);
    /// allowed when every kind is allowed or remembered as allowed; otherwise `ask` is called once
    /// for the kinds still open, and its answer is remembered for each of them.
    ///
    /// Requests that arrive while the delegate is being asked about the same origin and kind (two
    /// `getUserMedia` calls, two views of one page) do not ask again: they wait for that answer,
    /// which counts for them too (even with ``PermissionMemory/none``), and ask only for kinds it
    /// did not cover.
    /// - Parameters:
    ///   - request: What the page asked for, with its origin.
    ///   - ask: The delegate's question; not called when the answer is known or already being asked.
    /// - Returns: The decision for the whole request.
    public func decide(_ request: PermissionRequest,
                       ask: @MainActor (PermissionRequest) async -> PermissionDecision) async -> PermissionDecision {
        guard !request.kinds.isEmpty else { return .deny }
        var answered: Set<PermissionKind> = []   // allowed by questions this request waited for
        // A deny of a question this request waited for is not its own answer (the kinds may
        // differ, the other view may have closed): after one, what is remembered decides, else
        // this request asks for itself.
        var mayWait = true
        while true {
            var open: Set<PermissionKind> = []
            for kind in request.kinds where !answered.contains(kind) {
                switch rule(for: kind, at: request.origin) {
                case .deny: return .deny
                case .allow: continue
                case .ask:
                    switch remembered[request.origin]?[kind] {
                    case .deny: return .deny
                    case .allow: continue
                    case nil: open.insert(kind)
                    }
                }
            }
            guard !open.isEmpty else { return .allow }
            if mayWait, let pending = asking.first(where: { $0.origin == request.origin && !$0.kinds.isDisjoint(with: open) }) {
                let decision = await withCheckedContinuation { pending.waiting.append($0) }
                if decision == .allow { answered.formUnion(pending.kinds) } else { mayWait = false }
                continue
            }
            return await askDelegate(open, of: request, ask)
        }
    }

    /// Asks the delegate about `open` (kinds of `request` nobody is asking about), remembers the
    /// answer, and hands it to the requests that waited for it.
    private func askDelegate(_ open: Set<PermissionKind>, of request: PermissionRequest,
                     _ ask: @MainActor (PermissionRequest) async -> PermissionDecision) async -> PermissionDecision {
        askCount += 1
        let pending = Question(origin: request.origin, kinds: open)
        asking.append(pending)
        var question = request
        question.kinds = open
        let decision = await ask(question)
        asking.removeAll { $0 === pending }
        if memory != .none {
            for kind in open where rule(for: kind, at: request.origin) == .ask { remembered[request.origin, default: [:]][kind] = decision }
            save()
        }
        for waiter in pending.waiting { waiter.resume(returning: decision) }
        return decision
    }

    /// Forgets every remembered answer (the rules stay), and the file's too.
    public func forgetAnswers() {
        remembered.removeAll()
        save()
    }

    private func save() {
        guard case .persistent(let file) = memory else { return }
        var stored: [String: [String: PermissionDecision]] = [:]
        for (origin, decisions) in remembered where !decisions.isEmpty {
            stored[origin.description] = Dictionary(uniqueKeysWithValues: decisions.map { ($0.key.rawValue, $0.value) })
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        guard let data = try? encoder.encode(stored) else { return }
        try? FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try? data.write(to: file, options: .atomic)
    }
}
