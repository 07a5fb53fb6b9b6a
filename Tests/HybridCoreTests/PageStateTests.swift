import Foundation
import HybridCore
import Testing

@Suite("Restore: page-state snapshots")
struct PageStateTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    let page = URL(string: "https://m.example.com/shop/c")!

    func state(taken: Date? = nil, history: [URL]? = nil) -> PageState {
        PageState(url: page, history: history ?? [URL(string: "https://m.example.com/shop/a")!],
                  sessionStorage: ["cart": "3 items"], scrollY: 900,
                  fields: [.init(key: "0/name/0", value: "Ada"), .init(key: "0/agree/0", checked: true)],
                  taken: taken ?? now.addingTimeInterval(-60))
    }

    @Test func aSnapshotRoundTripsThroughItsBytes() throws {
        let bytes = try state().encoded()
        #expect(try PageState.decode(bytes, now: now) == state())
    }

    @Test func corruptBytesAreRefusedWithTheirCode() throws {
        #expect(throws: HybridError.restore(.corrupt("not a page state snapshot"))) {
            try PageState.decode(Data("{\"url\":\"https://m.example.com/\"}".utf8), now: now)
        }
        var bytes = try state().encoded()
        bytes.removeLast(10)
        #expect { try PageState.decode(bytes, now: now) } throws: { ($0 as? HybridError)?.code == "restore_corrupt" }
    }

    @Test func anExpiredSnapshotIsRefused() throws {
        let taken = now.addingTimeInterval(-7200)
        let bytes = try state(taken: taken).encoded()
        #expect(throws: HybridError.restore(.expired(taken: taken, expired: taken.addingTimeInterval(3600)))) {
            try PageState.decode(bytes, policy: RestorePolicy(maxAge: 3600), now: now)
        }
    }

    @Test func anOversizedSnapshotIsRefusedBeforeItIsRead() throws {
        let big = try state().encoded(policy: RestorePolicy(maxBytes: 1 << 20))
        #expect(throws: HybridError.restore(.tooLarge(size: big.count, limit: 64))) {
            try PageState.decode(big, policy: RestorePolicy(maxBytes: 64), now: now)
        }
        #expect(throws: HybridError.restore(.tooLarge(size: big.count, limit: 64))) {
            try state().encoded(policy: RestorePolicy(maxBytes: 64))
        }
    }

    @Test func aSnapshotNamingAnotherOriginIsRefused() throws {
        let bytes = try state(history: [URL(string: "https://evil.example/")!]).encoded()
        #expect(throws: HybridError.restore(.foreignOrigin(snapshot: "https://m.example.com", target: "https://evil.example"))) {
            try PageState.decode(bytes, now: now)
        }
    }
}
