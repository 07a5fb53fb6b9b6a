// The libFuzzer entry point for every target in Tests/HybridFuzzTests/Checks: one executable,
// the target chosen by the `FUZZ_TARGET` environment variable (scripts/fuzz.sh sets it), so the
// fuzz build links once, not once per parser. A broken property aborts with its description,
// which libFuzzer reports as a crash and saves the input of.
import Foundation

let target: FuzzTarget = {
    let name = ProcessInfo.processInfo.environment["FUZZ_TARGET"] ?? ""
    guard let target = FuzzTarget(rawValue: name) else {
        let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: " ")
        FileHandle.standardError.write(Data("FUZZ_TARGET must be one of: \(names) (got '\(name)')\n".utf8))
        exit(2)
    }
    return target
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    do {
        try target.check(bytes)
    } catch {
        fatalError("fuzz target \(target.rawValue): \(error)")
    }
    return 0
}
