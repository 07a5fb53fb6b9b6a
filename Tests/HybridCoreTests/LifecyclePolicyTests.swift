import Foundation
import HybridCore
import Testing

@Suite("Lifecycle: white-screen, back and pool policies")
struct LifecyclePolicyTests {
    @Test func whiteScreensReloadWithBackoffThenShowTheErrorPage() {
        var policy = WhiteScreenPolicy(maximumReloads: 3, window: 30, baseDelay: 0.1, maximumDelay: 0.3)
        #expect(policy.decide(at: 0) == .reload(after: 0.1))
        #expect(policy.decide(at: 1) == .reload(after: 0.2))
        #expect(policy.decide(at: 2) == .reload(after: 0.3))  // capped
        #expect(policy.decide(at: 3) == .showErrorPage)
        #expect(policy.decide(at: 4) == .showErrorPage)  // never a loop
        // Outside the window the count starts over.
        #expect(policy.decide(at: 100) == .reload(after: 0.1))
        #expect(policy.recentCount(at: 100) == 1)
    }

    @Test func theDefaultReloadsOnceAndARetryStartsAfresh() {
        var policy = WhiteScreenPolicy()
        #expect(policy.decide(at: 0) == .reload(after: 0.1))
        #expect(policy.decide(at: 5) == .showErrorPage)
        policy.reset()
        #expect(policy.decide(at: 6) == .reload(after: 0.1))
        #expect(WhiteScreenReason.contentProcessTerminated(.crashed).code == "terminated_crashed")
        #expect(WhiteScreenReason.unresponsive.code == "unresponsive")
    }

    func item(_ path: String) -> HistoryItem { HistoryItem(url: URL(string: "https://m.example.com\(path)")!, title: nil) }

    @Test func theBackButtonGoesBackWhileThereIsHistory() {
        let lenient = BackPolicy(), strict = BackPolicy(treatsSingleEntryAsNone: true)
        let none = BackForwardList(back: [], current: item("/a"))
        let one = BackForwardList(back: [item("/landing")], current: item("/a"))
        let two = BackForwardList(back: [item("/landing"), item("/list")], current: item("/a"))
        let blankOnly = BackForwardList(back: [HistoryItem(url: URL(string: "about:blank")!, title: nil)], current: item("/a"))
        #expect(lenient.decide(none) == .close)
        #expect(lenient.decide(one) == .goBack)
        #expect(lenient.decide(two) == .goBack)
        #expect(lenient.decide(blankOnly) == .close)
        #expect(strict.decide(one) == .close)
        #expect(strict.decide(two) == .goBack)
    }

    @Test func thePoolRetiresWhatCannotBeHandedOutClean() {
        let policy = WebViewPoolPolicy(capacity: 2, maximumReuse: 3)
        let fresh = WebViewPoolPolicy.Candidate(isAlive: true, uses: 1, wasNavigated: false)
        #expect(policy.fate(of: fresh, pooled: 0) == .keep)
        #expect(policy.fate(of: fresh, pooled: 2) == .retire(.poolFull))
        var dead = fresh; dead.isAlive = false
        #expect(policy.fate(of: dead, pooled: 0) == .retire(.dead))
        #expect(!policy.mayHandOut(dead))
        var worn = fresh; worn.uses = 3
        #expect(policy.fate(of: worn, pooled: 0) == .retire(.reuseLimit))
        #expect(!policy.mayHandOut(worn))
        var used = fresh; used.wasNavigated = true
        #expect(policy.fate(of: used, pooled: 0) == .retire(.history))
        #expect(!policy.mayHandOut(used))
        #expect(policy.shortfall(pooled: 1, warming: 0) == 1)
        #expect(policy.shortfall(pooled: 1, warming: 1) == 0)
    }
}
