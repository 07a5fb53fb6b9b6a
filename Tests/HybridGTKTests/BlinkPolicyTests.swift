import Foundation
import HybridBlink
import HybridCore
import HybridServer
import HybridTestSupport
import Testing

@Suite("Blink navigation policy", .serialized)
@MainActor
struct BlinkPolicyTests {
    @Test func asyncActionPolicyCanCancelALinkNavigation() async throws {
        let pages = BlinkPages([
            "a.html": "<a id=go href='blocked.html'>go</a><a id=ok href='b.html'>ok</a>", "b.html": "<title>B</title>",
            "blocked.html": "<title>Blocked</title>",
        ])
        let engine = try BlinkHarness.makeEngine(BlinkHarness.pages(pages))
        defer { engine.close() }
        let delegate = ScriptedDelegate()
        delegate.actionPolicy = { action in
            try? await Task.sleep(nanoseconds: 30_000_000)
            return action.request.url.lastPathComponent == "blocked.html" ? .cancel : .allow
        }
        engine.delegate = delegate
        try await engine.loadAndWait(BlinkHarness.url("a.html"))
        _ = try await engine.evaluate("document.getElementById('go').click()")
        try await Task.sleep(nanoseconds: 300_000_000)
        #expect(engine.url?.lastPathComponent == "a.html")
        #expect(!pages.requests.contains { $0.url.lastPathComponent == "blocked.html" })
        let blocked = delegate.actions.last
        #expect(blocked?.type == .linkActivated)
        #expect(blocked?.isMainFrame == true)
        let recorder = EventRecorder(engine)
        _ = try await engine.evaluate("document.getElementById('ok').click()")
        try await recorder.next("B") { $0 == .titleChanged("B") }
        #expect(engine.url?.lastPathComponent == "b.html")
    }

    @Test func redirectPolicyLoadsAnotherRequestWithHeaders() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        let token = Locked("")
        server.route("/dest") { request in
            token.set(request.headers["X-Token"] ?? "")
            return .html("<title>Dest</title>")
        }
        let engine = try BlinkHarness.makeEngine()
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

    @Test func aServerRedirectIsReportedAndAskedAboutAsARedirect() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/from") { _ in ServerResponse(status: 302, headers: ["Location": "/to"], body: Data()) }
        server.route("/to") { _ in .html("<title>To</title>") }
        let engine = try BlinkHarness.makeEngine()
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

    @Test func responsePolicySeesStatusAndTypeAndCanCancel() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/doc") { _ in ServerResponse(status: 201, headers: ["Content-Type": "text/html", "X-Extra": "1"], body: Data("<p>doc</p>".utf8)) }
        server.route("/bin") { _ in ServerResponse(headers: ["Content-Type": "application/x-never-shown"], body: Data([0, 1, 2])) }
        let engine = try BlinkHarness.makeEngine()
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

    @Test func newWindowRequestsGoToTheDelegateAndNeverOpenAWindow() async throws {
        let pages = BlinkPages(["w.html": "<p>w</p>", "other.html": "<p>o</p>"])
        let engine = try BlinkHarness.makeEngine(BlinkHarness.pages(pages))
        defer { engine.close() }
        let delegate = ScriptedDelegate()
        engine.delegate = delegate
        try await engine.loadAndWait(BlinkHarness.url("w.html"))
        // Unlike WebKit, Chromium's window.open returns a (closed at once) window, not null.
        _ = try await engine.evaluate("void window.open('other.html?via=open')")
        try await Task.sleep(nanoseconds: 300_000_000)
        let newWindow = try #require(delegate.actions.first { $0.targetsNewWindow })
        #expect(newWindow.request.url.absoluteString == BlinkHarness.origin + "/other.html?via=open")
        #expect(engine.url?.lastPathComponent == "w.html")
        #expect(!pages.requests.contains { $0.url.lastPathComponent == "other.html" })
    }
}

