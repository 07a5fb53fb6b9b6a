import Foundation
import HybridGTK
import Testing

// The end-to-end suite's entry point: GLib owns the main thread and drains the MainActor, as in
// the app; then Swift Testing runs every suite in this target (arguments as for `swift test`).
GLibMainLoop.resetSignalMask()
signal(SIGPIPE, SIG_IGN)
_ = try GLibMainLoop.run { () async -> Int32 in
    await Testing.__swiftPMEntryPoint(passing: nil) as Never
}
