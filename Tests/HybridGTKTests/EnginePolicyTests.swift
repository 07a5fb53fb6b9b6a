import Foundation
import HybridCore
import HybridServer
import HybridFixtures
import Testing

/// A delegate whose answers a test scripts; it records every question.
@MainActor
final class ScriptedDelegate: WebEngineDelegate {
    var actions: [NavigationAction] = []
    var responses: [NavigationResponse] = []
    var dialogs: [ScriptDialogCompletion] = []
    var actionPolicy: (NavigationAction) async -> NavigationActionPolicy = { _ in .allow }
    var responsePolicy: (NavigationResponse) -> NavigationResponsePolicy = { $0.canShowMIMEType ? .allow : .cancel }
    var dialogAnswer: ((ScriptDialogCompletion) -> Void)?
    var dialogsSeen: [ScriptDialog] = []

    func engine(_ engine: any WebEngine, decidePolicyFor action: NavigationAction) async -> NavigationActionPolicy {
        actions.append(action)
        return await actionPolicy(action)
    }
    func engine(_ engine: any WebEngine, decidePolicyFor response: NavigationResponse) async -> NavigationResponsePolicy {
        responses.append(response)
        return responsePolicy(response)
    }
    func engine(_ engine: any WebEngine, runScriptDialog completion: ScriptDialogCompletion) {
        dialogsSeen.append(completion.dialog)
        if let dialogAnswer { dialogAnswer(completion) } else { dialogs.append(completion) }
    }
}

