import Foundation
import HybridCore
import HybridFixtures
import Testing

/// Request bodies sent to a custom scheme whose handler reads none.
@Suite("Engine: scheme request bodies", .serialized)
@MainActor
struct EngineSchemeBodyTests {
    /// Hostile: a page served by a file server (``DirectorySchemeHandler``, which reads no bodies)
    /// POSTs a `Blob` and a `FormData` with a file part to its own scheme. WebKitGTK 2.50 crashes
    /// the app process inside `webkit_uri_scheme_request_get_http_body` for such bodies; since the
    /// engine never reads a body for a handler that does not want one, the page gets the handler's
    /// `405` and the app lives on (the page still answers afterwards).
    @Test(arguments: EngineKind.allCases)
    func blobBodiesToAFileServerGetItsAnswerAndTheAppLives(_ kind: EngineKind) async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("hk-scheme-body-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        try Data("<title>Files</title><p>files</p>".utf8).write(to: root.appendingPathComponent("index.html"))
        let handler = DirectorySchemeHandler(root: root)
        #expect(!handler.readsRequestBodies)
        let engine = try kind.makeEngine(kind.pages(handler))
        defer { engine.close() }
        try await engine.loadAndWait(kind.url("index.html"))
        let statuses = try await engine.callAsync("""
            const blob = await fetch('/upload', { method: 'POST', body: new Blob(['0123456789abcdef']) });
            const form = new FormData();
            form.append('note', 'text');
            form.append('file', new File(['x'.repeat(4096)], 'photo.bin', { type: 'application/octet-stream' }));
            const multipart = await fetch('/upload', { method: 'POST', body: form });
            return blob.status + ' ' + multipart.status;
            """)
        #expect(statuses == "405 405")
        #expect(try await engine.evaluate("document.title") == "Files")
        #expect(engine.isAlive)
    }
}
