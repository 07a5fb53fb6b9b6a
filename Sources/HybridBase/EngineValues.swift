import Foundation

// Values that the engine contract, the packages and health all speak, kept below each of them
// (docs/architecture.md): a request, why a content process ended, a page's script error.

/// A request to load: URL, method, headers, body.
public struct EngineRequest: Sendable {
    /// The URL to load.
    public var url: URL
    /// The HTTP method (`GET` unless the request says otherwise).
    public var method: String
    /// Header fields in order; a name may repeat.
    public var headers: [(name: String, value: String)]
    /// The request body, for a POST or another method that carries one.
    public var body: Data?

    /// A request for `url`; a plain `GET` without a body unless told otherwise.
    public init(url: URL, method: String = "GET", headers: [(name: String, value: String)] = [], body: Data? = nil) {
        self.url = url
        self.method = method
        self.headers = headers
        self.body = body
    }

    /// The first value of a header, matched case-insensitively.
    /// - Parameter name: The header's name, in any case.
    /// - Returns: Its first value, or `nil` when the request has no such header.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.equalsIgnoringASCIICase(name) }?.value
    }
}

/// Why the web content process ended.
public enum TerminationReason: String, Sendable, Hashable, CustomStringConvertible {
    /// The content process crashed.
    case crashed
    /// The system or the engine ended the process for using too much memory.
    case exceededMemoryLimit = "exceeded_memory_limit"
    /// Ended on purpose (`terminateContentProcess()`).
    case terminatedByClient = "terminated_by_client"
    /// The page closed its own window and the engine discarded its content without asking
    /// (Chromium, `window.close()` with one history entry): not a crash, and not the version's
    /// fault; the container recovers the page unless the app closes the view.
    case closedByPage = "closed_by_page"
    /// The raw value (`crashed`, `exceeded_memory_limit`, `terminated_by_client`, `closed_by_page`).
    public var description: String { rawValue }
}

/// An uncaught error or unhandled rejection, as the page threw it.
public struct ScriptErrorReport: Sendable, Equatable, Hashable, Codable {
    /// `error` (an uncaught exception) or `rejection` (an unhandled promise rejection).
    public var type: String
    /// The error's message.
    public var message: String
    /// The script it came from (query and fragment stripped unless allowed).
    public var source: String?
    /// 1-based line in `source`.
    public var line: Int?
    /// 1-based column in `source`.
    public var column: Int?
    /// The stack, as the engine formats it (bounded).
    public var stack: String?
    /// The origin of the frame that threw it: a foreign iframe's errors are its own.
    public var origin: String?

    /// A report.
    public init(type: String = "error", message: String, source: String? = nil, line: Int? = nil, column: Int? = nil,
                stack: String? = nil, origin: String? = nil) {
        self.type = type
        self.message = message
        self.source = source
        self.line = line
        self.column = column
        self.stack = stack
        self.origin = origin
    }
}

/// URL schemes the container owns, named once for every layer that must know them (the
/// packages' Content-Security-Policy allows the bridge's byte channel).
public enum ContainerSchemes {
    /// The bridge's byte channel (`hybrid-bytes://<store>/<token>`, ``BridgeByteChannel``).
    public static let byteChannel = "hybrid-bytes"
}