@Suite("Engine navigation policy", .serialized)
@MainActor
struct EnginePolicyTests {
    @Test(arguments: EngineKind.allCases)
    func asyncActionPolicyCanCancelALinkNavigation(_ kind: EngineKind) async throws {
        let pages = RecordingPages([
            "a.html": "<a id=go href='blocked.html'>go</a><a id=ok href='b.html'>ok</a>", "b.html": "<title>B</title>",
            "blocked.html": "<title>Blocked</title>",
        ])
        let engine = try kind.makeEngine(kind.pages(pages))
        defer { engine.close() }
        let delegate = ScriptedDelegate()
        delegate.actionPolicy = { action in
            try? await Task.sleep(nanoseconds: 30_000_000)  // answered later, asynchronously
            return action.request.url.lastPathComponent == "blocked.html" ? .cancel : .allow
        }
        engine.delegate = delegate
        try await engine.loadAndWait(kind.url("a.html"))
        let recorder = EventRecorder(engine)
        _ = try await engine.evaluate("document.getElementById('go').click()")
        try await eventually("the blocked link's decision") { delegate.actions.contains { $0.request.url.lastPathComponent == "blocked.html" } }
        #expect(engine.url?.lastPathComponent == "a.html")
        let blocked = delegate.actions.last
        #expect(blocked?.type == .linkActivated)
        #expect(blocked?.isMainFrame == true)
        // The next navigation is the barrier: a load of blocked.html allowed by mistake would
        // have started (and asked the scheme handler) before b.html's.
        _ = try await engine.evaluate("document.getElementById('ok').click()")
        try await recorder.next("B") { $0 == .titleChanged("B") }
        #expect(engine.url?.lastPathComponent == "b.html")
        #expect(!pages.requests.contains { $0.url.lastPathComponent == "blocked.html" })
        // Never committed. (Blink reports the cancelled navigation as started and then failed,
        // cancelled; WebKit asks before it starts and reports nothing.)
        #expect(!recorder.events.contains { event in
            switch event {
            case .loadCommitted(let url), .urlChanged(let url), .loadFinished(let url): url?.lastPathComponent == "blocked.html"
            default: false
            }
        }, "\(recorder.events)")
    }

    @Test(arguments: EngineKind.allCases)
    func redirectPolicyLoadsAnotherRequestWithHeaders(_ kind: EngineKind) async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        let token = Locked("")
        server.route("/dest") { request in
            token.set(request.headers["X-Token"] ?? "")
            return .html("<title>Dest</title>")
        }
        let engine = try kind.makeEngine()
        defer { engine.close() }
        let delegate = ScriptedDelegate()
        let destination = server.url("/dest")
        delegate.actionPolicy = { action in
            action.request.url.path == "/start" ? .redirect(to: destination, headers: ["X-Token": "t-1"]) : .allow
        }
        engine.delegate = delegate
        let recorder = EventRecorder(engine)
        engine.load(server.url("/start"))
        try await recorder.next("dest") { $0 == .titleChanged("Dest") }
        #expect(token.value == "t-1")
    }

    @Test(arguments: EngineKind.allCases)
    func aServerRedirectIsReportedAndAskedAboutAsARedirect(_ kind: EngineKind) async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/from") { _ in ServerResponse(status: 302, headers: ["Location": "/to"], body: Data()) }
        server.route("/to") { _ in .html("<title>To</title>") }
        let engine = try kind.makeEngine()
        defer { engine.close() }
        let delegate = ScriptedDelegate()
        engine.delegate = delegate
        let recorder = EventRecorder(engine)
        engine.load(server.url("/from"))
        try await recorder.loadFinished()
        #expect(recorder.events.contains(.loadRedirected(server.url("/to"))))
        #expect(engine.url == server.url("/to"))
        #expect(delegate.actions.map(\.request.url.path) == ["/from", "/to"])
        #expect(delegate.actions.last?.isRedirect == true)
    }

    @Test(arguments: EngineKind.allCases)
    func responsePolicySeesStatusAndTypeAndCanCancel(_ kind: EngineKind) async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/doc") { _ in ServerResponse(status: 201, headers: ["Content-Type": "text/html", "X-Extra": "1"], body: Data("<p>doc</p>".utf8)) }
        server.route("/bin") { _ in ServerResponse(headers: ["Content-Type": "application/x-never-shown"], body: Data([0, 1, 2])) }
        let engine = try kind.makeEngine()
        defer { engine.close() }
        let delegate = ScriptedDelegate()
        engine.delegate = delegate
        try await engine.loadAndWait(server.url("/doc"))
        let response = try #require(delegate.responses.last)
        #expect(response.statusCode == 201)
        #expect(response.mimeType == "text/html")
        #expect(response.isMainFrame)
        #expect(response.canShowMIMEType)
        #expect(response.headers.contains { $0.name.lowercased() == "x-extra" && $0.value == "1" })
        let recorder = EventRecorder(engine)
        engine.load(server.url("/bin"))
        try await recorder.next("policy cancel") { if case .loadFailed = $0 { true } else { false } }
        #expect(delegate.responses.last?.canShowMIMEType == false)
        #expect(engine.url?.path == "/doc")
    }

    @Test(arguments: EngineKind.allCases)
    func newWindowRequestsGoToTheDelegateAndNeverOpenAWindow(_ kind: EngineKind) async throws {
        let pages = RecordingPages(["w.html": "<p>w</p>", "other.html": "<p>o</p>"])
        let engine = try kind.makeEngine(kind.pages(pages))
        defer { engine.close() }
        let delegate = ScriptedDelegate()
        engine.delegate = delegate
        try await engine.loadAndWait(kind.url("w.html"))
        let opened = try await engine.evaluate("window.opened = window.open('other.html?via=open'); window.opened === null")
        try await eventually("the new-window request") { delegate.actions.contains { $0.targetsNewWindow } }
        let newWindow = try #require(delegate.actions.first { $0.targetsNewWindow })
        #expect(newWindow.request.url == kind.url("other.html?via=open"))
        if kind.capabilities.contains(.windowOpenReturnsNull) {
            #expect(opened == true)
        } else {
            // The page got a window object; the engine closed it at once.
            #expect(opened == false)
            try await engine.waitUntil("window.opened.closed")
        }
        #expect(engine.url?.lastPathComponent == "w.html")
        #expect(!pages.requests.contains { $0.url.lastPathComponent == "other.html" })
    }
}

@Suite("Engine script dialogs", .serialized)
@MainActor
struct EngineDialogTests {
    @Test(arguments: EngineKind.allCases)
    func alertConfirmAndPromptReachTheDelegateWithPageDetails(_ kind: EngineKind) async throws {
        let engine = try kind.makeEngine()
        defer { engine.close() }
        let delegate = ScriptedDelegate()
        delegate.dialogAnswer = { completion in
            switch completion.dialog.kind {
            case .confirm: completion.complete(.accepted())
            case .prompt: completion.complete(.accepted(text: "typed " + (completion.dialog.defaultText ?? "")))
            default: completion.complete(.accepted())
            }
        }
        engine.delegate = delegate
        try await engine.loadHTMLAndWait("<title>Dialogs</title>")
        // The engine reports the title on its own signal, which may come after the load's end.
        try await eventually("the title reported") { engine.title == "Dialogs" }
        let result = try await engine.evaluate("alert('a1'); [confirm('c1'), prompt('p1', 'dflt')]")
        #expect(result == [true, "typed dflt"])
        #expect(delegate.dialogsSeen.map(\.kind) == [.alert, .confirm, .prompt])
        #expect(delegate.dialogsSeen.map(\.message) == ["a1", "c1", "p1"])
        #expect(delegate.dialogsSeen.first?.pageTitle == "Dialogs")
    }

