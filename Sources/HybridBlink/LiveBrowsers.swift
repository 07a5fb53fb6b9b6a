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

/// Browser processes not yet cleaned up. An `atexit` hook ends them when the app exits
/// without shutting its providers down: it closes their command pipes (a clean quit), waits up
/// to two seconds, SIGKILLs what is left and removes their leftovers before the app is gone.
/// (If the app itself is killed, the kernel SIGKILLs the browser through `setpriv --pdeathsig`.)
final class LiveBrowsers: @unchecked Sendable {
    static let shared = LiveBrowsers()
    private let lock = NSLock()
    /// Browsers started and not yet finished (reaped and cleaned up).
    private var browsers: [pid_t: (leftovers: BlinkLeftovers, quit: @Sendable () -> Void)] = [:]
    /// Clean-ups under way (the app must not exit in the middle of one).
    private var cleaning = 0
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

    /// Whether `pid` is a browser not yet finished.
    func contains(_ pid: pid_t) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        return browsers[pid] != nil
    }

    /// Waits for the browser to exit, SIGKILLs what is left of its process group (GPU and
    /// utility processes) while its exited leader still holds the group id, then reaps it.
    /// Returns the wait status (0 when someone else reaped it).
    func reap(_ pid: pid_t) -> Int32 {
        var info = siginfo_t()
        while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) < 0 && errno == EINTR {}
        kill(-pid, SIGKILL)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return status
    }

    /// Removes the leftovers of reaped browser `pid`, once, after its process group is empty
    /// (a dying child could still write into the profile).
    func finish(_ pid: pid_t) {
        lock.lock()
        guard let entry = browsers.removeValue(forKey: pid) else {
            lock.unlock()
            return
        }
        cleaning += 1
        lock.unlock()
        let deadline = Date().addingTimeInterval(2)
        while kill(-pid, 0) == 0 && Date() < deadline { usleep(5_000) }
        entry.leftovers.remove()
        lock.lock()
        cleaning -= 1
        lock.unlock()
    }

    private var idle: Bool {
        lock.lock()
        defer { lock.unlock() }
        return browsers.isEmpty && cleaning == 0
    }

    /// Quits every browser, waits up to `grace` seconds for them to exit and be cleaned up by
    /// their pipe threads, SIGKILLs the rest and cleans them up here.
    func endAll(grace: Double = 2) {
        lock.lock()
        let all = browsers
        lock.unlock()
        for entry in all.values { entry.quit() }
        let deadline = Date().addingTimeInterval(grace)
        while !idle && Date() < deadline { usleep(10_000) }
        lock.lock()
        let left = Array(browsers.keys)
        lock.unlock()
        for pid in left {
            kill(-pid, SIGKILL)
            kill(pid, SIGKILL)
            _ = reap(pid)
            finish(pid)
        }
        let cleanupDeadline = Date().addingTimeInterval(5)
        while !idle && Date() < cleanupDeadline { usleep(10_000) }
    }
}
#endif
