import Foundation

/// Waits until `condition` holds, checking it again every few milliseconds (the engine, the
/// server and the main loop run meanwhile), and throws ``TimeoutError`` once `timeout` seconds
/// have passed without it.
///
/// The suites' one way to wait for a state that no event announces. Where an event does
/// (a load finishing, a title changing), await it with ``EventRecorder`` instead. The deadline
/// is a bound on a hung test, never a measurement: nothing may be asserted about how long the
/// wait took.
/// - Parameters:
///   - what: what the test waits for, for the timeout's message.
///   - timeout: seconds before giving up.
///   - condition: checked on the caller's actor, first at once.
/// - Throws: ``TimeoutError``, or what `condition` throws.
nonisolated(nonsending) public func eventually(_ what: String, timeout: Double = 15, _ condition: () async throws -> Bool) async throws {
    let deadline = ContinuousClock.now + .milliseconds(Int(timeout * 1000))
    while try await !condition() {
        if ContinuousClock.now > deadline { throw TimeoutError(what: what, seconds: timeout) }
        try await Task.sleep(for: .milliseconds(5))
    }
}
