import Foundation
import HybridCore
import HybridServer
import HybridFixtures
import Testing

/// Camera permission through the container's ``PermissionPolicy`` on the real engines, with their
/// fake capture devices: a listed origin gets a live stream, nothing else does, a remembered
/// answer is not asked again.
@Suite("Data: permissions", .serialized)
@MainActor
struct DataPermissionTests {
    static let page = "<title>cam</title><p>camera page</p>"

    /// Loads the camera page on `kind` under `policy` (the delegate answers `answer` when asked)
    /// and asks for the camera `times` times, the page loaded anew before each; returns the
    /// results and the rig (closed).
    static func cameraResults(_ kind: EngineKind, _ policy: PermissionPolicy?, answer: PermissionDecision = .allow,
                              times: Int = 1) async throws -> ([JSONValue], DataRig) {
        let rig = try DataRig(kind, pages: ["cam.html": page])
        rig.delegate.permissionAnswer = answer
        let view = try rig.view(permissions: policy)
        var results: [JSONValue] = []
        for _ in 0..<times {
            try await view.loadAndWait(kind.url("cam.html"))
            results.append(try await view.page(DataRig.askCamera))
        }
        await rig.close()
        return (results, rig)
    }

    @Test(arguments: EngineKind.allCases)
    func listedOriginGetsALiveCameraStream(_ kind: EngineKind) async throws {
        let policy = PermissionPolicy()
        policy.set(.allow, for: kind.origin("app"), kinds: [.camera])
        let (results, rig) = try await Self.cameraResults(kind, policy)
        #expect(results == [.string("live")])
        #expect(rig.delegate.permissionQuestions.isEmpty, "an allow rule is not a question")
    }

    @Test(arguments: EngineKind.allCases)
    func unlistedOriginIsDeniedWithoutAsking(_ kind: EngineKind) async throws {
        let policy = PermissionPolicy()
        policy.set(.ask, for: kind.origin("other"), kinds: [.camera])
        let (results, rig) = try await Self.cameraResults(kind, policy)
        #expect(results == [.string("NotAllowedError")])
        #expect(rig.delegate.permissionQuestions.isEmpty)
        #expect(policy.askCount == 0)
    }

    @Test(arguments: EngineKind.allCases)
    func noPolicyDeniesEverything(_ kind: EngineKind) async throws {
        let (results, rig) = try await Self.cameraResults(kind, nil)
        #expect(results == [.string("NotAllowedError")])
        #expect(rig.delegate.permissionQuestions.isEmpty)
    }

    /// Asked once, then remembered for the session across documents.
    @Test(arguments: EngineKind.allCases)
    func rememberedAnswerIsNotAskedAgain(_ kind: EngineKind) async throws {
        try kind.require(.permissionPrompts)
        let policy = PermissionPolicy(memory: .session)
        policy.set(.ask, for: kind.origin("app"), kinds: [.camera])
        let (results, rig) = try await Self.cameraResults(kind, policy, answer: .allow, times: 3)
        #expect(results == [.string("live"), .string("live"), .string("live")])
        #expect(rig.delegate.permissionQuestions.count == 1)
        #expect(rig.delegate.permissionQuestions.first?.origin.description == kind.origin("app"))
        #expect(rig.delegate.permissionQuestions.first?.kinds == [.camera])
    }

    @Test(arguments: EngineKind.allCases)
    func rememberedDenialIsNotAskedAgain(_ kind: EngineKind) async throws {
        try kind.require(.permissionPrompts)
        let policy = PermissionPolicy(memory: .session)
        policy.set(.ask, for: kind.origin("app"), kinds: [.camera])
        let (results, rig) = try await Self.cameraResults(kind, policy, answer: .deny, times: 2)
        #expect(results == [.string("NotAllowedError"), .string("NotAllowedError")])
        #expect(rig.delegate.permissionQuestions.count == 1)
    }

