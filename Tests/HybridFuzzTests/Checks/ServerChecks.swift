import Foundation
@testable import HybridBridge
@testable import HybridCore
@testable import HybridNetwork
@testable import HybridBase
@testable import HybridEngine
@testable import HybridHTTP
@testable import HybridHealth
@testable import HybridPackages
@testable import HybridServer

/// What `hybrid serve` reads from a request: path, query, `Host`, `Range`, validators and
/// `Accept-Encoding` (libsoup has parsed the HTTP framing; everything after is ours).
///
/// Input: lines `method`, `path`, `query`, then `name: value` headers. The request is answered by
/// ``StaticFiles`` over a small directory whose neighbour holds a secret, and a symbolic link
/// inside that points at it. Properties:
/// - Only documented statuses (200, 206, 301, 304, 404, 405, 416); a body is always bytes of a
///   file inside the root — never the secret; a 206 body is what its `Content-Range` says.
/// - Decoded path segments never climb out (`.`, `..`, separators, NUL).
/// - Query items and the host name parse without failing; the host is lower-case.
enum ServerChecks {
    static let secret = Data("TOP-SECRET-OUTSIDE-THE-ROOT".utf8)
    static let site: (root: URL, files: [Data]) = {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("hybrid-fuzz-site-\(getpid())")
        let root = base.appendingPathComponent("root")
        let manager = FileManager.default
        try? manager.createDirectory(at: root.appendingPathComponent("sub dir"), withIntermediateDirectories: true)
        let files: [(String, Data)] = [
            ("index.html", Data(("<!doctype html><title>fuzz</title>" + String(repeating: "<p>hello</p>", count: 40)).utf8)),
            ("a.txt", Data("plain text\n".utf8)),
            ("sub dir/app.js", Data(String(repeating: "console.log(1);\n", count: 30).utf8)),
            ("sub dir/index.html", Data("<p>sub</p>".utf8)),
        ]
        for (path, data) in files { try? data.write(to: root.appendingPathComponent(path)) }
        try? secret.write(to: base.appendingPathComponent("secret.txt"))
        try? manager.createSymbolicLink(atPath: root.appendingPathComponent("out.txt").path, withDestinationPath: "../secret.txt")
        return (root, files.map(\.1))
    }()
    static let statuses: Set<Int> = [200, 206, 301, 304, 404, 405, 416]

    static func check(_ bytes: [UInt8]) throws {
        let parts = fields(bytes, 4)
        var headers = HTTPHeaders()
        for line in parts[3].split(separator: "\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers.add(String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        let request = ServerRequest(method: parts[0], path: parts[1], rawQuery: parts[2].isEmpty ? nil : parts[2], headers: headers)
        _ = request.queryItems
        if let host = request.hostName { try require(host == host.lowercased(), "host \(host) is not lower-case") }
        _ = GzipEncoding.accepts(headers["Accept-Encoding"])
        _ = headers["If-Modified-Since"].flatMap(HTTPDate.parse)
        for prefix in ["/", "/static"] {
            if let segments = StaticFiles.segments(of: request.path, below: prefix) {
                for segment in segments {
                    try require(!segment.isEmpty && segment != "." && segment != ".." && !segment.contains("/")
                                && !segment.contains("\\") && !segment.contains("\0"), "segment \(segment.debugDescription) escapes")
                }
            }
        }
        var files = StaticFiles(root: site.root)
        for gzip in [true, false] {
            files.gzip = gzip
            let response = files.respond(to: request)
            try require(statuses.contains(response.status), "status \(response.status)")
            try require(response.body.range(of: secret) == nil, "the secret outside the root was served")
            switch response.status {
            case 200 where response.headers["Content-Encoding"] == nil:
                try require(site.files.contains(response.body), "a 200 body that is no file of the root")
            case 206:
                let range = response.headers["Content-Range"] ?? ""
                try require(site.files.contains { $0.count > 0 && $0.range(of: response.body) != nil } && !response.body.isEmpty,
                            "a 206 body that is no part of a file")
                try require(range.hasPrefix("bytes ") && range.contains("/"), "Content-Range \(range)")
                let numbers = range.dropFirst(6).split(whereSeparator: { $0 == "-" || $0 == "/" }).compactMap { Int($0) }
                try require(numbers.count == 3 && numbers[1] - numbers[0] + 1 == response.body.count && numbers[1] < numbers[2],
                            "Content-Range \(range) for \(response.body.count) bytes")
            case 304:
                try require(response.body.isEmpty, "a 304 with a body")
            default: break
            }
        }
    }
}
