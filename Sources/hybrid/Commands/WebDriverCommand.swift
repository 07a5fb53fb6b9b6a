import Foundation
import HybridCommandLine
import HybridCore
#if os(Linux)
import HybridGTK
#endif

/// `hybrid webdriver`: a W3C WebDriver endpoint on loopback whose sessions are containers.
enum WebDriverCommand: HybridCommand {
    static let port: CommandOption<Int> = .int("--port", "N", default: 4444, in: 0...65_535,
                                               help: "the loopback port; 0 picks a free one")
    static let engine: CommandOption<String> = .choice("--engine", RunOptions.Engine.allCases.map(\.rawValue), default: "webkit",
        help: "each session's engine unless its hybrid:options say otherwise (or a --config rule picks one)")
    static let config: CommandOption<String?> = .text("--config", "FILE", help: """
        a remote-config document deciding each session's engine and features for its first page, as 'hybrid run --config' \
        does (a session's hybrid:options.config replaces it)
        """)
    static let key: CommandOption<String?> = .text("--key", "PUB", help: "verify the config's FILE.sig with this public key (without it: a draft)")
    static let installID: CommandOption<String> = .text("--install-id", "ID", default: "hybrid-webdriver",
                                                        help: "the install whose rollout buckets the config decides for")
    static let store: CommandOption<String?> = .text("--store", "DIR", defaultText: "$HYBRID_STORE",
                                                     help: "the package store a session's hybrid:options.package opens from")
    static let allow: CommandOption<[String]> = .repeated("--allow", "ORIGIN", help: "allow bridge modules for this origin in every session")
    static let tokenFile: CommandOption<String?> = .text("--url-file", "PATH", help: """
        also write the endpoint's URL, token included, to PATH (mode 0600), for a test runner to read
        """)
    static let size: CommandOption<String?> = .text("--size", "WxH", defaultText: "1024x768", help: "each view's viewport size")
    static let verbose: CommandOption<Bool> = .flag("--verbose", help: "print each command and its status")

    static var table: CommandTable {
        CommandTable(
            name: "webdriver", summary: "Serve a W3C WebDriver endpoint whose sessions drive pages in the container",
            discussion: """
                Listens on 127.0.0.1 only and prints its URL, http://127.0.0.1:PORT/TOKEN, then 'ready'.
                TOKEN is a fresh secret: a request without it as the first path segment, with a Host
                that is not loopback, or with an Origin header (a web page's request) is refused with
                403. Give the URL to the client as it is (Selenium: webdriver.Remote(command_executor=URL)).
                Each new session opens a container (HybridWebView) with the device and storage bridge
                modules, the app's cookie jar synced with the engine, and automation allowed;
                capabilities: browserName hybridkit (or none) and hybrid:options with engine
                (webkit|blink), package (an id installed in store, opened at its entry), url (a first
                page), store, config, key, installId and allow (origins); any other hybrid:options key
                is 'invalid argument'. Commands, per-engine support and what is missing: docs/testing.md.
                SIGINT or SIGTERM end every session and exit 0.
                """,
            options: [port, engine, config, key, installID, store, allow, tokenFile, size, verbose])
    }

    static func run(_ arguments: ParsedArguments) throws -> Int32 {
        var defaults = WebDriverDefaults()
        defaults.engine = RunOptions.Engine(rawValue: arguments[Self.engine]) ?? .webkit
        defaults.config = arguments[Self.config]
        defaults.key = arguments[Self.key]
        defaults.installID = arguments[Self.installID]
        defaults.store = arguments[Self.store] ?? ProcessInfo.processInfo.environment["HYBRID_STORE"]
        defaults.allow = arguments[Self.allow]
        defaults.verbose = arguments[Self.verbose]
        if defaults.key != nil, defaults.config == nil {
            throw CommandLineError.invalid(option: "--key", value: defaults.key ?? "", expected: "--config FILE to verify")
        }
        if let size = arguments[Self.size] {
            let parts = size.split(separator: "x").compactMap { Int($0) }
            guard parts.count == 2 else { throw CommandLineError.invalid(option: "--size", value: size, expected: "WxH") }
            defaults.viewport = ViewportSize(width: parts[0], height: parts[1])
        }
        #if os(Linux)
        // WebKitGTK needs a display; Blink runs headless. A session may pick either, so without one, make one.
        var display: HeadlessDisplay?
        if ProcessInfo.processInfo.environment["DISPLAY"].map({ $0.isEmpty }) ?? true {
            display = try HeadlessDisplay()
            display?.export()
        }
        defer { display?.stop() }
        let settings = defaults
        let port = arguments[Self.port]
        let urlFile = arguments[Self.tokenFile]
        return try GLibMainLoop.run { try await WebDriverServer(defaults: settings).serve(port: port, urlFile: urlFile) }
        #else
        FileHandle.standardError.write(Data("hybrid webdriver: needs WebKitGTK or Blink (Linux)\n".utf8))
        return 1
        #endif
    }
}
