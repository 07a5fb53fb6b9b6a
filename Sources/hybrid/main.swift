import Foundation
#if os(Linux)
import HybridGTK
#endif

// `hybrid COMMAND [OPTIONS]`: see `hybrid --help`.
#if os(Linux)
GLibMainLoop.resetSignalMask()
#endif
exit(CommandLineTool.run(Array(CommandLine.arguments.dropFirst())))
