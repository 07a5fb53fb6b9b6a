import Foundation
@testable import HybridBridge
@testable import HybridCore
@testable import HybridNetwork
@testable import HybridBase
@testable import HybridEngine
@testable import HybridHTTP
@testable import HybridHealth
@testable import HybridPackages
import Testing

/// A view's warm-up and pool bookkeeping, as the façade and the pool change it.
@Suite("PoolRecord")
@MainActor
struct PoolRecordTests {
    @Test func theWarmUpDocumentsBlankLoadsAreNotThePagesUntilAPageStarts() {
        var record = PoolRecord()
        #expect(!record.isPlaceholder(URL(string: "about:blank")))   // no warm-up started: blank is a page
        let started = record.beginWarmUp()
        #expect(started && record.isWarmingUp)
        #expect(record.isPlaceholder(nil) && record.isPlaceholder(URL(string: "about:blank")))
        #expect(record.isPlaceholder(URL(string: "data:text/html,")))
        #expect(!record.isPlaceholder(URL(string: "https://m.example.com/")))
        record.navigationBegan()
        #expect(record.hasNavigated && !record.isWarmingUp)
        #expect(!record.isPlaceholder(URL(string: "about:blank")))
    }

    @Test func warmthComesWithALoadAndGoesWithTheProcess() {
        var record = PoolRecord()
        #expect(record.needsWaiting(whileNavigating: false, closed: false))
        #expect(!record.needsWaiting(whileNavigating: false, closed: true))
        let waiters = record.warmedUp()
        #expect(waiters.isEmpty)
        let again = record.beginWarmUp()
        #expect(record.isWarm && !again)   // warm: no second warm-up document
        #expect(!record.needsWaiting(whileNavigating: true, closed: false))
        record.processEnded()
        let cold = record.beginWarmUp()
        #expect(!record.isWarm && cold)
        record.navigationBegan()
        #expect(!record.needsWaiting(whileNavigating: false, closed: false))   // in use: nobody waits
        #expect(record.needsWaiting(whileNavigating: true, closed: false))
        record.pageLoaded()
        #expect(record.isWarm)
    }

    @Test func usesCountHandOuts() {
        var record = PoolRecord()
        record.handedOut()
        record.handedOut()
        #expect(record.uses == 2)
    }
}
