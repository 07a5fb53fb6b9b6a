import Foundation
import HybridGTK
import Testing

// The end-to-end suite's entry point: GLib owns the main thread and drains the MainActor, as in
// the app; then Swift Testing runs every suite in this target (arguments as for `swift test`).
GLibMainLoop.resetSignalMask()
signal(SIGPIPE, SIG_IGN)
// A watchdog: a test that waits forever must fail the run, not hold CI until its own limit.
let watchdogMinutes = Double(ProcessInfo.processInfo.environment["HYBRID_TEST_WATCHDOG_MINUTES"] ?? "") ?? 25
Thread.detachNewThread {
    Thread.sleep(forTimeInterval: watchdogMinutes * 60)
    FileHandle.standardError.write(Data("hybrid-engine-tests: still running after \(Int(watchdogMinutes)) minutes; a test is hung. Failing the run.\n".utf8))
    exit(3)
}
atexit { SkipLog.printSummary() }
_ = try GLibMainLoop.run { () async -> Int32 in
    await Testing.__swiftPMEntryPoint(passing: nil) as Never
}
