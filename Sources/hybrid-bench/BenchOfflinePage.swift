import Foundation
import HybridFixtures

/// The page `hybrid bench offline` loads: 60 files as a typical H5 page has them — one HTML
/// document, 15 style sheets, 24 scripts and 20 PNG images — about 340 KB in all. Version 2
/// changes 3 of them (a style sheet, a script, an image) and nothing else.
enum BenchOfflinePage {
    static let styleSheets = 15, scripts = 24, images = 20
    static let imageSide = 48
    static var fileCount: Int { 1 + styleSheets + scripts + images }
    /// The files version 2 changes.
    static let changed = ["css/c00.css", "js/m00.js", "img/i00.png"]

    static func files(version: Int) -> [String: Data] {
        var files: [String: Data] = [:]
        var head = "", body = ""
        for index in 0..<styleSheets {
            let name = "css/c\(pad(index)).css"
            head += "<link rel=\"stylesheet\" href=\"\(name)\">\n"
            // The first sheet carries the version, so a load can prove which version it saw.
            var css = index == 0 ? "body { background-color: rgb(\(version), 2, 3); }\n" : ""
            for rule in 0..<80 {
                css += ".s\(index)-\(rule) { margin: \(rule % 7)px \(rule % 5)px; padding: \(rule % 3)px; color: rgb(\(rule), \(index * 9), \((rule * index) % 256)); }\n"
            }
            files[name] = Data(css.utf8)
        }
        for index in 0..<scripts {
            let name = "js/m\(pad(index)).js"
            head += "<script src=\"\(name)\"></script>\n"
            var js = index == 0 ? "window.__version = \(version);\n" : ""
            for function in 0..<60 {
                js += "function f\(index)_\(function)(a, b) { const x = a * \(function + 1) + b; return x > \(index * 10) ? x - \(function) : x + \(index); }\n"
            }
            js += "window.__scripts = (window.__scripts || 0) + 1;\n"
            files[name] = Data(js.utf8)
        }
        for index in 0..<images {
            let name = "img/i\(pad(index)).png"
            body += "<img src=\"\(name)\" width=\"\(imageSide)\" height=\"\(imageSide)\" alt=\"\">\n"
            // Noise, as photographs are: it does not compress, so every byte crosses the wire.
            var seed = UInt32(index * 7919 + (index == 0 ? version * 104_729 : 0) + 1)
            files[name] = TestPNG.rgb(width: imageSide, height: imageSide) { _, _ in
                seed = seed &* 1_664_525 &+ 1_013_904_223
                return (UInt8(seed >> 24), UInt8((seed >> 16) & 0xff), UInt8((seed >> 8) & 0xff))
            }
        }
        let html = """
            <!doctype html><html><head><meta charset="utf-8"><title>offline bench</title>
            \(head)</head><body><h1>Offline bench page</h1>
            \((0..<100).map { "<p class=\"s\($0 % styleSheets)-\($0)\">Paragraph \($0) of the page.</p>" }.joined(separator: "\n"))
            \(body)</body></html>
            """
        files["index.html"] = Data(html.utf8)
        return files
    }

    /// Proves a load is complete and whole: every script ran, every image decoded.
    static let completeCheck = """
        window.__scripts === \(scripts) && document.styleSheets.length === \(styleSheets)
            && Array.from(document.images).every(i => i.complete && i.naturalWidth === \(imageSide))
            && document.images.length === \(images)
        """

    static func write(_ files: [String: Data], to directory: URL) throws {
        for (path, data) in files {
            let url = directory.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try data.write(to: url)
        }
    }

    private static func pad(_ index: Int) -> String { index < 10 ? "0\(index)" : "\(index)" }
}
