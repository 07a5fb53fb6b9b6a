import Foundation
import HybridCore
import HybridTesting
import Testing

/// The engine contract (``ContractEngine``) over the fake driver: what every engine honours,
/// tested once here (the end-to-end suites check the real drivers on both engines).
@Suite("Engine contract (fake driver)")
@MainActor
struct EngineContractTests {
    /// A delegate that answers what the test tells it and keeps what it was asked.
    final class Delegate: WebEngineDelegate {
        var actionPolicy: NavigationActionPolicy = .allow
        var responsePolicy: NavigationResponsePolicy?
        var asked: [NavigationAction] = []
        var dialogs: [ScriptDialogCompletion] = []
        var keepsDialogs = true
        var closeRequests = 0
        func engine(_ engine: any WebEngine, decidePolicyFor action: NavigationAction) async -> NavigationActionPolicy {
            asked.append(action)
            return actionPolicy
        }
        func engine(_ engine: any WebEngine, decidePolicyFor response: NavigationResponse) async -> NavigationResponsePolicy {
            responsePolicy ?? (response.canShowMIMEType ? .allow : .cancel)
        }
        func engine(_ engine: any WebEngine, runScriptDialog completion: ScriptDialogCompletion) {
            if keepsDialogs { dialogs.append(completion) }
        }
        func engineRequestsClose(_ engine: any WebEngine) { closeRequests += 1 }
    }

    static let page = URL(string: "https://app.example.com/index.html")!

    func make(_ capabilities: EngineCapabilities = [.scriptWorlds, .messageReplies],
              handlers: [ScriptMessageHandler] = []) -> (ContractEngine<FakeEngineDriver>, FakeEngineDriver) {
        let engine = FakeEngineProvider(capabilities: capabilities).makeFakeEngine(EngineConfiguration(messageHandlers: handlers))
        return (engine, engine.driver)
    }

    /// Starts a script call that the fake holds, and returns the task awaiting it.
    func pendingCall(_ engine: ContractEngine<FakeEngineDriver>, _ script: String) -> Task<Result<JSONValue, HybridError>, Never> {
        Task { @MainActor in
            do { return .success(try await engine.evaluate(script)) } catch let error as HybridError { return .failure(error) } catch {
                return .failure(.engine(.native(domain: "test", code: 0, message: "\(error)")))
            }
        }
    }

    func settled(_ engine: ContractEngine<FakeEngineDriver>, calls count: Int) async {
        #expect(await eventually(.seconds(5)) { engine.driver.heldCallCount >= count }, "\(count) calls held by the fake")
    }

    static let genericFailure = HybridError.engine(.native(domain: "WebKitJavascriptError", code: 500, message: "load interrupted"))

    // MARK: Pending calls fail exactly once

