import Foundation
import HybridCommandLine
#if os(Linux)
import HybridGTK
#endif

// `hybrid-demo [DIR] [--out DIR]`: see `hybrid-demo --help` (also `hybrid demo`, what `make demo` runs).
#if os(Linux)
GLibMainLoop.resetSignalMask()
#endif
exit(DemoCommand.main(Array(CommandLine.arguments.dropFirst()), tool: ForwardedInvocation.toolName(else: "hybrid-demo")))
