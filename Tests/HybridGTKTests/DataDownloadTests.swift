import Foundation
import HybridCore
import HybridServer
import HybridFixtures
import Testing

/// Downloads on the real engines: every way a page starts one reaches the app's delegate, which
/// places the file (or cancels); the bytes arrive intact, progress is seen, the page keeps running.
@Suite("Data: downloads", .serialized)
@MainActor
struct DataDownloadTests {
    /// 300 KB of bytes that are not text (every byte value), so a lossy path would show.
    nonisolated static let payload = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 8) })

    /// A rig whose page, on a loopback HTTP server, links to `payload` at `file.bin` in every way
    /// a page downloads. (WebKitGTK downloads in its network process, which cannot load the app's
    /// custom schemes: a download of a `hybrid-test:` URL fails there with "The URL can't be shown".)
    static func rig(_ kind: EngineKind) throws -> (rig: DataRig, server: LoopbackServer) {
        let rig = try DataRig(kind, pages: [:])
        let server = try LoopbackServer()
        server.route("/index.html") { _ in .html(indexPage) }
        let payload = payload
        server.route("/file.bin") { _ in ServerResponse(headers: ["Content-Type": "application/octet-stream"], body: payload) }
        server.route("/attach.bin") { _ in
            ServerResponse(headers: ["Content-Type": "text/plain", "Content-Disposition": "attachment; filename=\"../../../attached.txt\""],
                           body: payload)
        }
        server.route("/odd.bin") { _ in ServerResponse(headers: ["Content-Type": "application/x-hybridkit-unshowable"], body: payload) }
        return (rig, server)
    }

    nonisolated static let indexPage = """
        <title>dl</title>
        <a id=attr href="file.bin" download="report.bin">attribute</a>
        <a id=attach href="attach.bin">attachment</a>
        <a id=odd href="odd.bin">unshowable</a>
        <a id=evil href="file.bin" download="../../escape.bin">traversal</a>
        <script>
        window.ticks = 0; setInterval(() => window.ticks++, 10);
        function save(href, name) {
          const a = document.createElement('a');
          a.href = href; a.download = name; document.body.appendChild(a); a.click();
        }
        </script>
        """

    static func directory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hybridkit-dl-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    /// Starts a download with `start` (a page script), lets the delegate place it in a fresh
    /// directory, and waits for its end.
    static func download(_ kind: EngineKind, _ start: String, in directory: URL,
                         place: @escaping (Download, URL) -> DownloadDecision = { .save(to: $0.destination(in: $1)) },
                         retryIfNetworkProcessCrashed: Bool = true)
        async throws -> (rig: DataRig, view: HybridWebView, download: Download, end: DownloadEvent?) {
        let (rig, server) = try rig(kind)
        rig.servers.append(server)
        rig.delegate.downloadAnswer = { place($0, directory) }
        let view = try rig.view()
        try await view.loadAndWait(server.url("/index.html"))
        let networkProcesses = kind == .webkit ? Self.networkProcessIDs() : []
        _ = try await view.engine.evaluate(start + "; 0")
        do {
            try await eventually("the download's question") { !rig.delegate.downloads.isEmpty }
        } catch let error as TimeoutError where retryIfNetworkProcessCrashed && !networkProcesses.isEmpty
            && networkProcesses.isDisjoint(with: Self.networkProcessIDs()) {
            // WebKitGTK 2.50's network process sometimes crashes as it turns a load into a download
            // (NetworkProcess::findPendingDownloadLocation, WebKit bugs 309695 and 312219, fixed
            // upstream in 2026); no API tells the app. Only that crash, seen as the network process
            // this page used being gone, earns one more try; any other missing question fails.
            print("◇ \(error): WebKit's network process \(networkProcesses.sorted()) crashed; trying once more")
            await rig.close()
            return try await download(kind, start, in: directory, place: place, retryIfNetworkProcessCrashed: false)
        }
        let download = rig.delegate.downloads[0]
        if case .save = rig.delegate.downloadAnswer(download) {
            try await eventually("the download's end") { rig.delegate.end(of: download.id) != nil }
        }
        return (rig, view, download, rig.delegate.end(of: download.id))
    }

    /// The ids of this test process's WebKit network processes (from `/proc`: parent and name).
    static func networkProcessIDs() -> Set<Int32> {
        let me = getpid()
        return Set(ProcessTable.ids().filter { pid in
            ProcessTable.stat(pid).map { $0.name.hasPrefix("WebKitNetwork") && $0.parent == me } ?? false
        })
    }

    /// The page still runs: its timer moves on and it answers a script.
    static func pageStillRuns(_ view: HybridWebView) async throws -> Bool {
        let before = try await view.page("return window.ticks;").numberValue ?? -1
        let after = try await view.page("await new Promise(r => setTimeout(r, 50)); return window.ticks;").numberValue ?? -1
        return after > before && view.engine.url?.lastPathComponent == "index.html"
    }

    func expectSaved(_ result: Outcome,
                     as name: String, in directory: URL) async throws {
        let file = directory.appendingPathComponent(name)
        #expect(result.download.suggestedFilename == name)
        #expect(result.end == .finished(file: file))
        #expect(try Data(contentsOf: file) == Self.payload)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == [name])
        let progress = result.rig.delegate.downloadEvents.filter { if case .progress = $0.event { true } else { false } }
        #expect(!progress.isEmpty, "progress was reported")
        if case .progress(let received, _)? = progress.last?.event { #expect(received == Int64(Self.payload.count)) }
        #expect(try await Self.pageStillRuns(result.view))
    }

    /// A name that climbed out was made a plain file name (the engine's own replacement of the
    /// slashes, `_.._escape.bin` on Blink, or ours, `escape.bin`), saved in the directory only.
    func expectContained(_ result: Outcome,
                         named name: String, in directory: URL) async throws {
        let saved = result.download.suggestedFilename
        #expect(saved.hasSuffix(name) && !saved.contains("/") && !saved.hasPrefix("."), "saved as \(saved)")
        try await expectSaved(result, as: saved, in: directory)
        let parent = directory.deletingLastPathComponent()
        for escaped in [parent, parent.deletingLastPathComponent(), parent.deletingLastPathComponent().deletingLastPathComponent()] {
            #expect(!FileManager.default.fileExists(atPath: escaped.appendingPathComponent(name).path))
        }
    }

    typealias Outcome = (rig: DataRig, view: HybridWebView, download: Download, end: DownloadEvent?)

    /// Runs a download started by `script` into a fresh directory, checks it, and cleans up.
    func run(_ kind: EngineKind, _ script: String,
             place: @escaping (Download, URL) -> DownloadDecision = { .save(to: $0.destination(in: $1)) },
             check: (Outcome, URL) async throws -> Void) async throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let outcome = try await Self.download(kind, script, in: directory, place: place)
        do { try await check(outcome, directory) } catch {
            await outcome.rig.close()
            throw error
        }
        await outcome.rig.close()
    }

    @Test(arguments: EngineKind.allCases)
    func downloadAttributeSavesWhereTheDelegateSays(_ kind: EngineKind) async throws {
        try await run(kind, "document.getElementById('attr').click()") { (result, directory) async throws in
            try await expectSaved(result, as: "report.bin", in: directory)
            #expect(result.download.sourceURL.lastPathComponent == "file.bin")
            #expect(result.download.origin?.description == result.rig.servers.first.map { BridgeOrigin(url: $0.url())!.description })
        }
    }

    @Test(arguments: EngineKind.allCases)
    func blobURLDownloads(_ kind: EngineKind) async throws {
        let script = "fetch('file.bin').then(r => r.blob()).then(b => save(URL.createObjectURL(b), 'blob.bin'))"
        try await run(kind, script) { (result, directory) async throws in
            #expect(result.download.sourceURL.scheme == "blob")
            try await expectSaved(result, as: "blob.bin", in: directory)
        }
    }

    @Test(arguments: EngineKind.allCases)
    func dataURLDownloads(_ kind: EngineKind) async throws {
        let script = """
            fetch('file.bin').then(r => r.arrayBuffer()).then(b => {
              let s = ''; const u = new Uint8Array(b);
              for (let i = 0; i < u.length; i += 0x8000) s += String.fromCharCode.apply(null, u.subarray(i, i + 0x8000));
              save('data:application/octet-stream;base64,' + btoa(s), 'data.bin');
            })
            """
        try await run(kind, script) { (result, directory) async throws in
            #expect(result.download.sourceURL.scheme == "data")
            try await expectSaved(result, as: "data.bin", in: directory)
        }
    }

    /// An attachment whose file name climbs out (`../../../attached.txt`) lands in the directory.
    @Test(arguments: EngineKind.allCases)
    func attachmentResponseDownloadsAndItsNameCannotEscape(_ kind: EngineKind) async throws {
        try await run(kind, "document.getElementById('attach').click()") { (result, directory) async throws in
            try await expectContained(result, named: "attached.txt", in: directory)
        }
    }

    @Test(arguments: EngineKind.allCases)
    func downloadAttributeWithTraversalStaysInTheDirectory(_ kind: EngineKind) async throws {
        try await run(kind, "document.getElementById('evil').click()") { (result, directory) async throws in
            try await expectContained(result, named: "escape.bin", in: directory)
        }
    }

    @Test(arguments: EngineKind.allCases)
    func unshowableResponseBecomesADownload(_ kind: EngineKind) async throws {
        try await run(kind, "document.getElementById('odd').click()") { (result, directory) async throws in
            try await expectSaved(result, as: result.download.suggestedFilename, in: directory)
            #expect(result.download.sourceURL.lastPathComponent == "odd.bin")
        }
    }

    @Test(arguments: EngineKind.allCases)
    func cancelledDownloadLeavesNoFile(_ kind: EngineKind) async throws {
        try await run(kind, "document.getElementById('attr').click()", place: { _, _ in .cancel }) { (result, directory) async throws in
            #expect(try await Self.pageStillRuns(result.view))
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
            #expect(result.rig.delegate.downloadEvents.isEmpty, "a download the app never placed reports nothing")
        }
    }

    /// A download started inside a third-party iframe (another origin on the same server) is
    /// attributed to the iframe's origin, never to the page that embeds it.
    @Test(arguments: EngineKind.allCases)
    func aForeignIframesDownloadCarriesItsOwnOrigin(_ kind: EngineKind) async throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (rig, server) = try Self.rig(kind)
        rig.servers.append(server)
        let frame = server.url("/frame.html", host: "localhost")
        server.route("/host.html") { _ in .html("<title>host</title><iframe src='\(frame.absoluteString)'></iframe>") }
        server.route("/frame.html") { _ in .html("<script>location.href = '/attach.bin';</script>") }
        rig.delegate.downloadAnswer = { .save(to: $0.destination(in: directory)) }
        let view = try rig.view()
        try await view.loadAndWait(server.url("/host.html"))
        try await eventually("the iframe's download") { !rig.delegate.downloads.isEmpty }
        let download = rig.delegate.downloads[0]
        try await eventually("its end") { rig.delegate.end(of: download.id) != nil }
        await rig.close()
        #expect(download.origin == BridgeOrigin(url: frame))
        #expect(download.origin != BridgeOrigin(url: server.url("/")))
    }

    /// A file of the app's own pages (a custom scheme on WebKitGTK, served by the view's handler;
    /// the intercepted https origin on Blink) downloads like any other.
    @Test(arguments: EngineKind.allCases)
    func aFileOfTheAppsOwnSchemeDownloads(_ kind: EngineKind) async throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let rig = try DataRig(kind, pages: ["index.html": Self.indexPage])
        rig.pages.add("attach.bin", type: "application/octet-stream",
                      headers: [("Content-Disposition", "attachment; filename=\"receipt.bin\"")], body: Self.payload)
        rig.delegate.downloadAnswer = { .save(to: $0.destination(in: directory)) }
        let view = try rig.view()
        try await view.loadAndWait(kind.url("index.html"))
        _ = try await view.engine.evaluate("document.getElementById('attach').click(); 0")
        try await eventually("the download's question") { !rig.delegate.downloads.isEmpty }
        let download = rig.delegate.downloads[0]
        try await eventually("the download's end") { rig.delegate.end(of: download.id) != nil }
        let outcome: Outcome = (rig, view, download, rig.delegate.end(of: download.id))
        try await expectSaved(outcome, as: "receipt.bin", in: directory)
        #expect(download.origin?.description == kind.origin("app"))
        await rig.close()
    }

    @Test(arguments: EngineKind.allCases)
    func withoutADelegateNothingIsDownloaded(_ kind: EngineKind) async throws {
        let (rig, server) = try Self.rig(kind)
        rig.servers.append(server)
        let hits = Locked(0)
        server.route("/attach.bin") { _ in
            hits.mutate { $0 += 1 }
            return ServerResponse(headers: ["Content-Type": "text/plain", "Content-Disposition": "attachment"], body: Data("x".utf8))
        }
        let view = try rig.view()
        view.delegate = nil
        try await view.loadAndWait(server.url("/index.html"))
        _ = try await view.engine.evaluate("document.getElementById('attach').click()")
        try await eventually("the attachment request") { hits.value > 0 }
        #expect(try await Self.pageStillRuns(view))
        await rig.close()
    }
}
