import Foundation
import HybridCore
import HybridServer

/// Serves a package repository directory from HybridServer's loopback server, with single
/// `Range` support, a log of what was asked for, and a hook to inject faults per request.
final class RepositoryServer: @unchecked Sendable {
    /// Return a response to override the normal one for a repository-relative path.
    typealias Fault = @Sendable (_ path: String, _ request: ServerRequest) -> ServerResponse?

    let server: LoopbackServer
    let directory: URL
    private let lock = NSLock()
    private var log: [(path: String, range: String?, time: Date)] = []
    private var fault: Fault?

    init(directory: URL) throws {
        server = try LoopbackServer()
        self.directory = directory
        server.route("/repo") { [weak self] request in
            self?.answer(request) ?? .status(503)
        }
    }

    var url: URL { server.url("/repo/") }

    func inject(_ fault: Fault?) { lock.withLock { self.fault = fault } }

    /// Requests seen so far (repository-relative path, Range header).
    var requests: [(path: String, range: String?, time: Date)] { lock.withLock { log } }
    func resetLog() { lock.withLock { log = [] } }
    var blobRequests: [String] { requests.map(\.path).filter { $0.hasPrefix("blobs/") } }

    private func answer(_ request: ServerRequest) -> ServerResponse {
        let path = String(request.path.dropFirst("/repo/".count)).removingPercentEncoding ?? ""
        let fault = lock.withLock { () -> Fault? in
            log.append((path, request.headers["Range"], Date()))
            return self.fault
        }
        if let override = fault?(path, request) { return override }
        guard !path.contains(".."), let data = FileManager.default.contents(atPath: directory.appendingPathComponent(path).path) else {
            return .status(404)
        }
        if let range = request.headers["Range"], range.hasPrefix("bytes="), range.hasSuffix("-"),
           let start = Int(range.dropFirst("bytes=".count).dropLast()), start < data.count {
            return ServerResponse(status: 206, headers: ["Content-Range": "bytes \(start)-\(data.count - 1)/\(data.count)",
                                                         "Content-Type": "application/octet-stream"], body: data.subdata(in: start..<data.count))
        }
        return ServerResponse(status: 200, headers: ["Content-Type": "application/octet-stream"], body: data)
    }
}
