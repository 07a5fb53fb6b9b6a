import Foundation
import HybridCommandLine
import HybridCore
#if os(Linux)
import HybridGTK
#endif

/// `hybrid demo`: the tour behind `make demo`. Publishes the demo app as an offline package
/// (fresh key, fresh repository served by `hybrid serve`'s server on loopback, installed by the
/// updater), opens it in the container and walks one page per feature, then prints a table and
/// writes a report and a screenshot of the home page.
enum DemoCommand: HybridCommand {
    static let app: CommandArgument<String> = .optional("DIR", default: "Examples/demo", help: "the demo app's directory")
    static let out: CommandOption<String> = .text("--out", "DIR", default: "demo-out", help: "where the report, screenshots and work files go")
    static let timeout: CommandOption<Double> = .double("--timeout", "SECONDS", default: 180, help: "give up after this long: exit 2")
    static let headless: CommandOption<Bool> = .flag("--headless", help: "use a private Xvfb display even when DISPLAY is set")
    static let verbose: CommandOption<Bool> = .flag("--verbose", help: "print bridge traffic and each page's report as it arrives")

    static var table: CommandTable {
        CommandTable(
            name: "demo", summary: "Run the demo tour (Examples/demo) and write demo-out/report.json and screenshot.png",
            discussion: """
                The tour of HybridKit on the demo app DIR, with the real code of every step:
                  1. a fresh Ed25519 key, DIR packed as version 1 into a fresh repository (OUT/work/repo),
                     served on a loopback port by the server of 'hybrid serve', installed into a package
                     store (OUT/work/store) by the updater;
                  2. a loopback origin with cookie, redirect, echo and multipart routes;
                  3. the package opened in the container (app://demo.hybridkit.invalid/) with cookie sync,
                     the request proxy, URL interception, a payment hand-off delegate and a warm pool;
                     headless on a private Xvfb when there is no display (or with --headless);
                  4. one page per feature, each checking itself and reporting through the bridge: bridge
                     calls with progress and cancellation, events, device and storage, cookies both ways
                     across a redirect, a FormData file through the proxy, URL interception, payment
                     hand-off, white-screen recovery (the page kills its own content process), pooled
                     reopen, a prerendered open, progress, dialogs, back and resume, a canvas snapshot, and the update to a
                     version 2 (packed, served, fetched incrementally, shown after a reload);
                  5. the home page with the results, and its screenshot.
                Prints one row per feature (feature, result, figure), writes OUT/report.json (one entry per
                feature with ok and its figures) and OUT/screenshot.png (OUT is --out). Progress goes to
                standard error.
                """,
            arguments: [app], options: [out, timeout, headless, verbose],
            epilogue: "EXIT STATUS: 0 every feature ok, 1 a feature failed, 2 timeout or the tour could not run.")
    }

    static func run(_ arguments: ParsedArguments) throws -> Int32 {
        let out = URL(fileURLWithPath: arguments[Self.out], isDirectory: true)
        let timeout = arguments[Self.timeout]
        let headless = arguments[Self.headless]
        let verbose = arguments[Self.verbose]
        let directory = arguments[Self.app]
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw CommandLineError.invalid(option: "DIR", value: directory, expected: "the demo app's directory")
        }
        #if os(Linux)
        var display: HeadlessDisplay?
        if headless || ProcessInfo.processInfo.environment["DISPLAY"].map({ $0.isEmpty }) ?? true {
            FileHandle.standardError.write(Data("demo: starting a private Xvfb display\n".utf8))
            display = try HeadlessDisplay()
            display?.export()
        }
        defer { display?.stop() }
        Thread.detachNewThread {
            Thread.sleep(forTimeInterval: timeout)
            FileHandle.standardError.write(Data("hybrid demo: timed out after \(Int(timeout)) s\n".utf8))
            exit(2)
        }
        let source = URL(fileURLWithPath: directory, isDirectory: true).standardizedFileURL
        let started = Date()
        let report = try GLibMainLoop.run { () async throws -> DemoReport in
            let work = out.appendingPathComponent("work", isDirectory: true)
            try? FileManager.default.removeItem(at: work)
            let origin = try DemoOrigin()
            let publisher = try await DemoPublisher(source: source, work: work)
            let tour = try DemoTour(publisher: publisher, origin: origin, out: out, verbose: verbose)
            defer { tour.close() }
            let screenshot = try await tour.walk()
            let results = tour.results
            let passed = results.filter(\.ok).count
            return DemoReport(results: results, seconds: Date().timeIntervalSince(started),
                              summary: "\(passed) of \(results.count) features ok", screenshot: screenshot)
        }
        try report.write(to: out)
        print("HybridKit demo — \(report.results.count) features, \(String(format: "%.1f", report.seconds)) s\n")
        print(report.table)
        print("\n\(report.ok ? "All features ok" : "NOT OK: \(report.summary)"). Wrote \(out.path)/report.json"
              + (report.screenshot != nil ? " and screenshot.png (the home page)" : " (no screenshot: the home page did not load)"))
        return report.ok && report.screenshot != nil ? 0 : 1
        #else
        FileHandle.standardError.write(Data("hybrid demo: needs the WebKitGTK engine (Linux)\n".utf8))
        return 1
        #endif
    }
}