    /// With memory off, every request is a question.
    @Test(arguments: EngineKind.allCases)
    func withoutMemoryEachRequestIsAsked(_ kind: EngineKind) async throws {
        try kind.require(.permissionPrompts)
        let policy = PermissionPolicy(memory: .none)
        policy.set(.ask, for: kind.origin("app"), kinds: [.camera])
        let (results, rig) = try await Self.cameraResults(kind, policy, answer: .allow, times: 2)
        #expect(results == [.string("live"), .string("live")])
        #expect(rig.delegate.permissionQuestions.count == 2)
    }

    /// Notifications: `Notification.requestPermission()` resolves as the policy says, from two
    /// loopback origins (one listed, one not).
    @Test(arguments: EngineKind.allCases)
    func notificationsFollowThePolicy(_ kind: EngineKind) async throws {
        try kind.skipKnownBug(on: .webkit, "WebKitGTK 2.50 emits no permission-request for Notification.requestPermission() "
            + "(custom scheme or loopback http): the page gets 'denied' unasked; the adapter does not yet hand the policy's "
            + "grants to webkit_web_context_initialize_notification_permissions")
        let rig = try DataRig(kind, pages: [:])
        let server = try LoopbackServer()
        rig.servers.append(server)
        server.route("/n.html") { _ in .html("<title>n</title>") }
        let policy = PermissionPolicy()
        policy.set(.allow, for: BridgeOrigin(url: server.url("/"))!.description, kinds: [.notifications])
        let view = try rig.view(permissions: policy)
        try await view.loadAndWait(server.url("/n.html"))
        let listed = try await view.page("return await Notification.requestPermission();")
        try await view.loadAndWait(server.url("/n.html", host: "localhost"))
        let unlisted = try await view.page("return await Notification.requestPermission();")
        await rig.close()
        #expect(listed == .string("granted"))
        #expect(unlisted != .string("granted"))
        #expect(rig.delegate.permissionQuestions.isEmpty)
    }

    /// Position: an unlisted origin gets PERMISSION_DENIED (1); a listed one gets past the
    /// permission (no position source here, so 2 or a timeout, 3, or a position).
    @Test(arguments: EngineKind.allCases)
    func geolocationFollowsThePolicy(_ kind: EngineKind) async throws {
        let policy = PermissionPolicy()
        policy.set(.allow, for: kind.origin("app"), kinds: [.geolocation])
        let rig = try DataRig(kind, pages: ["g.html": Self.page])
        let view = try rig.view(permissions: policy)
        let locate = """
            return await new Promise(r => navigator.geolocation.getCurrentPosition(
              () => r(0), e => r(e.code), {timeout: 3000}));
            """
        try await view.loadAndWait(kind.url("g.html"))
        let listed = try await view.page(locate)
        try await view.loadAndWait(kind.url("g.html", host: "other"))
        let unlisted = try await view.page(locate)
        await rig.close()
        #expect(listed != .number(1))
        #expect(unlisted == .number(1))
    }

    /// A third-party iframe (not delegated the camera by `allow=`) on a page that may use the camera.
    @Test(arguments: EngineKind.allCases)
    func foreignIframeIsDenied(_ kind: EngineKind) async throws {
        let frame = kind.url("frame.html", host: "ads")
        let rig = try DataRig(kind, pages: [
            // The frame reports through a message to its parent: it cannot be read across origins.
            "cam.html": """
                <title>cam</title>
                <script>window.frameResult = new Promise(r => addEventListener('message', e => r(e.data)));</script>
                <iframe src='\(frame.absoluteString)'></iframe>
                """,
            "frame.html": """
                <script>
                navigator.mediaDevices.getUserMedia({video: true})
                  .then(() => parent.postMessage('live', '*'), e => parent.postMessage(e.name, '*'));
                </script>
                """,
        ])
        let policy = PermissionPolicy()
        policy.set(.allow, for: kind.origin("app"), kinds: [.camera])
        rig.delegate.permissionAnswer = .allow
        let view = try rig.view(permissions: policy)
        try await view.loadAndWait(kind.url("cam.html"))
        let result = try await view.page("return await window.frameResult;")
        let own = try await view.page(DataRig.askCamera)
        await rig.close()
        #expect(result == .string("NotAllowedError"))
        #expect(own == .string("live"), "the page's own origin still may")
        #expect(rig.delegate.permissionQuestions.isEmpty)
    }
}
