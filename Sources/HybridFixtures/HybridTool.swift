import Foundation

/// Runs the `hybrid` binary built beside the running test executable, to its exit.
public struct HybridTool: Sendable {
    /// Exit status and collected output of one run.
    public struct Run: Sendable {
        /// The exit status.
        public var status: Int32
        /// Standard output (and standard error, when collected), decoded as UTF-8.
        public var output: String

        /// A run's result.
        public init(status: Int32, output: String) {
            self.status = status
            self.output = output
        }
    }

    /// What becomes of the tool's standard error.
    public enum ErrorOutput: Sendable {
        /// Collected with standard output, in the order written.
        case collected
        /// Dropped: the output is standard output alone.
        case discarded
    }

    /// The `hybrid` executable beside this process's own.
    public let binary: URL

    /// The tool beside the running test executable (`.build/debug/hybrid`).
    public init() {
        binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("hybrid")
    }

    /// Whether the binary has been built.
    public var isBuilt: Bool { FileManager.default.isExecutableFile(atPath: binary.path) }

    /// The tool beside the running test executable, or an error naming where it is missing (so
    /// a test that needs it fails with that reason instead of passing without it).
    public static func built() throws -> HybridTool {
        let tool = HybridTool()
        guard tool.isBuilt else {
            throw CocoaError(.fileNoSuchFile, userInfo: [NSLocalizedDescriptionKey: "hybrid binary not built beside the tests at \(tool.binary.path)"])
        }
        return tool
    }

    /// Runs `hybrid ARGUMENTS` and waits for it to exit.
    /// - Parameters:
    ///   - directory: Its working directory (this process's when nil).
    ///   - environment: Variables set on top of this process's environment.
    ///   - errors: Whether standard error is collected with standard output.
    public func run(_ arguments: [String], in directory: URL? = nil, environment: [String: String] = [:],
                    errors: ErrorOutput = .collected) throws -> Run {
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = errors == .collected ? output : FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Run(status: process.terminationStatus, output: String(decoding: data, as: UTF8.self))
    }

    /// Runs `hybrid ARGUMENTS` under GNU `time` (Debian's `time` package) and returns its exit
    /// status and peak resident memory in KiB. (`ru_maxrss` of a child this process spawns itself
    /// would include this process's own peak: posix_spawn shares its memory until the exec.)
    public func measure(_ arguments: [String]) throws -> (status: Int32, peakKilobytes: Int) {
        let report = FileManager.default.temporaryDirectory.appendingPathComponent("hk-time-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: report) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/time")
        process.arguments = ["-f", "%M", "-o", report.path, binary.path] + arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        let text = (try? String(contentsOf: report, encoding: .utf8)) ?? ""
        guard let kilobytes = text.split(separator: "\n").last.flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) }) else {
            throw CocoaError(.fileReadCorruptFile, userInfo: [NSLocalizedDescriptionKey: "/usr/bin/time reported \(text.debugDescription)"])
        }
        return (process.terminationStatus, kilobytes)
    }
}
