import Foundation
import HybridBase

/// The data plane's questions under the contract: permission requests, downloads and file
/// pickers are each answered exactly once, by the delegate or with ``EngineDefaults`` (deny,
/// cancel, no files), and with the default for any still open when the view closes or (for
/// permissions and pickers, which belong to the page) its content process dies.
extension ContractEngine {
    /// Asks the delegate (deny with none, or on a closed or dead view).
    public func permissionRequested(_ request: PermissionRequest, decide: @escaping @MainActor (PermissionDecision) -> Void) {
        let decide = openRequests.open(decide, fallback: EngineDefaults.permission, pageBound: true)
        guard isAlive, delegate != nil else { return decide(EngineDefaults.permission) }
        ImmediateTask.start { @MainActor [weak self] in
            guard let self, self.isAlive, let delegate = self.delegate else { return decide(EngineDefaults.permission) }
            let decision = await delegate.engine(self, decidePermission: request)
            decide(self.isAlive ? decision : EngineDefaults.permission)
        }
    }

    /// Asks the delegate where the download goes (cancel with none, on a closed view, or on an
    /// engine without ``EngineCapabilities/downloads``).
    public func downloadStarted(_ download: Download, decide: @escaping @MainActor (DownloadDecision) -> Void) {
        let decide = openRequests.open(decide, fallback: EngineDefaults.download, pageBound: false)
        guard !isClosed, capabilities.contains(.downloads), delegate != nil else { return decide(EngineDefaults.download) }
        ImmediateTask.start { @MainActor [weak self] in
            guard let self, !self.isClosed, let delegate = self.delegate else { return decide(EngineDefaults.download) }
            let decision = await delegate.engine(self, decideDownload: download)
            decide(self.isClosed ? EngineDefaults.download : decision)
        }
    }

    /// Tells the delegate, unless the view is closed.
    public func downloadChanged(_ id: String, _ event: DownloadEvent) {
        guard !isClosed else { return }
        delegate?.engine(self, download: id, didChange: event)
    }

    /// Asks the delegate for files (none with no delegate, or on a closed or dead view).
    public func fileChooserOpened(_ request: FileChooserRequest, answer: @escaping @MainActor ([URL]) -> Void) {
        let answer = openRequests.open(answer, fallback: [], pageBound: true)
        guard isAlive, delegate != nil else { return answer([]) }
        ImmediateTask.start { @MainActor [weak self] in
            guard let self, self.isAlive, let delegate = self.delegate else { return answer([]) }
            let files = await delegate.engine(self, chooseFiles: request)
            answer(self.isAlive ? files : [])
        }
    }
}

/// Questions handed out and not answered yet, each with its default: ``answerAll(pageBoundOnly:)``
/// gives every one still open its default; a later answer is ignored.
@MainActor
final class OpenEngineRequests {
    private var pending: [UInt64: (pageBound: Bool, answerDefault: @MainActor () -> Void)] = [:]
    private var nextID: UInt64 = 0

    /// `reply` wrapped to run once and be forgotten once answered.
    func open<Answer>(_ reply: @escaping @MainActor (Answer) -> Void, fallback: Answer, pageBound: Bool) -> @MainActor (Answer) -> Void {
        nextID += 1
        let id = nextID
        let once = AnswerOnce(reply)
        pending[id] = (pageBound, { once.answer(fallback) })
        return { [weak self] answer in
            self?.pending[id] = nil
            once.answer(answer)
        }
    }

    /// Answers with their defaults all questions still open (only those of the page, for a
    /// content process that died).
    func answerAll(pageBoundOnly: Bool) {
        let open = pending.filter { !pageBoundOnly || $0.value.pageBound }
        for id in open.keys { pending[id] = nil }
        for id in open.keys.sorted() { open[id]?.answerDefault() }
    }

    /// Questions still open.
    package var count: Int { pending.count }
}

/// A reply that runs at most once.
@MainActor
private final class AnswerOnce<Answer> {
    private var reply: (@MainActor (Answer) -> Void)?
    package init(_ reply: @escaping @MainActor (Answer) -> Void) { self.reply = reply }
    package func answer(_ value: Answer) {
        guard let reply else { return }
        self.reply = nil
        reply(value)
    }
}
