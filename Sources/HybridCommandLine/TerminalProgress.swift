import Foundation

/// A one-line progress bar on stderr (redrawn in place on a terminal, a few plain lines otherwise).
public final class TerminalProgress: @unchecked Sendable {
    private let label: String
    private let counting: Bool
    private let started = Date()
    private let lock = NSLock()
    private let interactive = isatty(2) == 1
    private var lastDraw = Date.distantPast
    private var lastPercent = -1
    private var drawn = false

    /// - Parameter counting: the totals are counts (blobs), not bytes.
    ///   - label: what is in progress (`packing`).
    public init(label: String, counting: Bool = false) {
        self.label = label
        self.counting = counting
    }

    /// Shows `done` of `total` (bytes, or counts) with a detail after the bar.
    public func show(done: Int64, total: Int64, detail: String) {
        lock.withLock {
            let fraction = total > 0 ? min(1, Double(done) / Double(total)) : 1
            let percent = Int(fraction * 100)
            let now = Date()
            // Only long runs get a bar: a quick pack or update prints just its summary.
            guard now.timeIntervalSince(started) > 0.5 else { return }
            let amounts = counting ? "" : "\(Self.bytes(done))/\(Self.bytes(total)) "
            if interactive {
                guard now.timeIntervalSince(lastDraw) > 0.05 || percent == 100 else { return }
                let width = 30
                let filled = Int(fraction * Double(width))
                let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
                let line = "\r\(label) [\(bar)] \(String(format: "%3d", percent))% \(amounts)\(detail)\u{1b}[K"
                FileHandle.standardError.write(Data(line.utf8))
                drawn = true
            } else {
                // Not a terminal (CI logs): a line per 25%.
                guard percent / 25 > lastPercent / 25 || lastPercent < 0 else { return }
                FileHandle.standardError.write(Data("\(label): \(percent)% \(amounts)\(detail)\n".utf8))
            }
            lastDraw = now
            lastPercent = percent
        }
    }

    /// Ends the bar's line, if one was drawn.
    public func finish() {
        lock.withLock { if drawn { FileHandle.standardError.write(Data("\n".utf8)) } }
    }

    /// `count` bytes for people: `512 B`, `3.2 KB`, `4.0 MB`.
    public static func bytes(_ count: Int64) -> String {
        if count < 1024 { return "\(count) B" }
        if count < 1 << 20 { return String(format: "%.1f KB", Double(count) / 1024) }
        return String(format: "%.1f MB", Double(count) / Double(1 << 20))
    }
}
