import Foundation

/// A private Xvfb display for runs without a screen (`--headless`, or no `DISPLAY`), started
/// before GTK opens a display and stopped when the run ends.
public final class HeadlessDisplay {
    private let process: Process
    /// `:N`, as Xvfb chose it (`-displayfd` picks a free number, so parallel runs never collide).
    public let name: String

    /// Why no display was started.
    public enum Failure: Error, CustomStringConvertible {
        /// Xvfb is not installed.
        case notInstalled
        /// Xvfb did not start, with why.
        case didNotStart(String)
        /// The sentence a user reads.
        public var description: String {
            switch self {
            case .notInstalled: "Xvfb is not installed (apt-get install xvfb), or run with a DISPLAY"
            case .didNotStart(let why): "Xvfb did not start: \(why)"
            }
        }
    }

    /// Where Xvfb is installed, if it is.
    public static var executable: String? {
        ["/usr/bin/Xvfb", "/usr/local/bin/Xvfb"].first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Starts Xvfb on a free display of `width` × `height`.
    public init(width: Int = 1280, height: Int = 800) throws {
        guard let executable = Self.executable else { throw Failure.notInstalled }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["-displayfd", "1", "-screen", "0", "\(width)x\(height)x24", "-nolisten", "tcp", "-noreset"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Xvfb writes the display number and a newline once it accepts connections.
        var text = ""
        let deadline = Date().addingTimeInterval(10)
        while !text.contains("\n"), Date() < deadline, process.isRunning {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        let number = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !number.isEmpty, Int(number) != nil else {
            process.terminate()
            throw Failure.didNotStart(process.isRunning ? "no display number" : "exited with \(process.terminationStatus)")
        }
        self.process = process
        name = ":\(number)"
    }

    /// Points GTK at this display (call before GTK is initialised).
    public func export() {
        setenv("DISPLAY", name, 1)
        unsetenv("WAYLAND_DISPLAY")
    }

    /// Stops Xvfb (also on deinit).
    public func stop() {
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }

    deinit { stop() }
}
