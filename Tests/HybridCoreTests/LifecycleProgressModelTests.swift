import Foundation
import HybridCore
import Testing

/// The progress model driven by a clock the test controls.
@Suite("Lifecycle: ProgressModel")
struct LifecycleProgressModelTests {
    /// Collects every value a model produced, with the time.
    struct Run {
        var model = ProgressModel()
        var now = 0.0
        var values: [LoadProgress] = []

        mutating func record(_ value: LoadProgress?) { if let value { values.append(value) } }
        mutating func start() { record(model.start(at: now)) }
        mutating func engine(_ fraction: Double) { record(model.engineProgress(fraction, at: now)) }
        mutating func finish() { record(model.finish(at: now)) }
        mutating func fail(cancelled: Bool) { record(model.fail(cancelled: cancelled, at: now)) }
        mutating func advance(_ seconds: Double, step: Double = 0.016) {
            let end = now + seconds
            while now < end {
                now = min(end, now + step)
                record(model.tick(at: now))
            }
        }
        func completions(_ navigation: Int) -> Int { values.filter { $0.navigation == navigation && $0.fraction == 1 }.count }
        func isMonotonic(_ navigation: Int) -> Bool {
            let fractions = values.filter { $0.navigation == navigation }.map(\.fraction)
            return zip(fractions, fractions.dropFirst()).allSatisfy { $0 <= $1 }
        }
    }

    @Test func movesFastToTheVirtualTargetThenWaitsBelowTheCeiling() {
        var run = Run()
        run.start()
        run.advance(1.2)
        let afterFast = run.model.value.fraction
        #expect(afterFast > 0.7 && afterFast < 0.85)
        run.advance(60)
        #expect(run.model.value.fraction < 0.9)
        #expect(run.model.value.fraction > afterFast)
        #expect(!run.model.value.isComplete)
        run.finish()
        run.advance(0.5)
        #expect(run.model.value == LoadProgress(navigation: 1, fraction: 1, isComplete: true))
        #expect(run.completions(1) == 1)
        #expect(run.isMonotonic(1))
        #expect(!run.model.needsTicks)
    }

    @Test func theEngineEstimateRaisesButNeverCompletesTheBar() {
        var run = Run()
        run.start()
        run.engine(0.95)
        #expect(run.model.value.fraction == 0.95)
        run.engine(1.0)
        #expect(run.model.value.fraction == 0.99)
        run.engine(0.3)  // engines restart their estimate after a redirect
        #expect(run.model.value.fraction == 0.99)
        run.advance(1)
        #expect(run.completions(1) == 0)
        run.finish()
        run.advance(0.3)
        #expect(run.completions(1) == 1)
    }

    @Test func aRedirectOrSupersedingLoadContinuesTheNavigation() {
        var run = Run()
        run.start()
        run.advance(0.3)
        let before = run.model.value.fraction
        run.fail(cancelled: true)  // the engine cancels the old load just before the new one starts
        run.advance(0.05)
        run.start()
        #expect(run.model.value.navigation == 1)
        #expect(run.model.value.fraction >= before)
        run.advance(0.5)
        run.finish()
        run.advance(0.5)
        #expect(run.completions(1) == 1)
        #expect(run.isMonotonic(1))
        #expect(run.values.allSatisfy { $0.navigation == 1 })
    }

    @Test func aCancelledLoadWithNoSuccessorCompletesAfterTheGrace() {
        var run = Run()
        run.start()
        run.advance(0.2)
        run.fail(cancelled: true)
        #expect(!run.model.value.isComplete)
        run.advance(0.5)
        #expect(run.completions(1) == 1)
    }

    @Test func failuresCompleteOnceAndLateEventsAreIgnored() {
        var run = Run()
        run.start()
        run.advance(0.1)
        run.fail(cancelled: false)
        run.advance(0.3)
        #expect(run.completions(1) == 1)
        run.finish()
        run.engine(0.5)
        run.fail(cancelled: false)
        run.advance(0.5)
        #expect(run.completions(1) == 1)
        #expect(run.values.last?.navigation == 1)

        // The next navigation starts from zero under a new number.
        run.start()
        #expect(run.model.value == LoadProgress(navigation: 2, fraction: 0, isComplete: false))
        run.finish()
        run.advance(0.3)
        #expect(run.completions(2) == 1)
    }

    @Test func aLoadStartingWhileTheBarRunsOutDoesNotJumpBack() {
        var run = Run()
        run.start()
        run.advance(0.4)
        run.finish()
        run.advance(0.05)
        let midway = run.model.value.fraction
        run.start()
        run.advance(0.1)
        #expect(run.model.value.fraction >= midway)
        run.finish()
        run.advance(0.3)
        #expect(run.completions(1) == 1)
        #expect(run.isMonotonic(1))
    }

    @Test func finishDurationZeroCompletesAtOnce() {
        var run = Run(model: ProgressModel(options: ProgressModel.Options(finishDuration: 0)))
        run.start()
        run.finish()
        #expect(run.model.value.isComplete && run.model.value.fraction == 1)
        #expect(run.completions(1) == 1)
    }
}
