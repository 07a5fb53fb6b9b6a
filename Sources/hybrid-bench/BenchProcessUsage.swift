#if os(Linux)
import Foundation

/// CPU time and resident memory of this process and every process it started (the engines'
/// web, network and renderer processes), read from `/proc`: what a piece of background work (a
/// prerender) cost the machine, as the difference of two samples.
struct BenchProcessUsage {
    /// User and system CPU time, in milliseconds, of the processes alive at the sample.
    var cpuMs: Double
    /// Resident set size, in MiB.
    var rssMB: Double

    /// The usage of this process and its descendants now.
    static func sample() -> BenchProcessUsage {
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        let page = Double(sysconf(Int32(_SC_PAGESIZE)))
        var stats: [Int32: (parent: Int32, cpu: Double, rss: Double)] = [:]
        for name in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let pid = Int32(name), let text = try? String(contentsOfFile: "/proc/\(name)/stat", encoding: .utf8),
                  let close = text.lastIndex(of: ")") else { continue }
            // After "pid (comm)": state ppid … utime (14th field) stime (15th) … rss (24th).
            let fields = text[text.index(after: close)...].split(separator: " ")
            guard fields.count > 22, let parent = Int32(fields[1]), let user = Double(fields[11]), let system = Double(fields[12]),
                  let rss = Double(fields[21]) else { continue }
            stats[pid] = (parent, (user + system) / ticks * 1000, rss * page / 1_048_576)
        }
        var family: Set<Int32> = [getpid()]
        var grew = true
        while grew {
            grew = false
            for (pid, stat) in stats where !family.contains(pid) && family.contains(stat.parent) {
                family.insert(pid)
                grew = true
            }
        }
        let members = family.compactMap { stats[$0] }
        return BenchProcessUsage(cpuMs: members.reduce(0) { $0 + $1.cpu }, rssMB: members.reduce(0) { $0 + $1.rss })
    }
}
#endif