    @Test func pendingCallsFailExactlyOnceWhenTheViewCloses() async throws {
        let (engine, fake) = make()
        fake.holdsScriptCalls = true
        let calls = [pendingCall(engine, "a"), pendingCall(engine, "b")]
        let snapshot = Task { @MainActor in (try? await engine.snapshot()) == nil }
        await settled(engine, calls: 3)
        #expect(engine.pendingCallCount == 3)
        engine.close()
        for call in calls { #expect(await call.value == .failure(.engine(.closed))) }
        #expect(await snapshot.value)
        // The engine's late answer finds nothing to settle (a second resume would trap).
        fake.settleScriptCalls(with: .success(.string("late")))
        #expect(engine.pendingCallCount == 0)
        #expect(fake.calls.last == "teardown")
    }

    @Test func aDeathBeforeTheEnginesOwnFailureFailsEachCallOnceWithTheReason() async throws {
        let (engine, fake) = make()
        fake.holdsScriptCalls = true
        let call = pendingCall(engine, "wait()")
        await settled(engine, calls: 1)
        fake.terminate(.crashed)
        fake.settleScriptCalls(with: .failure(Self.genericFailure))
        #expect(await call.value == .failure(.engine(.contentProcessTerminated(.crashed))))
        #expect(engine.pendingCallCount == 0)
    }

    @Test func anEngineFailureWaitsTheGraceSoADeathReportedJustAfterGivesTheReason() async throws {
        let (engine, fake) = make()
        fake.holdsScriptCalls = true
        let call = pendingCall(engine, "wait()")
        await settled(engine, calls: 1)
        // WebKit fails a dying page's calls first, then reports the termination.
        fake.settleScriptCalls(with: .failure(Self.genericFailure))
        fake.terminate(.exceededMemoryLimit)
        #expect(await call.value == .failure(.engine(.contentProcessTerminated(.exceededMemoryLimit))))
    }

    @Test func anEngineFailureWithNoDeathReachesTheCallerAfterTheGrace() async throws {
        let (engine, fake) = make()
        fake.holdsScriptCalls = true
        let started = Date()
        let call = pendingCall(engine, "throw 1")
        await settled(engine, calls: 1)
        fake.settleScriptCalls(with: .failure(HybridError.engine(.javaScript(message: "1"))))
        #expect(await call.value == .failure(.engine(.javaScript(message: "1"))))
        #expect(Date().timeIntervalSince(started) >= EngineHeuristics.terminationGrace)
    }

    @Test func closingADeadViewOrKillingAClosedOneFailsNothingTwice() async throws {
        let (engine, fake) = make()
        fake.holdsScriptCalls = true
        var events: [EngineEvent] = []
        let token = engine.observe { events.append($0) }
        let call = pendingCall(engine, "wait()")
        await settled(engine, calls: 1)
        fake.terminate(.crashed)
        fake.terminate(.crashed)  // a second report of the same death is not a second death
        engine.close()
        fake.terminate(.crashed)  // nothing after close
        #expect(await call.value == .failure(.engine(.contentProcessTerminated(.crashed))))
        #expect(events == [.contentProcessTerminated(.crashed)])
        token.cancel()
    }

    @Test func aClosedOrDeadViewRefusesScriptsAndALoadRevivesIt() async throws {
        let (engine, fake) = make()
        fake.terminate(.crashed)
        #expect(!engine.isAlive)
        await #expect(throws: HybridError.engine(.contentProcessTerminated(.crashed))) { try await engine.evaluate("1") }
        engine.terminateContentProcess()  // already dead: not asked again
        #expect(!fake.calls.contains("terminate"))
        engine.reload()
        #expect(engine.isAlive)
        fake.results["1"] = 1
        #expect(try await engine.evaluate("1") == 1)
        engine.close()
        await #expect(throws: HybridError.engine(.closed)) { try await engine.evaluate("1") }
        engine.load(Self.page)
        engine.goBack()
        #expect(fake.calls == ["reload", "teardown"])
        #expect(engine.url == nil && engine.backForwardList == BackForwardList())
    }

    // MARK: Dialogs complete exactly once

    @Test func aDialogOpenWhenTheViewClosesGetsItsSafeDefaultOnce() async throws {
        let (engine, fake) = make()
        let delegate = Delegate()
        engine.delegate = delegate
        fake.url = Self.page
        var answers: [ScriptDialogResult] = []
        fake.openDialog(ScriptDialog(kind: .confirm, message: "Leave?")) { answers.append($0) }
        let completion = try #require(delegate.dialogs.first)
        #expect(completion.dialog.pageURL == Self.page)  // filled in by the contract
        #expect(answers.isEmpty)
        engine.close()
        #expect(answers == [.cancelled])
        #expect(!completion.complete(.accepted()))  // the app's late answer is ignored
        #expect(answers == [.cancelled])
    }

    @Test func aDialogOpenWhenTheProcessDiesGetsItsSafeDefaultOnce() async throws {
        let (engine, fake) = make()
        let delegate = Delegate()
        engine.delegate = delegate
        var answers: [ScriptDialogResult] = []
        fake.openDialog(ScriptDialog(kind: .prompt, message: "Name?", defaultText: "x")) { answers.append($0) }
        var answeredAtTermination: [ScriptDialogResult]?
        let token = engine.observe { if case .contentProcessTerminated = $0 { answeredAtTermination = answers } }
        fake.terminate(.crashed)
        #expect(answeredAtTermination == [.cancelled])  // answered before the event
        delegate.dialogs.first?.complete(.accepted(text: "late"))
        engine.close()
        #expect(answers == [.cancelled])
        token.cancel()
    }

    @Test func dialogsNobodyAnswersGetTheirSafeDefault() async throws {
        let (engine, fake) = make()
        var answers: [ScriptDialogResult] = []
        for kind in [ScriptDialog.Kind.alert, .confirm, .prompt, .beforeUnload] {
            fake.openDialog(ScriptDialog(kind: kind, message: "?")) { answers.append($0) }
        }
        #expect(answers == [.accepted(), .cancelled, .cancelled, .accepted()])  // no delegate
        let delegate = Delegate()
        delegate.keepsDialogs = false  // a delegate that drops the dialog
        engine.delegate = delegate
        fake.openDialog(ScriptDialog(kind: .confirm, message: "?")) { answers.append($0) }
        #expect(answers.last == .cancelled && answers.count == 5)
        fake.terminate(.crashed)
        fake.openDialog(ScriptDialog(kind: .alert, message: "from a dead page")) { answers.append($0) }
        #expect(answers.count == 6 && delegate.dialogs.isEmpty)
    }

    // MARK: Default answers, windows and redirects

    @Test func withoutADelegateNavigationsGoAheadAndOnlyRenderableResponsesShow() async throws {
        let (engine, fake) = make()
        #expect(await fake.requestNavigation(to: Self.page) == .proceed)
        func response(_ canShow: Bool) -> NavigationResponse {
            NavigationResponse(url: Self.page, statusCode: 200, mimeType: canShow ? "text/html" : "application/zip", headers: [],
                               isMainFrame: true, canShowMIMEType: canShow)
        }
        #expect(await fake.deliverResponse(response(true)) == .allow)
        #expect(await fake.deliverResponse(response(false)) == .cancel)
        withExtendedLifetime(engine) {}
    }

    @Test func aDownloadGoesOnlyToAnEngineThatHasDownloads() async throws {
        let response = NavigationResponse(url: Self.page, statusCode: 200, mimeType: "application/zip", headers: [],
                                          isMainFrame: true, canShowMIMEType: false)
        let delegate = Delegate()
        delegate.responsePolicy = .download
        let (without, fakeWithout) = make()
        without.delegate = delegate
        #expect(await fakeWithout.deliverResponse(response) == .cancel)
        let (capable, capableFake) = make([.downloads])
        capable.delegate = delegate
        #expect(await capableFake.deliverResponse(response) == .download)
    }

    @Test func theEngineNeverOpensAWindowItself() async throws {
        let (engine, fake) = make()
        let delegate = Delegate()
        engine.delegate = delegate
        let popup = NavigationAction(request: EngineRequest(url: Self.page), type: .other, isMainFrame: true, targetsNewWindow: true)
        #expect(await fake.requestNavigation(popup) == .ignore)  // allowed, and still no window
        #expect(delegate.asked.map(\.targetsNewWindow) == [true])
        fake.announceNavigation(popup)
        #expect(await eventually(.seconds(5)) { delegate.asked.count >= 2 })
        #expect(delegate.asked.count == 2)  // told, gesture or not
        #expect(fake.calls.isEmpty)
    }

    @Test func aRedirectIsACancelAndALoadOfTheNewRequest() async throws {
        let (engine, fake) = make()
        let delegate = Delegate()
        engine.delegate = delegate
        let target = URL(string: "https://app.example.com/signed-in")!
        delegate.actionPolicy = .redirect(to: target, headers: ["X-Token": "t", "Accept-Language": "en"])
        #expect(await fake.requestNavigation(to: Self.page) == .ignore)
        #expect(fake.calls == ["load \(target.absoluteString)"])
        // To the same URL, only an engine that amends requests goes on with the headers.
        delegate.actionPolicy = .redirect(to: Self.page, headers: ["X-Token": "t"])
        #expect(await fake.requestNavigation(to: Self.page) == .ignore)
        #expect(fake.calls.last == "load \(Self.page.absoluteString)")
        let (amending, amendingFake) = make([.amendsNavigationRequests])
        amending.delegate = delegate
        #expect(await amendingFake.requestNavigation(to: Self.page) == .proceedAddingHeaders(["X-Token": "t"]))
        #expect(amendingFake.calls.isEmpty)
    }

    @Test func anAnnouncedNavigationThatTheDelegateRedirectsIsLoaded() async throws {
        let (engine, fake) = make()
        let delegate = Delegate()
        engine.delegate = delegate
        let target = URL(string: "https://app.example.com/handled")!
        delegate.actionPolicy = .redirect(to: target, headers: [:])
        fake.announceNavigation(NavigationAction(request: EngineRequest(url: URL(string: "tel:123")!), type: .linkActivated, isMainFrame: true))
        #expect(await eventually(.seconds(5)) { !fake.calls.isEmpty })
        #expect(fake.calls == ["load \(target.absoluteString)"])
    }

    @Test func aClosedViewAsksItsDelegateNothing() async throws {
        let (engine, fake) = make()
        let delegate = Delegate()
        engine.delegate = delegate
        engine.close()
        #expect(await fake.requestNavigation(to: Self.page) == .ignore)
        fake.requestClose()
        #expect(delegate.asked.isEmpty && delegate.closeRequests == 0)
    }

    // MARK: Messages and event order

    @Test func messagesReachTheirHandlerAndADeadPageIsRefused() async throws {
        let handlers = [
            ScriptMessageHandler(name: "now", answer: { message in .now(.string(message.body == .string("a") ? "now:a" : "?")) }),
            ScriptMessageHandler(name: "later", reply: { _ in .json("[1]") }),
        ]
        let (engine, fake) = make(handlers: handlers)
        #expect(await fake.post(.string("a"), to: "now") == .string("now:a"))
        #expect(await fake.post(.json("{}"), to: "later") == .json("[1]"))
        #expect(await fake.post(.string("?"), to: "missing") == .error("no handler for missing"))
        fake.terminate(.crashed)
        #expect(await fake.post(.string("a"), to: "now") == .error("no handler for now"))
        withExtendedLifetime(engine) {}
    }

    @Test func observersHearEventsInOrderAndNothingAfterClose() async throws {
        let (engine, fake) = make()
        var first: [EngineEvent] = [], second: [EngineEvent] = []
        var order: [Int] = []
        let a = engine.observe { first.append($0); order.append(1) }
        let b = engine.observe { second.append($0); order.append(2) }
        fake.runLoad(Self.page, title: "Home")
        let expected: [EngineEvent] = [.loadStarted(Self.page), .progressChanged(0.5), .loadCommitted(Self.page),
                                       .loadFinished(Self.page), .titleChanged("Home")]
        #expect(first == expected && second == expected)
        #expect(order == [1, 2, 1, 2, 1, 2, 1, 2, 1, 2])
        engine.close()
        fake.runLoad(Self.page)
        #expect(first.count == expected.count)
        a.cancel()
        b.cancel()
    }

    @Test func aDeathIsReportedAfterItsCallsFailedAndItsDialogsWereAnswered() async throws {
        let (engine, fake) = make()
        fake.holdsScriptCalls = true
        let delegate = Delegate()
        engine.delegate = delegate
        let call = pendingCall(engine, "wait()")
        await settled(engine, calls: 1)
        var answered = false
        fake.openDialog(ScriptDialog(kind: .alert, message: "!")) { _ in answered = true }
        var seen: (pending: Int, answered: Bool)?
        let token = engine.observe { event in
            if case .contentProcessTerminated = event { seen = (engine.pendingCallCount, answered) }
        }
        fake.terminate(.terminatedByClient)
        #expect(seen?.pending == 0 && seen?.answered == true)
        #expect(await call.value == .failure(.engine(.contentProcessTerminated(.terminatedByClient))))
        token.cancel()
    }
}