    @Test(arguments: EngineKind.allCases)
    func cancelledConfirmAndPromptReturnFalseAndNull(_ kind: EngineKind) async throws {
        let engine = try kind.makeEngine()
        defer { engine.close() }
        let delegate = ScriptedDelegate()
        delegate.dialogAnswer = { $0.complete(.cancelled) }
        engine.delegate = delegate
        try await engine.loadHTMLAndWait("<p>x</p>")
        #expect(try await engine.evaluate("[confirm('c'), prompt('p', 'd')]") == [false, nil])
    }

    @Test(arguments: EngineKind.allCases)
    func aDroppedCompletionAppliesTheSafeDefaultExactlyOnce(_ kind: EngineKind) async throws {
        let engine = try kind.makeEngine()
        defer { engine.close() }
        let delegate = ScriptedDelegate()
        delegate.dialogAnswer = { _ in }  // drops the completion on the floor
        engine.delegate = delegate
        try await engine.loadHTMLAndWait("<p>x</p>")
        #expect(try await engine.evaluate("[confirm('c'), prompt('p'), (alert('a'), 'after alert')]") == [false, nil, "after alert"])
    }

    @Test(arguments: EngineKind.allCases)
    func completingTwiceHasNoSecondEffect(_ kind: EngineKind) async throws {
        let engine = try kind.makeEngine()
        defer { engine.close() }
        let delegate = ScriptedDelegate()
        var answers: [Bool] = []
        delegate.dialogAnswer = { completion in
            answers.append(completion.complete(.accepted()))
            answers.append(completion.complete(.cancelled))
            answers.append(completion.completeWithSafeDefault())
        }
        engine.delegate = delegate
        try await engine.loadHTMLAndWait("<p>x</p>")
        #expect(try await engine.evaluate("confirm('once')") == true)
        #expect(answers == [true, false, false])
    }

    @Test(arguments: EngineKind.allCases)
    func closingTheViewWithADialogOpenAppliesTheSafeDefault(_ kind: EngineKind) async throws {
        let engine = try kind.makeEngine()
        let delegate = ScriptedDelegate()
        engine.delegate = delegate  // keeps completions without answering
        try await engine.loadHTMLAndWait("<p>x</p>")
        let pending = Task { @MainActor in try await engine.evaluate("confirm('left open')") }
        try await eventually("the dialog to reach the delegate") { !delegate.dialogs.isEmpty }
        engine.close()
        #expect(delegate.dialogs.first?.isCompleted == true)
        await #expect(throws: HybridError.engine(.closed)) { try await pending.value }
    }

    @Test(arguments: EngineKind.allCases)
    func beforeUnloadIsAskedAndCanKeepThePage(_ kind: EngineKind) async throws {
        let pages = RecordingPages(["stay.html": "<title>Stay</title><script>addEventListener('beforeunload', e => { e.preventDefault(); e.returnValue = 'sure?'; })</script>", "next.html": "<title>Next</title>"])
        let engine = try kind.makeEngine(kind.pages(pages))
        defer { engine.close() }
        let delegate = ScriptedDelegate()
        var answer: ScriptDialogResult = .cancelled
        delegate.dialogAnswer = { $0.complete(answer) }
        engine.delegate = delegate
        try await engine.loadAndWait(kind.url("stay.html"))
        // beforeunload dialogs need a user gesture on the page first: the container's script
        // runs with one on both engines (measured: both then ask).
        _ = try await engine.evaluate("document.body.click()")
        let recorder = EventRecorder(engine)
        _ = try await engine.evaluate("location.href = 'next.html'")
        // Both halves always run: the question is asked and "cancel" keeps the page...
        try await eventually("the beforeunload question") { delegate.dialogsSeen.contains { $0.kind == .beforeUnload } }
        #expect(engine.title == "Stay")
        #expect(!pages.requests.contains { $0.url.lastPathComponent == "next.html" })
        // ...then "leave" lets it go.
        answer = .accepted()
        _ = try await engine.evaluate("location.href = 'next.html'")
        try await recorder.next("leave") { $0 == .titleChanged("Next") }
        #expect(delegate.dialogsSeen.filter { $0.kind == .beforeUnload }.count == 2)
        #expect(engine.title == "Next")
    }
}
