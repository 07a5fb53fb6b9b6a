import Foundation
import HybridCore
import HybridServer
import HybridFixtures
import Testing

@Suite("Lifecycle: dialogs", .serialized)
@MainActor
struct LifecycleDialogTests {
    @Test(arguments: EngineKind.allCases)
    func dialogsReachTheDelegateWithThePageTitleAndURL(_ kind: EngineKind) async throws {
        let rig = try LifecycleRig(kind)
        defer { rig.close() }
        rig.page("/dialogs", "<title>Asking page</title><p>asks</p>")
        let view = try rig.view()
        let delegate = LifecycleDelegate()
        delegate.answer = { dialog in dialog.kind == .prompt ? .accepted(text: "typed") : .accepted() }
        view.delegate = delegate
        try await view.loadAndWait(rig.url("/dialogs"))
        #expect(try await view.engine.evaluate("confirm('sure?')") == true)
        #expect(try await view.engine.evaluate("prompt('name?', 'x')") == "typed")

        delegate.answer = nil
        _ = try await view.engine.evaluate("setTimeout(() => { window.answer = confirm('again?'); }, 0); 0")
        try await eventually("the dialog") { delegate.dialogs.count == 1 }
        let dialog = try #require(delegate.dialogs.first)
        #expect(dialog.dialog.pageTitle == "Asking page")
        #expect(dialog.dialog.pageURL == rig.url("/dialogs"))
        #expect(dialog.dialog.message == "again?")
        #expect(dialog.complete(.accepted()))
        #expect(!dialog.complete(.cancelled))  // exactly once
        try await view.engine.waitUntil("window.answer === true")
    }

    @Test(arguments: EngineKind.allCases)
    func hiddenTransitionClosedAndDestroyedViewsAnswerWithSafeDefaults(_ kind: EngineKind) async throws {
        let rig = try LifecycleRig(kind)
        defer { rig.close() }
        rig.page("/dialogs", "<title>Asking page</title><p>asks</p>")
        let delegate = LifecycleDelegate()

        // Hidden: the delegate never sees it; confirm is false at once.
        let view = try rig.view()
        view.delegate = delegate
        try await view.loadAndWait(rig.url("/dialogs"))
        view.setVisible(false)
        #expect(try await view.engine.evaluate("confirm('hidden?')") == false)
        #expect(try await view.engine.evaluate("prompt('hidden?')") == .null)
        #expect(delegate.dialogs.isEmpty)
        view.setVisible(true)

        // Open when a transition starts: answered with the safe default, the page goes on.
        _ = try await view.engine.evaluate("setTimeout(() => { window.t = confirm('moving?'); }, 0); 0")
        try await eventually("the dialog") { delegate.dialogs.count == 1 }
        view.isInTransition = true
        try await view.engine.waitUntil("window.t === false")
        #expect(delegate.dialogs[0].isCompleted)
        #expect(!delegate.dialogs[0].complete(.accepted()))
        view.isInTransition = false

        // Open when the view is hidden, then when it is closed.
        _ = try await view.engine.evaluate("setTimeout(() => { window.h = confirm('hide?'); }, 0); 0")
        try await eventually("the second dialog") { delegate.dialogs.count == 2 }
        view.setVisible(false)
        try await view.engine.waitUntil("window.h === false")
        view.setVisible(true)
        _ = try await view.engine.evaluate("setTimeout(() => { alert('closing'); }, 0); 0")
        try await eventually("the third dialog") { delegate.dialogs.count == 3 }
        view.close()
        #expect(delegate.dialogs[2].isCompleted)

        // Destroyed: the last reference goes while a dialog is open.
        var doomed: HybridWebView? = try HybridWebView(provider: rig.provider)
        doomed?.delegate = delegate
        try await doomed?.loadAndWait(rig.url("/dialogs"))
        _ = try await doomed?.engine.evaluate("setTimeout(() => { confirm('gone?'); }, 0); 0")
        try await eventually("the fourth dialog") { delegate.dialogs.count == 4 }
        doomed = nil
        try await eventually("the destroyed view's dialog answered") { delegate.dialogs[3].isCompleted }
    }
}
