import Foundation
@testable import HybridBridge
@testable import HybridCore
@testable import HybridNetwork
@testable import HybridBase
@testable import HybridEngine
@testable import HybridHTTP
@testable import HybridHealth
@testable import HybridPackages
import HybridCrypto
import Testing

/// Every document download stops at its limit as the bytes arrive and at its deadlines, with a
/// typed code, against a raw loopback server that misbehaves on purpose.
@Suite(.serialized) struct BoundedDownloadTests {
    /// The failure of updating `shop` from `server`, and how long the update took (the fixture's
    /// key generation and repository server not counted).
    private func failure(_ server: MisbehavingServer, deadlines: DownloadDeadlines = .init(overall: 5, stall: 2)) async throws -> (PackageFailure?, TimeInterval) {
        let fixture = try UpdateFixture()
        let updater = PackageUpdater(repository: server.url, installer: fixture.installer, timeout: 10, deadlines: deadlines)
        let started = Date()
        do {
            _ = try await updater.update("shop")
            return (nil, Date().timeIntervalSince(started))
        } catch HybridError.package(let reason) {
            return (reason, Date().timeIntervalSince(started))
        }
    }

    @Test func declaredContentLengthOverTheLimitIsRefusedBeforeReading() async throws {
        let server = MisbehavingServer.declaring(2_147_483_648)
        defer { server.stop() }
        let (failed, elapsed) = try await failure(server)
        let reason = try #require(failed)
        #expect(reason.code == "too_large")
        #expect("\(reason)".contains("declares 2147483648 bytes"))
        #expect(elapsed < 10)
        #expect(server.bytesWritten < 1 << 20)
    }

    @Test func endlessBodyStopsAtTheLimit() async throws {
        let server = MisbehavingServer.endless()
        defer { server.stop() }
        let reason = try #require(try await failure(server).0)
        #expect(reason.code == "too_large")
        #expect("\(reason)".contains("more than 16777216 bytes"))
    }

    @Test func tricklingBodyStallsOrTimesOut() async throws {
        let server = MisbehavingServer.trickling(every: 0.2)
        defer { server.stop() }
        let stalled = try #require(try await failure(server, deadlines: .init(overall: 30, stall: 0.1)).0)
        #expect(stalled.code == "stalled")
        let (failed, elapsed) = try await failure(server, deadlines: .init(overall: 1, stall: 5))
        let timedOut = try #require(failed)
        #expect(timedOut.code == "timeout")
        #expect(elapsed < 10)
    }

    @Test func headersThatNeverComeStall() async throws {
        let server = MisbehavingServer.silent()
        defer { server.stop() }
        let (failed, elapsed) = try await failure(server, deadlines: .init(overall: 30, stall: 1))
        let reason = try #require(failed)
        #expect(reason.code == "stalled")
        #expect("\(reason)".contains("no byte for 1 s"))
        #expect(elapsed < 10)
    }
}

/// Blobs stream under the same deadlines: a repository whose documents answer but whose blobs
/// stall fails `stalled` within its deadline and leaves the active version serving.
@Suite(.serialized) struct BoundedBlobDownloadTests {
    @Test func aStallingBlobIsAbandonedAndTheActiveVersionKeepsServing() async throws {
        let fixture = try UpdateFixture()
        try fixture.publish(version: 1, files: UpdateFixture.site(version: 1))
        _ = try await fixture.updater.update("app")
        try fixture.publish(version: 2, files: UpdateFixture.site(version: 2, changed: 2))
        let repository = fixture.repository
        // Documents from the repository's files; a blob sends its headers and one byte, then nothing.
        let server = MisbehavingServer(answering: { head, send, stopped in
            let path = String(head.split(separator: " ").dropFirst().first ?? "").trimmingCharacters(in: CharacterSet(charactersIn: "/"))
            guard !path.hasPrefix("blobs/") else {
                _ = send("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nx\r\n")
                while !stopped() { usleep(20_000) }
                return
            }
            guard let data = FileManager.default.contents(atPath: repository.appendingPathComponent(path).path) else {
                _ = send("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n")
                return
            }
            _ = send("HTTP/1.1 200 OK\r\nContent-Length: \(data.count)\r\n\r\n" + String(decoding: data, as: UTF8.self))
        })
        defer { server.stop() }
        let updater = PackageUpdater(repository: server.url, installer: fixture.installer, timeout: 10,
                                     deadlines: .init(overall: 30, stall: 0.5))
        let started = Date()
        let error = await #expect(throws: HybridError.self) { _ = try await updater.update("app") }
        #expect(error?.code == "stalled", "\(String(describing: error))")
        #expect(Date().timeIntervalSince(started) < 10)
        #expect(try fixture.store.activePackage("app").manifest.version == 1)
        #expect(try fixture.activeIndex().contains("<title>site</title>"))
    }
}

/// Remote config shares the bounded fetch: an endless body and silence fail with typed codes.
@Suite(.serialized) struct RemoteConfigBoundedDownloadTests {
    private func refreshFailure(_ server: MisbehavingServer, deadlines: DownloadDeadlines) async throws -> ConfigFailure? {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hk-cfg-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let verifier = try Ed25519Verifier(publicKey: try Ed25519Signer.generate().publicKey)
        let client = RemoteConfigClient(options: .init(repository: server.url, cache: RemoteConfigCache(directory: directory),
                                                       installID: "test", deadlines: deadlines), verifier: verifier)
        do {
            _ = try await client.refresh()
            return nil
        } catch HybridError.config(let reason) {
            return reason
        }
    }

    @Test func endlessConfigBodyIsTooLarge() async throws {
        let server = MisbehavingServer.endless()
        defer { server.stop() }
        let reason = try #require(try await refreshFailure(server, deadlines: .init(overall: 10, stall: 5)))
        #expect(reason.code == "too_large")
        #expect("\(reason)".contains("more than 1048576 bytes"))
    }

    @Test func silentConfigServerStalls() async throws {
        let server = MisbehavingServer.silent()
        defer { server.stop() }
        let reason = try #require(try await refreshFailure(server, deadlines: .init(overall: 10, stall: 1)))
        #expect(reason.code == "stalled")
    }
}
