import Foundation
import HybridCommandLine
#if os(Linux)
import HybridGTK
#endif

// `hybrid-bench SUITE [--json]`: see `hybrid-bench --help` (also `hybrid bench`).
#if os(Linux)
GLibMainLoop.resetSignalMask()
#endif
exit(BenchCommand.main(Array(CommandLine.arguments.dropFirst()), tool: ForwardedInvocation.toolName(else: "hybrid-bench")))
