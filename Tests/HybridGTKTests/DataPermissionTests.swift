import Foundation
import HybridCore
import HybridTestSupport
import Testing

/// Camera permission through the container's ``PermissionPolicy`` on the real engines, with their
/// fake capture devices: a listed origin gets a live stream, nothing else does, a remembered
/// answer is not asked again.
@Suite("Data: permissions", .serialized)
@MainActor
struct DataPermissionTests {
    static let page = "<title>cam</title><p>camera page</p>"

    @Test(arguments: EngineKind.allCases)
    func listedOriginGetsALiveCameraStream(_ kind: EngineKind) async throws {
        let rig = try DataRig(kind, pages: ["cam.html": Self.page])
        let policy = PermissionPolicy()
        policy.set(.allow, for: kind.origin("app"), kinds: [.camera])
        let view = try rig.view(permissions: policy)
        try await view.loadAndWait(kind.url("cam.html"))
        let result = try await view.page(DataRig.askCamera)
        await rig.close()
        #expect(result == .string("live"))
        #expect(rig.delegate.permissionQuestions.isEmpty, "an allow rule is not a question")
    }

    @Test(arguments: EngineKind.allCases)
    func unlistedOriginIsDeniedWithoutAsking(_ kind: EngineKind) async throws {
        let rig = try DataRig(kind, pages: ["cam.html": Self.page])
        let policy = PermissionPolicy()
        policy.set(.ask, for: kind.origin("other"), kinds: [.camera])
        rig.delegate.permissionAnswer = .allow
        let view = try rig.view(permissions: policy)
        try await view.loadAndWait(kind.url("cam.html"))
        let result = try await view.page(DataRig.askCamera)
        await rig.close()
        #expect(result == .string("NotAllowedError"))
        #expect(rig.delegate.permissionQuestions.isEmpty)
        #expect(policy.askCount == 0)
    }

    @Test(arguments: EngineKind.allCases)
    func noPolicyDeniesEverything(_ kind: EngineKind) async throws {
        let rig = try DataRig(kind, pages: ["cam.html": Self.page])
        rig.delegate.permissionAnswer = .allow
        let view = try rig.view(permissions: nil)
        try await view.loadAndWait(kind.url("cam.html"))
        let result = try await view.page(DataRig.askCamera)
        await rig.close()
        #expect(result == .string("NotAllowedError"))
        #expect(rig.delegate.permissionQuestions.isEmpty)
    }

    @Test(arguments: EngineKind.allCases)
    func rememberedAnswerIsNotAskedAgain(_ kind: EngineKind) async throws {
        try kind.require(.permissionPrompts)
        let rig = try DataRig(kind, pages: ["cam.html": Self.page])
        let policy = PermissionPolicy(memory: .session)
        policy.set(.ask, for: kind.origin("app"), kinds: [.camera])
        rig.delegate.permissionAnswer = .allow
        let view = try rig.view(permissions: policy)
        try await view.loadAndWait(kind.url("cam.html"))
        let first = try await view.page(DataRig.askCamera)
        let second = try await view.page(DataRig.askCamera)
        try await view.loadAndWait(kind.url("cam.html"))
        let afterReload = try await view.page(DataRig.askCamera)
        await rig.close()
        #expect([first, second, afterReload] == [.string("live"), .string("live"), .string("live")])
        #expect(rig.delegate.permissionQuestions.count == 1)
        #expect(rig.delegate.permissionQuestions.first?.origin.description == kind.origin("app"))
        #expect(rig.delegate.permissionQuestions.first?.kinds == [.camera])
    }

    @Test(arguments: EngineKind.allCases)
    func rememberedDenialIsNotAskedAgain(_ kind: EngineKind) async throws {
        try kind.require(.permissionPrompts)
        let rig = try DataRig(kind, pages: ["cam.html": Self.page])
        let policy = PermissionPolicy(memory: .session)
        policy.set(.ask, for: kind.origin("app"), kinds: [.camera])
        rig.delegate.permissionAnswer = .deny
        let view = try rig.view(permissions: policy)
        try await view.loadAndWait(kind.url("cam.html"))
        let first = try await view.page(DataRig.askCamera)
        rig.delegate.permissionAnswer = .allow
        let second = try await view.page(DataRig.askCamera)
        await rig.close()
        #expect([first, second] == [.string("NotAllowedError"), .string("NotAllowedError")])
        #expect(rig.delegate.permissionQuestions.count == 1)
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
