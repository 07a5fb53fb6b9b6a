import Foundation
@testable import HybridCore
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
