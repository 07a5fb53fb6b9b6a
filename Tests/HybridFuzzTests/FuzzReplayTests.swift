import Foundation
import Testing

/// Every seed in Fuzz/corpus and every minimised crash in Fuzz/regressions, run through its
/// target's property checks without libFuzzer: a fixed bug stays fixed, and the checks
/// themselves keep compiling and holding on the inputs they were seeded with.
@Suite("Fuzz corpora and regressions replay")
struct FuzzReplayTests {
    static let fuzzDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fuzz")

    static func inputs(_ target: FuzzTarget, in kind: String) -> [URL] {
        let directory = fuzzDirectory.appendingPathComponent(kind).appendingPathComponent(target.rawValue)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.sorted().filter { !$0.hasPrefix(".") }.map { directory.appendingPathComponent($0) }
    }

    @Test(arguments: FuzzTarget.allCases)
    func everyInputKeepsTheTargetsProperties(_ target: FuzzTarget) throws {
        let corpus = Self.inputs(target, in: "corpus")
        #expect(!corpus.isEmpty, "Fuzz/corpus/\(target.rawValue) has no seeds")
        for url in corpus + Self.inputs(target, in: "regressions") {
            let bytes = [UInt8](try Data(contentsOf: url))
            #expect(throws: Never.self, "\(url.lastPathComponent)") { try target.check(bytes) }
        }
    }

    @Test func everyTargetHasADirectoryOfSeedsAndNoStrayOnes() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.fuzzDirectory.appendingPathComponent("corpus").path)
        #expect(Set(names.filter { !$0.hasPrefix(".") }) == Set(FuzzTarget.allCases.map(\.rawValue)))
    }
}
