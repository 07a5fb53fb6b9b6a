import Foundation
import HybridCommandLine

/// A command that lives in an executable of its own beside `hybrid` (so the shipped tool links
/// none of the benchmarks' or the demo's fixtures): `hybrid NAME ARGS` runs `EXECUTABLE ARGS`.
protocol ForwardedCommand: HybridCommand {
    /// The executable beside `hybrid` that runs it (`hybrid-bench`).
    static var executable: String { get }
}

extension ForwardedCommand {
    /// The table of a forwarded command: a name and a line for `hybrid --help`, no options (they
    /// are the executable's own table, and `hybrid NAME --help` prints that executable's help).
    static func forwardedTable(name: String, summary: String) -> CommandTable {
        CommandTable(name: name, summary: summary,
                     discussion: "Runs \(executable) (built beside hybrid: swift build --product \(executable)) with every argument.")
    }

    /// Every argument, `--help` included, goes to the executable as it is.
    static func main(_ argv: [String], tool: String) -> Int32 {
        forward(argv)
    }

    /// Not reached (``main(_:tool:)`` forwards before anything is parsed); forwards nothing.
    static func run(_ arguments: ParsedArguments) throws -> Int32 {
        forward([])
    }

    /// Replaces this process with the executable (exit 69 when it is not built).
    private static func forward(_ argv: [String]) -> Int32 {
        let path = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            .deletingLastPathComponent().appendingPathComponent(executable).path
        guard FileManager.default.isExecutableFile(atPath: path) else {
            FileHandle.standardError.write(Data("hybrid \(name): \(path) is not built: swift build --product \(executable)\n".utf8))
            return 69
        }
        let arguments = ([path] + argv).map { strdup($0) } + [nil]
        setenv(ForwardedInvocation.variable, "hybrid \(name)", 1)
        execv(path, arguments)
        FileHandle.standardError.write(Data("hybrid \(name): cannot run \(path): \(String(cString: strerror(errno)))\n".utf8))
        return 69
    }
}

/// `hybrid bench`: runs `hybrid-bench` (Sources/hybrid-bench).
enum BenchForward: ForwardedCommand {
    static let executable = "hybrid-bench"
    static var table: CommandTable {
        forwardedTable(name: "bench", summary: "Measure side by side, as ratios from one run (runs hybrid-bench; hybrid bench --help lists the suites)")
    }
}

/// `hybrid demo`: runs `hybrid-demo` (Sources/hybrid-demo), the tour behind `make demo`.
enum DemoForward: ForwardedCommand {
    static let executable = "hybrid-demo"
    static var table: CommandTable {
        forwardedTable(name: "demo", summary: "Run the demo tour (Examples/demo) and write demo-out/report.json and screenshot.png (runs hybrid-demo)")
    }
}
