import Foundation
import HybridFixtures
import Testing

/// `hybrid run DIR --watch`: a saved file reloads the page, a saved style sheet is swapped in place.
/// Each test waits for the tool's own lines and the page's `done`, never a fixed time.
@Suite("hybrid run --watch", .serialized)
struct RunWatchTests {
    /// A page that counts its loads (sessionStorage lives across reloads) and ends the run with
    /// `done` when `condition` holds, checked on load and whenever a style sheet loads.
    static func page(version: Int, doneWhen condition: String) -> String {
        """
        <link rel=stylesheet href=style.css><title>Watched</title><body data-v=\(version)><p>v\(version)</p><script>
        const loads = Number(sessionStorage.getItem('loads') || 0) + 1;
        sessionStorage.setItem('loads', String(loads));
        function check() {
          const color = getComputedStyle(document.body).color;
          if (\(condition)) hybrid.call('test', 'done', { ok: true, details: { loads, color } });
        }
        new MutationObserver(() => document.querySelectorAll('link').forEach(link => link.addEventListener('load', check)))
          .observe(document.head, { childList: true });
        hybrid.ready.then(check);
        </script></body>
        """
    }

    static func site(_ page: String) throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hk-watch-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data(page.utf8).write(to: directory.appendingPathComponent("index.html"))
        try Data("body { color: rgb(0, 0, 0) }".utf8).write(to: directory.appendingPathComponent("style.css"))
        return directory
    }

    @Test func aSavedPageReloads() throws {
        let site = try Self.site(Self.page(version: 1, doneWhen: "document.body.dataset.v === '2' && loads === 2"))
        defer { try? FileManager.default.removeItem(at: site) }
        let run = try LiveRun(["run", site.path, "--watch", "--headless", "--until", "done", "--timeout", "30"])
        defer { run.stop() }
        _ = try run.line(startingWith: "hybrid run: watching ")
        try Data(Self.page(version: 2, doneWhen: "document.body.dataset.v === '2' && loads === 2").utf8)
            .write(to: site.appendingPathComponent("index.html"))
        _ = try run.line(startingWith: "hybrid run: index.html changed: reloading")
        #expect(run.waitForExit() == 0, "\(run.text)")
        #expect(run.text.contains("\"loads\":2"))
    }

    @Test func aSavedStyleSheetIsSwappedWithoutAReload() throws {
        let site = try Self.site(Self.page(version: 1, doneWhen: "color === 'rgb(1, 2, 3)'"))
        defer { try? FileManager.default.removeItem(at: site) }
        let run = try LiveRun(["run", site.path, "--watch", "--headless", "--until", "done", "--timeout", "30"])
        defer { run.stop() }
        _ = try run.line(startingWith: "hybrid run: watching ")
        try Data("body { color: rgb(1, 2, 3) }".utf8).write(to: site.appendingPathComponent("style.css"))
        let swapped = try run.line(startingWith: "hybrid run: style.css changed: 1 style sheet(s) swapped in ")
        #expect(run.waitForExit() == 0, "\(run.text)")
        #expect(run.text.contains("\"loads\":1"))   // the page was never reloaded
        print("watch: \(swapped)")
    }

    @Test func aScriptErrorAfterASaveIsPrintedAndTheRunGoesOn() throws {
        let site = try Self.site(Self.page(version: 1, doneWhen: "document.body.dataset.v === '3'"))
        defer { try? FileManager.default.removeItem(at: site) }
        let run = try LiveRun(["run", site.path, "--watch", "--headless", "--until", "done", "--timeout", "30"])
        defer { run.stop() }
        _ = try run.line(startingWith: "hybrid run: watching ")
        let index = site.appendingPathComponent("index.html")
        try Data("<title>Broken</title><script>window.notAFunction()</script>".utf8).write(to: index)
        let error = try run.line(startingWith: "hybrid run: script error: ")
        #expect(error.contains("notAFunction"))
        try Data(Self.page(version: 3, doneWhen: "document.body.dataset.v === '3'").utf8).write(to: index)
        #expect(run.waitForExit() == 0, "\(run.text)")
    }
}
