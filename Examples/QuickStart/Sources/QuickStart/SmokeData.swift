import Foundation
import HybridCore

/// The smoke test's data-plane checks, on the real engine: the shop page's `<a download>` of a
/// receipt it made lands where the quick start's delegate put it (``ShopFiles/downloads``) with
/// the page's bytes, and a file the app's picker answers reaches the page with its name and bytes.
extension Smoke {
    /// The receipt the page makes (`smokeSaveReceipt()` in ``Smoke/page``): every byte value, so a
    /// lossy path shows. The page computes the same bytes.
    static let receipt = Data((0..<1024).map { UInt8(($0 * 7 + ($0 >> 8)) & 255) })
    /// The file the app's picker answers: a name with a space and bytes that are not text.
    static let pickedName = "order note.bin"
    static let pickedBytes = Data("tea, twice\n".utf8) + Data((0..<256).map { UInt8($0) })

    /// Saves the page's receipt and answers its file picker, as a user tapping "Save receipt" and
    /// "Attach" would (script from the app counts as a user gesture, as a tap does).
    @MainActor
    static func dataChecks(_ view: HybridWebView, picks: AsyncStream<SmokeModule.Picked>, work: URL) async -> [SmokeModule.Check] {
        guard let files = (view.delegate as? ShopDelegate)?.files else {
            return [.init(name: "the quick start's delegate", ok: false, detail: "the view has no ShopDelegate")]
        }
        let policy = view.configuration.permissions
        let shop = BridgeOrigin(url: URL(string: "app://m.example.com/")!)!
        let other = BridgeOrigin(url: URL(string: "https://ads.example.net/")!)!
        var checks: [SmokeModule.Check] = [
            .init(name: "permission policy on the pooled view",
                  ok: policy?.rule(for: .camera, at: shop) == .ask && policy?.rule(for: .geolocation, at: shop) == .deny
                      && policy?.rule(for: .camera, at: other) == .deny,
                  detail: "camera: shop asks, others denied; position denied"),
        ]

        // <a download>: placed by the delegate, the page's bytes on disk.
        _ = try? await view.engine.evaluate("smokeSaveReceipt(); 0")
        for _ in 0..<300 where files.finished.isEmpty && files.failures.isEmpty {
            try? await Task.sleep(nanoseconds: 50_000_000)
        }
        let expected = files.downloads.appendingPathComponent("receipt.bin")
        let saved = files.finished.first
        let bytes = saved.flatMap { try? Data(contentsOf: $0) }
        checks.append(.init(name: "<a download> saved where the delegate placed it",
                            ok: saved == expected && bytes == receipt,
                            detail: saved.map { "\($0.path), \(bytes?.count ?? 0) bytes\(bytes == receipt ? ", the page's" : ", not the page's")" }
                                ?? files.failures.values.first.map { "\($0)" } ?? "no download within 15 s"))

        // <input type=file>: the app's picker answers, the page reads the file.
        let chosen = work.appendingPathComponent("picked", isDirectory: true).appendingPathComponent(pickedName)
        do {
            try FileManager.default.createDirectory(at: chosen.deletingLastPathComponent(), withIntermediateDirectories: true)
            try pickedBytes.write(to: chosen)
        } catch {
            return checks + [.init(name: "the picker's file", ok: false, detail: "\(error)")]
        }
        var asked: [FileChooserRequest] = []
        files.picker = { request in
            asked.append(request)
            return [chosen]
        }
        _ = try? await view.engine.evaluate("document.getElementById('attach').click(); 0")
        let picked = await first(of: picks, within: 15)
        checks.append(.init(name: "a file the app's picker chose reached the page",
                            ok: picked?.name == pickedName && picked.map { Data($0.bytes) } == pickedBytes,
                            detail: picked.map { "\($0.name), \($0.bytes.count) bytes" } ?? "nothing picked within 15 s"))
        checks.append(.init(name: "the picker was asked with the input's accept list",
                            ok: asked.count == 1 && asked.first?.acceptTypes.isEmpty == false,
                            detail: asked.first.map { "accept \($0.acceptTypes)" } ?? "not asked"))
        return checks
    }

    /// The first value of `stream`, or `nil` after `seconds`.
    static func first<T: Sendable>(of stream: AsyncStream<T>, within seconds: Double) async -> T? {
        await withTaskGroup(of: T?.self) { group in
            group.addTask {
                for await value in stream { return value }
                return nil
            }
            group.addTask {
                try? await Task.sleep(nanoseconds: UInt64(seconds * 1_000_000_000))
                return nil
            }
            let value = await group.next() ?? nil
            group.cancelAll()
            return value
        }
    }
}
