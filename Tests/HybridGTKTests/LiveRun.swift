import Foundation
import HybridFixtures

/// A `hybrid` process a test talks to while it runs: it reads the tool's lines as they are printed,
/// acts on them (connects to an endpoint, saves a file), then waits for the exit or ends the run.
final class LiveRun {
    let process = Process()
    private let output = Pipe()
    private var buffer = ""
    /// Everything read so far.
    private(set) var text = ""

    /// Starts `hybrid ARGUMENTS` (standard error discarded).
    init(_ arguments: [String]) throws {
        process.executableURL = try HybridTool.built().binary
        process.arguments = arguments
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
    }

    /// The first line printed from now on that starts with `prefix`, or an error once the output ends.
    func line(startingWith prefix: String) throws -> String {
        while true {
            while let newline = buffer.firstIndex(of: "\n") {
                let line = String(buffer[..<newline])
                buffer.removeSubrange(...newline)
                if line.hasPrefix(prefix) { return line }
            }
            let chunk = output.fileHandleForReading.availableData
            guard !chunk.isEmpty else {
                throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "no line '\(prefix)…'; output: \(text)"])
            }
            let piece = String(decoding: chunk, as: UTF8.self)
            text += piece
            buffer += piece
        }
    }

    /// Reads the rest of the output and waits for the exit.
    func waitForExit() -> Int32 {
        text += String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// Ends the run if it still runs.
    func stop() {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }
}