@Suite("Blink script dialogs", .serialized)
@MainActor
struct BlinkDialogTests {
    @Test func alertConfirmAndPromptReachTheDelegateWithPageDetails() async throws {
        let engine = try BlinkHarness.makeEngine()
        defer { engine.close() }
        let delegate = ScriptedDelegate()
        delegate.dialogAnswer = { completion in
            switch completion.dialog.kind {
            case .prompt: completion.complete(.accepted(text: "typed " + (completion.dialog.defaultText ?? "")))
            default: completion.complete(.accepted())
            }
        }
        engine.delegate = delegate
        try await engine.loadHTMLAndWait("<title>Dialogs</title>")
        let result = try await engine.evaluate("alert('a1'); [confirm('c1'), prompt('p1', 'dflt')]")
        #expect(result == [true, "typed dflt"])
        #expect(delegate.dialogsSeen.map(\.kind) == [.alert, .confirm, .prompt])
        #expect(delegate.dialogsSeen.map(\.message) == ["a1", "c1", "p1"])
        #expect(delegate.dialogsSeen.first?.pageTitle == "Dialogs")
    }

    @Test func cancelledConfirmAndPromptReturnFalseAndNull() async throws {
        let engine = try BlinkHarness.makeEngine()
        defer { engine.close() }
        let delegate = ScriptedDelegate()
        delegate.dialogAnswer = { $0.complete(.cancelled) }
        engine.delegate = delegate
        try await engine.loadHTMLAndWait("<p>x</p>")
        #expect(try await engine.evaluate("[confirm('c'), prompt('p', 'd')]") == [false, nil])
    }

    @Test func aDroppedCompletionAppliesTheSafeDefaultExactlyOnce() async throws {
        let engine = try BlinkHarness.makeEngine()
        defer { engine.close() }
        let delegate = ScriptedDelegate()
        delegate.dialogAnswer = { _ in }
        engine.delegate = delegate
        try await engine.loadHTMLAndWait("<p>x</p>")
        #expect(try await engine.evaluate("[confirm('c'), prompt('p'), (alert('a'), 'after alert')]") == [false, nil, "after alert"])
    }

    @Test func completingTwiceHasNoSecondEffect() async throws {
        let engine = try BlinkHarness.makeEngine()
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

    @Test func closingTheViewWithADialogOpenAppliesTheSafeDefault() async throws {
        let engine = try BlinkHarness.makeEngine()
        let delegate = ScriptedDelegate()
        engine.delegate = delegate
        try await engine.loadHTMLAndWait("<p>x</p>")
        let pending = Task { @MainActor in try await engine.evaluate("confirm('left open')") }
        while delegate.dialogs.isEmpty { try await Task.sleep(nanoseconds: 5_000_000) }
        engine.close()
        #expect(delegate.dialogs.first?.isCompleted == true)
        await #expect(throws: HybridError.engine(.closed)) { try await pending.value }
    }

    @Test func beforeUnloadIsAskedAndCanKeepThePage() async throws {
        let pages = BlinkPages(["stay.html": "<title>Stay</title><script>addEventListener('beforeunload', e => { e.preventDefault(); e.returnValue = 'sure?'; })</script>", "next.html": "<title>Next</title>"])
        let engine = try BlinkHarness.makeEngine(BlinkHarness.pages(pages))
        defer { engine.close() }
        let delegate = ScriptedDelegate()
        var answer: ScriptDialogResult = .cancelled
        delegate.dialogAnswer = { $0.complete(answer) }
        engine.delegate = delegate
        try await engine.loadAndWait(BlinkHarness.url("stay.html"))
        _ = try await engine.evaluate("document.body.click()")
        let recorder = EventRecorder(engine)
        _ = try await engine.evaluate("location.href = 'next.html'")
        try await Task.sleep(nanoseconds: 400_000_000)
        if delegate.dialogsSeen.contains(where: { $0.kind == .beforeUnload }) {
            #expect(engine.title == "Stay")
            answer = .accepted()
            _ = try await engine.evaluate("location.href = 'next.html'")
        } else {
            BlinkHarness.skip("beforeunload question", "Chromium did not ask (no user activation); the page must still leave")
        }
        try await recorder.next("leave") { $0 == .titleChanged("Next") }
        #expect(engine.title == "Next")
    }
}
