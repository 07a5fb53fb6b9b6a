import Foundation
import HybridCore
import HybridFixtures
import Testing

/// `<input type=file>` on the real engines: the picker reaches the delegate with the input's
/// attributes and origin, and the files it answers reach the page with names, types and bytes.
@Suite("Data: file pickers", .serialized)
@MainActor
struct DataFileChooserTests {
    static let page = """
        <title>pick</title>
        <input id=f type=file multiple accept="image/png,text/plain">
        <input id=one type=file>
        <script>
        window.changes = 0;
        window.picked = new Promise(resolve => {
          document.getElementById('f').addEventListener('change', async e => {
            window.changes++;
            const files = [...e.target.files];
            resolve(await Promise.all(files.map(async f => ({
              name: f.name, type: f.type, size: f.size,
              bytes: Array.from(new Uint8Array(await f.arrayBuffer())).join(','),
            }))));
          });
        });
        </script>
        """

    static func files() throws -> (directory: URL, text: URL, png: URL) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hybridkit-pick-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let text = directory.appendingPathComponent("notes.txt"), png = directory.appendingPathComponent("pixel.png")
        try Data("hello, picker\n".utf8).write(to: text)
        try TestPNG.rgb(width: 2, height: 2) { x, y in (UInt8(x * 100), UInt8(y * 100), 7) }.write(to: png)
        return (directory, text, png)
    }

    /// The picker page on `kind`, with a delegate that answers with a text file and a PNG.
    static func open(_ kind: EngineKind) async throws -> (DataRig, HybridWebView, URL, URL, URL) {
        try kind.require(.fileChoosers)
        let (directory, text, png) = try files()
        let rig = try DataRig(kind, pages: ["pick.html": page])
        rig.delegate.files = [text, png]
        let view = try rig.view()
        try await view.loadAndWait(kind.url("pick.html"))
        return (rig, view, directory, text, png)
    }

    @Test(arguments: EngineKind.allCases)
    func chosenFilesReachThePageWithNamesTypesAndBytes(_ kind: EngineKind) async throws {
        let (rig, view, directory, text, png) = try await Self.open(kind)
        defer { try? FileManager.default.removeItem(at: directory) }
        _ = try await view.engine.evaluate("document.getElementById('f').click(); 0")
        let picked = try await view.page("return await window.picked;")
        await rig.close()
        let files = picked.arrayValue ?? []
        #expect(files.map { $0["name"]?.stringValue } == ["notes.txt", "pixel.png"])
        #expect(files.map { $0["type"]?.stringValue } == ["text/plain", "image/png"])
        #expect(files.first?["bytes"]?.stringValue == Array(try Data(contentsOf: text)).map(String.init).joined(separator: ","))
        #expect(files.last?["bytes"]?.stringValue == Array(try Data(contentsOf: png)).map(String.init).joined(separator: ","))
        let request = try #require(rig.delegate.fileRequests.first)
        #expect(rig.delegate.fileRequests.count == 1)
        #expect(request.allowsMultiple)
        #expect(request.acceptTypes.contains("image/png") && request.acceptTypes.contains("text/plain"))
        // WebKitGTK names no frame for a picker: unknown, not the page's by guess.
        #expect(request.origin?.description == (kind == .webkit ? nil : kind.origin("app")))
    }

    @Test(arguments: EngineKind.allCases)
    func aSingleFileInputGetsOneFileEvenWhenOfferedMore(_ kind: EngineKind) async throws {
        let (rig, view, directory, _, _) = try await Self.open(kind)
        defer { try? FileManager.default.removeItem(at: directory) }
        _ = try await view.page("""
            window.single = new Promise(r => document.getElementById('one').addEventListener('change', e => r([...e.target.files].map(f => f.name))));
            return true;
            """)
        _ = try await view.engine.evaluate("document.getElementById('one').click(); 0")
        let names = try await view.page("return await window.single;")
        await rig.close()
        #expect(names == .array([.string("notes.txt")]))
        #expect(rig.delegate.fileRequests.first?.allowsMultiple == false)
    }

    @Test(arguments: EngineKind.allCases)
    func noAnswerLeavesTheInputEmpty(_ kind: EngineKind) async throws {
        let (rig, view, directory, _, _) = try await Self.open(kind)
        defer { try? FileManager.default.removeItem(at: directory) }
        rig.delegate.files = []
        _ = try await view.engine.evaluate("document.getElementById('f').click(); 0")
        try await eventually("the picker's question") { !rig.delegate.fileRequests.isEmpty }
        // A second picker opens only once the first was answered (engines allow one at a time).
        _ = try await view.engine.evaluate("document.getElementById('f').click(); 0")
        try await eventually("the second picker's question") { rig.delegate.fileRequests.count == 2 }
        let state = try await view.page("return [document.getElementById('f').files.length, window.changes];")
        await rig.close()
        #expect(state == .array([.number(0), .number(0)]))
    }
}
