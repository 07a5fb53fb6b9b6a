import Foundation

// `QuickStart --smoke [--timeout SECONDS] [--keep]`: publishes a tiny shop (fresh key, signed
// package, signed config) on a loopback server, runs the README's quick start (App.swift)
// against it in the real engine, and exits 0 when the page's checks pass: 1 when they fail or
// the app throws, 2 after the timeout, 64 for a bad command line. Needs a display (xvfb-run -a).
let usage = "usage: QuickStart --smoke [--timeout SECONDS] [--keep]"
var arguments = Array(CommandLine.arguments.dropFirst())
var timeout = 60.0
var keep = false
var smoke = false
while let argument = arguments.first {
    arguments.removeFirst()
    switch argument {
    case "--smoke": smoke = true
    case "--keep": keep = true
    case "--timeout":
        guard let value = arguments.first.flatMap(Double.init), value > 0 else {
            FileHandle.standardError.write(Data("\(usage)\n".utf8))
            exit(64)
        }
        arguments.removeFirst()
        timeout = value
    default:
        FileHandle.standardError.write(Data("\(usage)\n".utf8))
        exit(64)
    }
}
guard smoke else {
    FileHandle.standardError.write(Data("\(usage)\n".utf8))
    exit(64)
}

let limit = timeout
Thread.detachNewThread {
    Thread.sleep(forTimeInterval: limit)
    FileHandle.standardError.write(Data("quickstart smoke: FAILED, no report from the page after \(Int(limit)) s\n".utf8))
    exit(2)
}
do {
    exit(try Smoke(keep: keep).run() ? 0 : 1)
} catch {
    FileHandle.standardError.write(Data("quickstart smoke: FAILED, \(error)\n".utf8))
    exit(1)
}
