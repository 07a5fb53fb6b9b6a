#if canImport(CSoup)
import CSoup
import Foundation

/// A GLib main context and loop owned by one thread. `quit` and `whenRunning` may be called from
/// any thread: they attach an idle source to the context, which GLib wakes up.
final class GLibLoop: @unchecked Sendable {
    let context: OpaquePointer
    private let loop: OpaquePointer

    init() {
        context = g_main_context_new()
        loop = g_main_loop_new(context, 0)
    }

    deinit {
        g_main_loop_unref(loop)
        g_main_context_unref(context)
    }

    /// Runs the loop on the calling thread until ``quit()``.
    func run() { g_main_loop_run(loop) }

    /// Quits the loop from inside it, so a quit that arrives before `run` starts is not lost.
    func quit() {
        invoke { [self] in g_main_loop_quit(self.loop) }
    }

    /// Runs `body` once on the loop's thread as soon as the loop runs.
    func whenRunning(_ body: @escaping @Sendable () -> Void) { invoke(body) }

    private func invoke(_ body: @escaping @Sendable () -> Void) {
        let box = Unmanaged.passRetained(IdleWork(body)).toOpaque()
        let fire: @convention(c) (gpointer?) -> gboolean = { data in
            if let data { Unmanaged<IdleWork>.fromOpaque(data).takeUnretainedValue().body() }
            return 0
        }
        let release: @convention(c) (gpointer?) -> Void = { data in
            if let data { Unmanaged<IdleWork>.fromOpaque(data).release() }
        }
        guard let source = g_idle_source_new() else { return }
        g_source_set_callback(source, fire, box, release)
        g_source_attach(source, context)
        g_source_unref(source)
    }
}

private final class IdleWork {
    let body: @Sendable () -> Void
    init(_ body: @escaping @Sendable () -> Void) { self.body = body }
}
#endif
