import Foundation
import HybridCommandLine
import HybridCore
#if os(Linux)
import HybridGTK
#endif

/// `hybrid run TARGET`: the container for page authors, and a headless test runner.
enum RunCommand: HybridCommand {
    static let target: CommandArgument<String> = .required("TARGET", help: "a directory (DIR), a page's URL, or the id of a package installed in --store (PACKAGE_ID)")
    static let engine: CommandOption<String?> = .choice("--engine", RunOptions.Engine.allCases.map(\.rawValue), defaultText: "webkit",
        help: """
            the engine: webkit is WebKitGTK; blink runs headless Chromium (no window shell; the run ends on load, done or \
            timeout) and, since Blink cannot navigate to a custom scheme, serves a directory TARGET at \
            https://local.hybrid-run.invalid/ instead of hybrid-app://local/ (every https request of the page is then \
            answered from the directory)
            """)
    static let entry: CommandOption<String?> = .text("--entry", "FILE", defaultText: "index.html", help: "the directory's entry page")
    static let headless: CommandOption<Bool> = .flag("--headless", help: """
        run on a private Xvfb display even when DISPLAY is set; without it and with a display, the page opens in a window \
        (back, forward, reload/stop, title, spinner, the container's progress bar) and the run lasts until the window is closed
        """)
    static let screenshot: CommandOption<String?> = .text("--screenshot", "PATH",
        help: "write a PNG of the page when the run ends (or when the page calls hybrid.call('test', 'screenshot'))")
    static let report: CommandOption<String?> = .text("--report", "PATH", help: """
        write the outcome as JSON (exit code, summary, details, url, title, and health: the page's timing, script errors, \
        white screens)
        """)
    static let until: CommandOption<String?> = .choice("--until", RunOptions.Until.allCases.map(\.rawValue), defaultText: "load",
        help: "end after the page loaded, or wait for the page to call hybrid.call('test', 'done', { ok, details })")
    static let timeout: CommandOption<Double?> = .double("--timeout", "SECONDS", defaultText: "30", help: "give up after this long: exit 2")
    static let allow: CommandOption<[String]> = .repeated("--allow", "ORIGIN", help: "allow bridge modules for this origin too")
    static let cookies: CommandOption<String?> = .text("--cookies", "FILE",
                                                       help: "load a Netscape cookies.txt (curl, wget) into the session first")
    static let store: CommandOption<String?> = .text("--store", "DIR", defaultText: "$HYBRID_STORE", help: """
        the package store a PACKAGE_ID target is served from. Before it opens, the active version's files are checked \
        against its signed manifest (launch integrity); a damaged file is never served: it is removed, fetched again from \
        --repo when given, else the previous version is restored when it is intact, else the network answers for it. \
        Each finding is printed
        """)
    static let repo: CommandOption<String?> = .text("--repo", "URL", help: """
        the repository 'hybrid update' installed from: where damaged files of a PACKAGE_ID target are fetched from again \
        (each verified against the manifest's SHA-256)
        """)
    static let config: CommandOption<String?> = .text("--config", "FILE", help: """
        a remote-config document (the JSON of 'hybrid config template'): its decision for the target URL picks the \
        engine (webkit|blink) and turns on cookie sync (the jar, seeded by --cookies, is the source of truth), the \
        request proxy (every http(s) request of the page through native), URL interception (system and payment schemes \
        handed to the app, unknown schemes blocked) and the offline package (a PACKAGE_ID target it does not name opens \
        from the network). A kill switch or an expired document gives safe defaults. Prints the decision (the rule trace \
        with --verbose). A file that cannot be read, parsed, validated or verified stops the run with exit 2.
        """)
    static let key: CommandOption<String?> = .text("--key", "PUB", help: """
        verify FILE.sig (detached Ed25519) with this public key before using --config, as an app's client does; \
        without --key the document is used unsigned (a draft) and the run says so
        """)
    static let installID: CommandOption<String> = .text("--install-id", "ID", default: "hybrid-run",
                                                        help: "the install whose rollout buckets --config decides for")
    static let size: CommandOption<String?> = .text("--size", "WxH", defaultText: "1024x768", help: "viewport size")
    static let inspect: CommandOption<Bool> = .flag("--inspect", help: """
        open the engine's inspector, on 127.0.0.1 only, and print its URL: WebKitGTK's remote inspector (a listing of the \
        page with an Inspect button; the window's own Web Inspector too), Chromium's DevTools endpoint (/json/version; \
        connect DevTools or any CDP client)
        """)
    static let watch: CommandOption<Bool> = .flag("--watch", help: """
        for a directory TARGET: reload the page when a file under it is saved (CSS-only changes swap the page's style \
        sheets without a reload), printing what changed and how long the reload took; a load that fails, an HTTP error \
        and the page's script errors are printed and the run goes on. The run ends with done, --timeout or the window (not on load)
        """)
    static let verbose: CommandOption<Bool> = .flag("--verbose", help: "print bridge traffic, engine events, policy decisions and page logs")

