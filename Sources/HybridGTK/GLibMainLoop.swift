import CHybridGTK
import CWebKitGTK
import Dispatch
import Foundation
import HybridCore

/// Runs Swift's MainActor and the GLib main loop (where WebKitGTK lives) on one main thread.
///
/// On Linux the MainActor is libdispatch's main queue, which GLib never drains by itself.
/// ``run(_:)`` joins them the way the app, the CLI and the end-to-end suite all run: GLib owns
/// the main thread and a GLib source watches libdispatch's main-queue eventfd and drains the
/// queue, so MainActor jobs and WebKit's sources interleave on one thread with no added latency.
/// (Why not under `swift test`: see docs/architecture-notes.md.)
public enum GLibMainLoop {
    nonisolated(unsafe) private static var initialized = false

    /// Initialises GTK once, on the main thread. Safe to call again.
    /// - Throws: `HybridError.engine(.unavailable)` when no display can be opened.
    @MainActor
    public static func bootstrap() throws {
        guard !initialized else { return }
        // A pipe whose reader left (a cancelled scheme stream) must not kill the app.
        signal(SIGPIPE, SIG_IGN)
        // No accessibility bus in headless runs: keep GTK and the web processes from asking for
        // one on every view (it only prints warnings). An app that sets these keeps its values.
        setenv("GTK_A11Y", "none", 0)
        setenv("NO_AT_BRIDGE", "1", 0)
        guard hk_display_name() != nil else {
            throw HybridError.engine(.unavailable("no display: set DISPLAY or run under xvfb-run -a"))
        }
        guard gtk_init_check() != 0 else {
            throw HybridError.engine(.unavailable("GTK could not open display \(String(cString: hk_display_name()))"))
        }
        initialized = true
    }

    /// Unblocks every signal on the calling thread. Call first thing in `main`, before any thread
    /// starts: a parent may hand us a blocked mask (a process spawned from a libdispatch worker
    /// inherits that worker's mask), and then GLib's child watches and WebKit's process launcher
    /// wait forever for a SIGCHLD no thread accepts. Threads inherit the mask of their creator.
    public static func resetSignalMask() {
        var none = sigset_t()
        sigemptyset(&none)
        pthread_sigmask(SIG_SETMASK, &none, nil)
    }

    /// Runs `body` on the MainActor inside a GLib main loop that owns this (main) thread, and
    /// returns its result when it finishes. Call from synchronous top-level code only.
    public static func run<T: Sendable>(_ body: @escaping @MainActor @Sendable () async throws -> T) throws -> T {
        precondition(Thread.isMainThread, "GLibMainLoop.run must be called on the main thread")
        resetSignalMask()
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

}

private final class ResultBox<T>: @unchecked Sendable {
    var result: Result<T, any Error>?
}
