import Foundation
import HybridCore
import HybridTesting
import Testing

/// The data plane's policy without an engine: ``PermissionPolicy``, download file names, and the
/// contract's exactly-once answers over the fake driver.
@Suite("Data plane policy (fake driver)")
@MainActor
struct DataPolicyTests {
    static let app = "https://m.example.com"
    static let other = "https://ads.example.net"

    func request(_ kinds: Set<PermissionKind>, _ origin: String = app) -> PermissionRequest {
        PermissionRequest(kinds: kinds, origin: BridgeOrigin(url: URL(string: origin)!)!)
    }

    // MARK: PermissionPolicy

    @Test func unlistedOriginsAndKindsAreDeniedWithoutAsking() async {
        let policy = PermissionPolicy()
        policy.set(.allow, for: Self.app, kinds: [.camera])
        var asked = 0
        let ask: @MainActor (PermissionRequest) async -> PermissionDecision = { _ in asked += 1; return .allow }
        #expect(await policy.decide(request([.camera], Self.other), ask: ask) == .deny)
        #expect(await policy.decide(request([.microphone]), ask: ask) == .deny)
        #expect(await policy.decide(request([.camera, .microphone]), ask: ask) == .deny, "one unlisted kind denies the request")
        #expect(await policy.decide(request([]), ask: ask) == .deny)
        #expect(await policy.decide(request([.camera]), ask: ask) == .allow)
        #expect(await policy.decide(request([.camera], "http://m.example.com"), ask: ask) == .deny, "another scheme is another origin")
        #expect(asked == 0)
        #expect(policy.askCount == 0)
    }

    @Test func anAskRuleIsAskedOnceAndRemembered() async {
        let policy = PermissionPolicy(memory: .session)
        policy.set(.ask, for: Self.app, kinds: [.camera, .microphone])
        var questions: [PermissionRequest] = []
        let ask: @MainActor (PermissionRequest) async -> PermissionDecision = { questions.append($0); return .allow }
        #expect(await policy.decide(request([.camera]), ask: ask) == .allow)
        #expect(await policy.decide(request([.camera]), ask: ask) == .allow)
        #expect(await policy.decide(request([.camera, .microphone]), ask: ask) == .allow)
        #expect(await policy.decide(request([.camera, .microphone]), ask: ask) == .allow)
        #expect(questions.map(\.kinds) == [[.camera], [.microphone]], "only the kinds still open are asked")
        #expect(policy.grants == [Self.app: [.camera, .microphone]])
    }

