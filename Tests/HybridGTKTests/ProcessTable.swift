import Foundation

/// The processes on this machine as `/proc` shows them, for tests that check which of the
/// engines' processes run (the engine tests run on Linux only).
enum ProcessTable {
    /// The ids of the processes running now.
    static func ids() -> [Int32] {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).compactMap(Int32.init)
    }

    /// The name and parent of `pid`, from `/proc/<pid>/stat`; `nil` once it has gone.
    static func stat(_ pid: Int32) -> (name: String, parent: Int32)? {
        guard let bytes = FileManager.default.contents(atPath: "/proc/\(pid)/stat") else { return nil }
        // `pid (name) state ppid ...`: the name may hold spaces and parentheses, so it ends at
        // the last ')'.
        let text = String(decoding: bytes, as: UTF8.self)
        guard let open = text.firstIndex(of: "("), let close = text.lastIndex(of: ")"),
              let parent = text[text.index(after: close)...].split(separator: " ").dropFirst().first.flatMap({ Int32($0) })
        else { return nil }
        return (String(text[text.index(after: open)..<close]), parent)
    }

    /// The ids of the processes whose command line contains `text`.
    static func ids(mentioning text: String) -> [Int32] {
        ids().filter { pid in
            guard let line = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return false }
            return String(decoding: line, as: UTF8.self).contains(text)
        }
    }

    /// Whether `pid` runs under `ancestor`, at most `depth` parents up (Chromium's renderers are
    /// not the browser's children: its zygote starts them).
    static func descends(_ pid: Int32, from ancestor: Int32, depth: Int = 8) -> Bool {
        var current = pid
        for _ in 0..<depth {
            guard let up = stat(current)?.parent, up > 1 else { return false }
            if up == ancestor { return true }
            current = up
        }
        return false
    }
}
