#if os(Linux)  // Chromium over a pipe: Linux only (Apple platforms use WKWebView)
import Glibc
import Foundation

/// What a Chromium browser leaves on disk: its profile's singleton lock, socket and cookie
/// (symlinks) and the `org.chromium.Chromium.XXXXXX` directory in the browser's temporary
/// directory that the socket link points to, plus the whole profile when it was temporary.
/// Chromium removes the singleton files itself on a clean exit, never after SIGTERM or SIGKILL.
struct BlinkLeftovers: Sendable {
    /// The `--user-data-dir`.
    let profile: URL
    /// Delete the profile itself (an ephemeral session's temporary profile).
    let profileIsTemporary: Bool

    /// The directory Chromium made for its singleton socket, if the profile links to one.
    var singletonDirectory: URL? {
        let link = profile.appendingPathComponent("SingletonSocket").path
        guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: link) else { return nil }
        let directory = URL(fileURLWithPath: target).deletingLastPathComponent()
        // Only ever a directory Chromium names this way (never a path we did not expect).
        return directory.lastPathComponent.hasPrefix("org.chromium.Chromium.") ? directory : nil
    }

    /// Removes everything listed above. Idempotent; call only once the browser is gone.
    func remove() {
        let files = FileManager.default
        if let directory = singletonDirectory { try? files.removeItem(at: directory) }
        if profileIsTemporary {
            try? files.removeItem(at: profile)
        } else {
            for name in ["SingletonLock", "SingletonSocket", "SingletonCookie"] {
                try? files.removeItem(at: profile.appendingPathComponent(name))
            }
        }
    }
}

/// Browser processes still running. An `atexit` hook ends them when the app exits without
/// shutting its providers down: it closes their command pipes (a clean quit), waits up to two
/// seconds, SIGKILLs what is left and removes their leftovers. (If the app itself is killed, the
/// kernel SIGKILLs the browser through `setpriv --pdeathsig`.)
final class LiveBrowsers: @unchecked Sendable {
    static let shared = LiveBrowsers()
    private let lock = NSLock()
    private var browsers: [pid_t: (leftovers: BlinkLeftovers, quit: @Sendable () -> Void)] = [:]
    private var hooked = false

    func insert(_ pid: pid_t, leftovers: BlinkLeftovers, quit: @escaping @Sendable () -> Void) {
        lock.lock()
        defer { lock.unlock() }
        browsers[pid] = (leftovers, quit)
        if !hooked {
            hooked = true
            atexit { LiveBrowsers.shared.endAll() }
        }
    }

    func remove(_ pid: pid_t) {
        lock.lock()
        browsers[pid] = nil
        lock.unlock()
    }

    func contains(_ pid: pid_t) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        return browsers[pid] != nil
    }

    /// Quits every browser, waiting up to `grace` seconds before SIGKILL, then removes leftovers.
    func endAll(grace: Double = 2) {
        lock.lock()
        let all = browsers
        lock.unlock()
        guard !all.isEmpty else { return }
        for entry in all.values { entry.quit() }
        var running = Set(all.keys)
        let deadline = Date().addingTimeInterval(grace)
        while !running.isEmpty && Date() < deadline {
            for pid in running {
                var status: Int32 = 0
                let reaped = waitpid(pid, &status, WNOHANG)
                // ECHILD: the pipe thread reaped it first.
                if reaped == pid || (reaped < 0 && errno == ECHILD) || !contains(pid) { running.remove(pid) }
            }
            if !running.isEmpty { usleep(20_000) }
        }
        for pid in running {
            kill(-pid, SIGKILL)
            kill(pid, SIGKILL)
            var status: Int32 = 0
            _ = waitpid(pid, &status, 0)
        }
        for entry in all.values { entry.leftovers.remove() }
    }
}
#endif