    @Test func aRememberedDenialIsNotAskedAgainAndMemoryNoneAsksEachTime() async {
        let remembering = PermissionPolicy(memory: .session)
        let forgetting = PermissionPolicy(memory: .none)
        for policy in [remembering, forgetting] { policy.set(.ask, for: Self.app, kinds: [.geolocation]) }
        var asked = 0
        let ask: @MainActor (PermissionRequest) async -> PermissionDecision = { _ in asked += 1; return .deny }
        for _ in 0..<3 { #expect(await remembering.decide(request([.geolocation]), ask: ask) == .deny) }
        #expect(asked == 1)
        for _ in 0..<3 { #expect(await forgetting.decide(request([.geolocation]), ask: ask) == .deny) }
        #expect(asked == 4)
    }

    @Test func persistentAnswersSurviveANewPolicyUntilForgotten() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("hybridkit-perm-\(UUID().uuidString)/p.json")
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        let first = PermissionPolicy(memory: .persistent(file))
        first.set(.ask, for: Self.app, kinds: [.notifications])
        #expect(await first.decide(request([.notifications])) { _ in .allow } == .allow)
        // The next launch: a new policy, the same rules set again, the same file.
        let second = PermissionPolicy(memory: .persistent(file))
        second.set(.ask, for: Self.app, kinds: [.notifications])
        var asked = 0
        let ask: @MainActor (PermissionRequest) async -> PermissionDecision = { _ in asked += 1; return .deny }
        #expect(await second.decide(request([.notifications]), ask: ask) == .allow)
        #expect(asked == 0)
        second.set(.deny, for: Self.app, kinds: [.notifications])
        #expect(await second.decide(request([.notifications]), ask: ask) == .deny, "a deny rule overrides a remembered grant")
        second.set(.ask, for: Self.app, kinds: [.notifications])
        second.forgetAnswers()
        let third = PermissionPolicy(memory: .persistent(file))
        third.set(.ask, for: Self.app, kinds: [.notifications])
        #expect(await third.decide(request([.notifications]), ask: ask) == .deny)
        #expect(asked == 1, "forgotten answers are asked again")
    }

    @Test func aCorruptPermissionFileIsAnEmptyMemory() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("hybridkit-perm-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data("{not json".utf8).write(to: file)
        let policy = PermissionPolicy(memory: .persistent(file))
        policy.set(.ask, for: Self.app, kinds: [.camera])
        var asked = 0
        #expect(await policy.decide(request([.camera])) { _ in asked += 1; return .deny } == .deny)
        #expect(asked == 1)
    }

    // MARK: File names

    @Test(arguments: [
        ("../../x", "x"), ("..\\..\\evil.exe", "evil.exe"), ("/etc/passwd", "passwd"), ("", "download"), ("..", "download"),
        (".hidden", "hidden"), ("a\u{0}b\u{1F}c.txt", "abc.txt"), ("report.pdf", "report.pdf"), ("C:\\x\\y.txt", "y.txt"),
        ("name. . ", "name"), ("a:b.txt", "ab.txt"),
    ])
    func downloadNamesAreMadeSafe(_ name: String, _ expected: String) {
        #expect(DownloadFilename.sanitized(name) == expected)
        // A directory URL, so the comparison does not depend on whether /tmp/dl exists (Foundation
        // adds the trailing slash to a path it finds to be a directory).
        let directory = URL(fileURLWithPath: "/tmp/dl", isDirectory: true)
        let placed = Download(id: "1", sourceURL: URL(string: "https://x/")!, suggestedFilename: name).destination(in: directory)
        #expect(placed.deletingLastPathComponent().standardizedFileURL == directory.standardizedFileURL)
    }

    @Test func aVeryLongNameIsShortened() {
        #expect(DownloadFilename.sanitized(String(repeating: "a", count: 5000) + ".txt").count <= 200)
    }

    // MARK: Through the contract and the container

    final class Delegate: HybridWebViewDelegate {
        var permissionQuestions = 0
        var held: [CheckedContinuation<Void, Never>] = []
        var holds = false
        var downloadDecision: DownloadDecision = .cancel
        var events: [DownloadEvent] = []
        /// Held calls that have returned their (late) answer after ``release()``.
        var returnedAfterHold = 0
        func hold() async {
            guard holds else { return }
            await withCheckedContinuation { held.append($0) }
            returnedAfterHold += 1
        }
        func release() { held.forEach { $0.resume() }; held.removeAll() }
        func webView(_ webView: HybridWebView, decidePermission request: PermissionRequest) async -> PermissionDecision {
            permissionQuestions += 1
            await hold()
            return .allow
        }
        func webView(_ webView: HybridWebView, decideDownload download: Download) async -> DownloadDecision {
            await hold()
            return downloadDecision
        }
        func webView(_ webView: HybridWebView, download id: String, didChange event: DownloadEvent) { events.append(event) }
        func webView(_ webView: HybridWebView, chooseFiles request: FileChooserRequest) async -> [URL] {
            await hold()
            return [URL(fileURLWithPath: "/tmp/a.txt")]
        }
    }

    func container(_ capabilities: EngineCapabilities = [.scriptWorlds, .messageReplies, .downloads, .permissionPrompts, .fileChoosers],
                   permissions: PermissionPolicy? = nil) throws -> (HybridWebView, FakeEngineDriver, Delegate) {
        let provider = FakeEngineProvider(capabilities: capabilities)
        var configuration = HybridWebViewConfiguration()
        configuration.permissions = permissions
        let view = try HybridWebView(provider: provider, configuration: configuration)
        let delegate = Delegate()
        view.delegate = delegate
        return (view, provider.drivers[0], delegate)
    }

    @Test func theContainerAsksThroughItsPolicy() async throws {
        let policy = PermissionPolicy()
        policy.set(.ask, for: Self.app, kinds: [.camera])
        let (view, fake, delegate) = try container(permissions: policy)
        defer { view.close() }
        #expect(await fake.requestPermission([.camera], from: Self.app) == .allow)
        #expect(await fake.requestPermission([.camera], from: Self.app) == .allow)
        #expect(await fake.requestPermission([.camera], from: Self.other) == .deny)
        #expect(delegate.permissionQuestions == 1)
    }

    @Test func policyGrantsReachTheEngineConfiguration() throws {
        let policy = PermissionPolicy()
        policy.set(.allow, for: Self.app, kinds: [.camera, .microphone])
        policy.set(.ask, for: Self.other, kinds: [.camera])
        let provider = FakeEngineProvider()
        var configuration = HybridWebViewConfiguration()
        configuration.permissions = policy
        let view = try HybridWebView(provider: provider, configuration: configuration)
        defer { view.close() }
        #expect(provider.drivers[0].configuration.permissionGrants == [Self.app: [.camera, .microphone]])
    }

    /// A permission request, a download and a file picker, each held by the delegate.
    func openThreeQuestions(_ fake: FakeEngineDriver, _ delegate: Delegate) async
        -> (Task<PermissionDecision, Never>, Task<DownloadDecision, Never>, Task<[URL], Never>) {
        let permission = Task { await fake.requestPermission([.camera], from: Self.app) }
        let download = Task { await fake.startDownload(Self.download) }
        let files = Task { await fake.openFileChooser(FileChooserRequest()) }
        _ = await eventually { delegate.held.count >= 3 }
        return (permission, download, files)
    }

    static let download = Download(id: "d", sourceURL: URL(string: "https://m.example.com/f")!, suggestedFilename: "f")

    @Test func openQuestionsGetTheirDefaultsExactlyOnceWhenTheViewCloses() async throws {
        let policy = PermissionPolicy()
        policy.set(.ask, for: Self.app)
        let (view, fake, delegate) = try container(permissions: policy)
        delegate.holds = true
        delegate.downloadDecision = .save(to: URL(fileURLWithPath: "/tmp/x"))
        let (permission, download, files) = await openThreeQuestions(fake, delegate)
        #expect(delegate.held.count == 3)
        view.close()
        #expect(await permission.value == .deny)
        #expect(await download.value == .cancel)
        #expect(await files.value == [])
        delegate.release()  // the late answers are ignored
        #expect(await eventually { delegate.returnedAfterHold == 3 }, "the three late answers were given")
        fake.reportDownload("d", .finished(file: URL(fileURLWithPath: "/tmp/x")))
        #expect(delegate.events.isEmpty, "nothing reaches the delegate after close")
    }

    @Test func processDeathAnswersThePagesQuestionsButNotDownloads() async throws {
        let policy = PermissionPolicy()
        policy.set(.ask, for: Self.app)
        let (view, fake, delegate) = try container(permissions: policy)
        defer { view.close() }
        delegate.holds = true
        delegate.downloadDecision = .save(to: URL(fileURLWithPath: "/tmp/x"))
        let (permission, download, files) = await openThreeQuestions(fake, delegate)
        fake.terminate(.crashed)
        #expect(await permission.value == .deny)
        #expect(await files.value == [])
        delegate.release()
        #expect(await download.value == .save(to: URL(fileURLWithPath: "/tmp/x")), "a download outlives the page's process")
        fake.reportDownload("d", .progress(received: 1, expected: 2))
        #expect(delegate.events == [.progress(received: 1, expected: 2)])
    }

    @Test func anEngineWithoutDownloadsCancelsWithoutAsking() async throws {
        let (view, fake, delegate) = try container([.scriptWorlds, .messageReplies])
        defer { view.close() }
        delegate.downloadDecision = .save(to: URL(fileURLWithPath: "/tmp/x"))
        #expect(await fake.startDownload(Self.download) == .cancel)
    }

    @Test func withoutADelegateEverythingGetsItsSafeDefault() async throws {
        let policy = PermissionPolicy()
        policy.set(.allow, for: Self.app)
        let (view, fake, _) = try container(permissions: policy)
        defer { view.close() }
        view.delegate = nil
        #expect(await fake.requestPermission([.camera], from: Self.app) == .allow, "an allow rule needs no delegate")
        #expect(await fake.startDownload(Self.download) == .cancel)
        #expect(await fake.openFileChooser(FileChooserRequest(allowsMultiple: true)) == [])
    }

    @Test func unshowableAndAttachmentResponsesBecomeDownloadsByDefault() {
        let url = URL(string: "https://m.example.com/f")!
        let html = NavigationResponse(url: url, statusCode: 200, mimeType: "text/html", headers: [], isMainFrame: true, canShowMIMEType: true)
        var attachment = html
        attachment.headers = [("Content-Disposition", "attachment; filename=x.html")]
        var unshowable = html
        unshowable.canShowMIMEType = false
        #expect(EngineDefaults.policy(for: html) == .allow)
        #expect(EngineDefaults.policy(for: attachment) == .download)
        #expect(EngineDefaults.policy(for: unshowable) == .download)
        #expect(EngineDefaults.download == .cancel)
        #expect(EngineDefaults.permission == .deny)
    }
}
