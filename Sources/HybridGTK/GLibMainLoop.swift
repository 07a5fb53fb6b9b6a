import CHybridGTK
import CWebKitGTK
import Dispatch
import Foundation
import HybridCore

/// Runs Swift's MainActor and the GLib main loop (where WebKitGTK lives) on one main thread.
///
/// On Linux the MainActor is libdispatch's main queue, which GLib never drains by itself.
/// Two ways to join them (see ARCHITECTURE.md, "Main loop and Swift concurrency"):
/// - ``run(_:)`` — GLib owns the main thread (the CLI): a GLib source watches libdispatch's
///   main-queue eventfd and drains the queue. No added latency.
/// - ``startPumpingFromDispatch()`` — dispatch owns the main thread (`swift test`): a main-queue
///   timer iterates the GLib context. Adds up to a timer period per hop, so benchmarks use ``run(_:)``.
public enum GLibMainLoop {
    nonisolated(unsafe) private static var initialized = false
    nonisolated(unsafe) private static var pumpTimer: (any DispatchSourceTimer)?

    /// Initialises GTK once, on the main thread. Safe to call again.
    /// - Throws: `HybridError.engine(.unavailable)` when no display can be opened.
    @MainActor
    public static func bootstrap() throws {
        guard !initialized else { return }
        // A pipe whose reader left (a cancelled scheme stream) must not kill the app.
        signal(SIGPIPE, SIG_IGN)
        guard hk_display_name() != nil else {
            throw HybridError.engine(.unavailable("no display: set DISPLAY or run under xvfb-run -a"))
        }
        guard gtk_init_check() != 0 else {
            throw HybridError.engine(.unavailable("GTK could not open display \(String(cString: hk_display_name()))"))
        }
        initialized = true
    }

    /// Runs `body` on the MainActor inside a GLib main loop that owns this (main) thread, and
    /// returns its result when it finishes. Call from synchronous top-level code only.
    public static func run<T: Sendable>(_ body: @escaping @MainActor @Sendable () async throws -> T) throws -> T {
        precondition(Thread.isMainThread, "GLibMainLoop.run must be called on the main thread")
        let loop = g_main_loop_new(nil, 0)
        defer { g_main_loop_unref(loop) }
        let sourceID = hk_attach_dispatch_main_queue_source(nil)
        defer { g_source_remove(sourceID) }
        let outcome = ResultBox<T>()
        let quit = Unchecked(loop)
        Task { @MainActor in
            do { outcome.result = .success(try await body()) } catch { outcome.result = .failure(error) }
            g_main_loop_quit(quit.value)
        }
        g_main_loop_run(loop)
        guard let result = outcome.result else { throw HybridError.engine(.closed) }
        return try result.get()
    }

    /// Drives GLib from a main-queue timer, for hosts where dispatch owns the main thread
    /// (the Swift test runner). Idempotent.
    @MainActor
    public static func startPumpingFromDispatch(interval: DispatchTimeInterval = .microseconds(500)) {
        guard pumpTimer == nil else { return }
        let timer = DispatchSource.makeTimerSource(queue: .main)
        timer.schedule(deadline: .now(), repeating: interval, leeway: .microseconds(100))
        timer.setEventHandler {
            var budget = 256  // never starve the dispatch queue itself
            while budget > 0, g_main_context_iteration(nil, 0) != 0 { budget -= 1 }
        }
        timer.resume()
        pumpTimer = timer
    }

    /// Iterates the GLib context until `condition` holds or `timeout` passes; returns whether it held.
    /// For synchronous teardown paths only; async code should `await`.
    @MainActor
    public static func iterate(until condition: () -> Bool, timeout: TimeInterval) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while !condition() {
            if Date() >= deadline { return false }
            g_main_context_iteration(nil, 0)
            usleep(200)
        }
        return true
    }
}

private final class ResultBox<T>: @unchecked Sendable {
    var result: Result<T, any Error>?
}