    static var table: CommandTable {
        CommandTable(
            name: "run", summary: "Open a directory, installed package or URL in the container (a headless test runner with --until done)",
            discussion: """
                TARGET is one of:
                  DIR                   a directory, served through the custom scheme hybrid-app://local/
                                        (never file://) as an ad-hoc package
                  URL                   a page from the network (http://127.0.0.1:8000/, https://…)
                  PACKAGE_ID            an offline package installed in --store by 'hybrid update': its
                                        active version, served through app://HOST/PATH/ (the manifest's
                                        origin with the custom scheme), the network for what it lacks
                The page gets the bridge (hybrid.js) with the device, storage and test modules. The test
                module: done { ok, details } ends the run (--until done); screenshot writes --screenshot now;
                log { level, message } prints with --verbose; crash kills the page's web content process, so
                a page can test its white-screen recovery (the container reloads it once; another crash
                soon after is unrecoverable: exit 2).
                """,
            arguments: [target],
            options: [engine, entry, headless, screenshot, report, until, timeout, allow, cookies, store, repo, config, key,
                      installID, size, inspect, watch, verbose],
            epilogue: """
                EXIT STATUS: 0 loaded / page reported ok, 1 page reported failure, 2 timeout, crash the
                container could not recover from, HTTP error on the document, or a TARGET/--config that
                cannot be used.
                """)
    }

    static func run(_ arguments: ParsedArguments) throws -> Int32 {
        let headless = arguments[Self.headless]
        let verbose = arguments[Self.verbose]
        let entry = arguments[Self.entry]
        let screenshot = arguments[Self.screenshot].map { URL(fileURLWithPath: $0) }
        let report = arguments[Self.report].map { URL(fileURLWithPath: $0) }
        let until = arguments[Self.until]
        let timeout = arguments[Self.timeout]
        let allow = arguments[Self.allow]
        let size = arguments[Self.size]
        let cookiesFile = arguments[Self.cookies]
        let engine = arguments[Self.engine]
        let store = arguments[Self.store] ?? ProcessInfo.processInfo.environment["HYBRID_STORE"]
        let repo = arguments[Self.repo]
        let configPath = arguments[Self.config]
        let key = arguments[Self.key]
        let installID = arguments[Self.installID]
        let target = arguments[Self.target]
        var options = RunOptions(target: target)
        if let entry { options.entry = entry }
        if let engine {
            options.engine = RunOptions.Engine(rawValue: engine) ?? options.engine
        }
        options.screenshot = screenshot
        options.store = store.map { URL(fileURLWithPath: $0, isDirectory: true) }
        if let repo {
            guard let url = URL(string: repo), url.scheme != nil else {
                throw CommandLineError.invalid(option: "--repo", value: repo, expected: "a URL (https://…/repo/)")
            }
            options.repository = url
        }
        if let configPath {
            do {
                options.config = try RunConfigFile(path: configPath, key: key, installID: installID)
            } catch {
                FileHandle.standardError.write(Data("hybrid run: \(error)\n".utf8))
                return 2
            }
        } else if key != nil {
            throw CommandLineError.invalid(option: "--key", value: key ?? "", expected: "--config FILE to verify")
        }
        options.report = report
        options.verbose = verbose
        options.inspect = arguments[Self.inspect]
        options.watch = arguments[Self.watch]
        options.allow = allow
        if let timeout { options.timeout = timeout }
        if let cookiesFile {
            options.cookies = try NetscapeCookieFile.parse(String(contentsOfFile: cookiesFile, encoding: .utf8))
        }
        if let until {
            options.until = RunOptions.Until(rawValue: until) ?? options.until
        }
        if let size {
            let parts = size.split(separator: "x").compactMap { Int($0) }
            guard parts.count == 2 else { throw CommandLineError.invalid(option: "--size", value: size, expected: "WxH") }
            options.viewport = ViewportSize(width: parts[0], height: parts[1])
        }
        #if os(Linux)
        var display: HeadlessDisplay?
        // Blink runs headless Chromium: it needs no display.
        if options.engine == .webkit || options.config != nil, headless || ProcessInfo.processInfo.environment["DISPLAY"].map({ $0.isEmpty }) ?? true {
            display = try HeadlessDisplay()
            display?.export()
        }
        options.windowed = options.engine == .webkit && display == nil
        defer { display?.stop() }
        if options.inspect { options.webKitInspector = try RunInspector.prepareWebKit(port: nil) }
        let runOptions = options
        let outcome: RunOutcome
        do {
            outcome = try GLibMainLoop.run { try await RunSession(options: runOptions).run() }
        } catch let error as RunError {
            FileHandle.standardError.write(Data("hybrid run: \(error)\n".utf8))
            return 2
        }
        print("hybrid run: \(outcome.summary) (exit \(outcome.exitCode))")
        if let details = outcome.details { print(details.jsonText) }
        if let report {
            var object: [String: JSONValue] = ["exit": .number(Double(outcome.exitCode)), "summary": .string(outcome.summary)]
            object["details"] = outcome.details
            object["url"] = outcome.url.map { .string($0) }
            object["title"] = outcome.title.map { .string($0) }
            object["health"] = outcome.health
            object["integrity"] = outcome.integrity
            try FileManager.default.createDirectory(at: report.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(JSONValue.object(object).jsonText.utf8).write(to: report)
        }
        return outcome.exitCode
        #else
        FileHandle.standardError.write(Data("hybrid run: needs the WebKitGTK engine (Linux)\n".utf8))
        return 1
        #endif
    }
}
