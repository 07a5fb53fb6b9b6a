import Foundation

// `hybrid COMMAND [OPTIONS]`: see `hybrid --help`.
exit(CommandLineTool.run(Array(CommandLine.arguments.dropFirst())))
