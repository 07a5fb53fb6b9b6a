#if os(Linux)  // Chromium over a pipe: Linux only (Apple platforms use WKWebView)
import Glibc
import Foundation
import HybridCore

/// One Chromium browser process and its DevTools pipe: NUL-delimited JSON on fds 3 (the
/// browser reads) and 4 (the browser writes), as `--remote-debugging-pipe` expects.
///
/// `Foundation.Process` cannot place descriptors at 3 and 4, so the browser is started with
/// `posix_spawn` and file actions. A dedicated thread does blocking reads and hands parsed
/// messages to `deliver` in batches, in order; writes happen on the caller's thread.
final class BlinkProcess: @unchecked Sendable {
    let pid: pid_t
    private let writeFD: Int32
    private let readFD: Int32
    private let lock = NSLock()
    private var writable = true

    /// Starts `executable` with `arguments`.
    /// - Parameters:
    ///   - environment: variables added to (or replacing) this process's environment for the child.
    ///   - leftovers: what the browser leaves on disk, removed once it was reaped (or at exit).
    ///   - deliver: called on the reader thread with each batch of parsed messages.
    ///   - exited: called once on the reader thread after the pipe closed, the process was reaped
    ///     and its leftovers were removed.
    init(executable: String, arguments: [String], environment: [String: String] = [:], leftovers: BlinkLeftovers,
         deliver: @escaping @Sendable ([JSONValue]) -> Void, exited: @escaping @Sendable (Int32) -> Void) throws {
        var toChild: [Int32] = [0, 0], fromChild: [Int32] = [0, 0]
        guard pipe(&toChild) == 0, pipe(&fromChild) == 0 else {
            throw HybridError.engine(.unavailable("pipe: \(String(cString: strerror(errno)))"))
        }
        // (pipe2 is not exported to Swift; the window before CLOEXEC only matters to a fork elsewhere.)
        for fd in toChild + fromChild { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        // Keep the child's ends away from 3 and 4 so dup2 always copies (and clears CLOEXEC).
        let childRead = fcntl(toChild[0], F_DUPFD_CLOEXEC, 10), childWrite = fcntl(fromChild[1], F_DUPFD_CLOEXEC, 10)
        close(toChild[0]); close(fromChild[1])
        defer { close(childRead); close(childWrite) }
        _ = fcntl(toChild[1], 1031 /* F_SETPIPE_SZ */, 1 << 20)  // fewer blocking writes for 1 MB messages

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        let log = ProcessInfo.processInfo.environment["HYBRID_BLINK_LOG"] ?? "/dev/null"
        posix_spawn_file_actions_addopen(&actions, 1, log, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        posix_spawn_file_actions_adddup2(&actions, childRead, 3)
        posix_spawn_file_actions_adddup2(&actions, childWrite, 4)

        // Its own process group (so close can kill renderers and zygotes with it), default
        // signal dispositions (this process ignores SIGPIPE) and an empty signal mask.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t(), defaults = sigset_t()
        sigemptyset(&empty)
        sigemptyset(&defaults)
        for signal in [SIGPIPE, SIGCHLD, SIGINT, SIGTERM, SIGHUP] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP))

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var variables = ProcessInfo.processInfo.environment
        variables.merge(environment) { $1 }
        let envp = variables.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { envp.forEach { free($0) } }
        var child: pid_t = 0
        let status = posix_spawn(&child, executable, &actions, &attributes, argv, envp)
        guard status == 0 else {
            close(toChild[1]); close(fromChild[0])
            throw HybridError.engine(.unavailable("cannot start \(executable): \(String(cString: strerror(status)))"))
        }
        pid = child
        writeFD = toChild[1]
        readFD = fromChild[0]
        LiveBrowsers.shared.insert(child, leftovers: leftovers) { [weak self] in
            guard let self else { return }
            self.lock.lock()
            self.closeWriteEnd()
            self.lock.unlock()
        }
        let thread = Thread { [readFD, pid] in
            Self.readLoop(readFD, deliver: deliver)
            let status = LiveBrowsers.shared.reap(pid)
            LiveBrowsers.shared.finish(pid)
            close(readFD)
            exited(status)
        }
        thread.name = "hybridkit.blink.pipe"
        thread.start()
    }

    /// Writes one message and its NUL. Returns `false` once the browser is gone.
    @discardableResult
    func send(_ message: Data) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard writable else { return false }
        var framed = message
        framed.append(0)
        let ok = framed.withUnsafeBytes { raw -> Bool in
            var offset = 0
            while offset < raw.count {
                let written = write(writeFD, raw.baseAddress!.advanced(by: offset), raw.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                offset += written
            }
            return true
        }
        if !ok { closeWriteEnd() }
        return ok
    }

    /// Closes our end of the command pipe: Chromium treats that as "shut down".
    func closeWriteEnd() {
        if writable {
            writable = false
            close(writeFD)
        }
    }

    /// Kills the browser and everything in its process group at once (as a crash would).
    func kill() {
        lock.lock()
        closeWriteEnd()
        lock.unlock()
        Glibc.kill(-pid, SIGKILL)
        Glibc.kill(pid, SIGKILL)
    }

    /// Ends the browser without waiting: closing the command pipe makes Chromium quit cleanly
    /// (it removes its singleton socket and lock); SIGTERM after `grace` seconds and SIGKILL two
    /// seconds later if it is still there. Leftovers are removed once it was reaped.
    func terminate(grace: Double = 3) {
        lock.lock()
        closeWriteEnd()
        lock.unlock()
        let pid = self.pid
        DispatchQueue.global().asyncAfter(deadline: .now() + grace) {
            guard LiveBrowsers.shared.contains(pid) else { return }
            Glibc.kill(-pid, SIGTERM)
            DispatchQueue.global().asyncAfter(deadline: .now() + 2) {
                guard LiveBrowsers.shared.contains(pid) else { return }
                Glibc.kill(-pid, SIGKILL)
                Glibc.kill(pid, SIGKILL)
            }
        }
    }

    /// Sends SIGTERM to the browser's process group (a browser that ignored Browser.close).
    func signalTerminate() { Glibc.kill(-pid, SIGTERM) }

    /// Blocking reads; messages are split at NULs with `memchr` and parsed here, off the main thread.
    private static func readLoop(_ fd: Int32, deliver: @Sendable ([JSONValue]) -> Void) {
        let chunkSize = 256 * 1024
        let chunk = UnsafeMutablePointer<UInt8>.allocate(capacity: chunkSize)
        defer { chunk.deallocate() }
        var pending: [UInt8] = []
        pending.reserveCapacity(1 << 20)
        var scanned = 0
        while true {
            let count = read(fd, chunk, chunkSize)
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { return }
            pending.append(contentsOf: UnsafeBufferPointer(start: chunk, count: count))
            var batch: [JSONValue] = []
            var start = 0
            pending.withUnsafeBufferPointer { bytes in
                guard let base = bytes.baseAddress else { return }
                while scanned < bytes.count, let found = memchr(base + scanned, 0, bytes.count - scanned) {
                    let end = UnsafeRawPointer(found) - UnsafeRawPointer(base)
                    if let message = DevToolsJSON.parse(Data(bytes: base + start, count: end - start)) { batch.append(message) }
                    start = end + 1
                    scanned = start
                }
            }
            if start > 0 { pending.removeFirst(start) }
            scanned = pending.count
            if !batch.isEmpty { deliver(batch) }
        }
    }
}
#endif
