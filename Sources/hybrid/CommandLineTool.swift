import HybridCommandLine
import Foundation

enum CommandLineTool {
    /// Every subcommand, in the order `hybrid --help` lists them.
    static var commands: [any HybridCommand.Type] { [
        RunCommand.self,
        DemoForward.self,
        DoctorCommand.self,
        BenchForward.self,
        KeygenCommand.self,
        KeyCommand.self,
        PackCommand.self,
        VerifyCommand.self,
        UpdateCommand.self,
        RepoCommand.self,
        RolloutCommand.self,
        ServeCommand.self,
        ConfigCommand.self,
        HealthCommand.self,
        WebDriverCommand.self,
    ] }

    static func run(_ argv: [String]) -> Int32 {
        guard let name = argv.first, name != "--help", name != "-h", name != "help" else {
            // `hybrid help COMMAND` is `hybrid COMMAND --help`.
            if argv.first == "help", argv.count > 1, let command = commands.first(where: { $0.name == argv[1] }) {
                return command.main(["--help"], tool: "hybrid \(command.name)")
            }
            print(helpText)
            return argv.isEmpty ? 64 : 0
        }
        guard let command = commands.first(where: { $0.name == name }) else {
            FileHandle.standardError.write(Data("hybrid: unknown command '\(name)'\n\n\(helpText)\n".utf8))
            return 64
        }
        return command.main(Array(argv.dropFirst()), tool: "hybrid \(name)")
    }

    static var helpText: String {
        var lines = ["hybrid — the HybridKit container and publisher tool", "", "USAGE: hybrid COMMAND [OPTIONS]", "", "COMMANDS:"]
        for command in commands {
            lines.append("  " + command.name.padding(toLength: 10, withPad: " ", startingAt: 0) + command.summary)
        }
        lines.append("")
        lines.append("Run 'hybrid COMMAND --help' (or 'hybrid help COMMAND') for a command's options.")
        lines.append("")
        lines.append("START HERE:")
        lines.append("  hybrid demo                          the tour of every feature (what 'make demo' runs)")
        lines.append("  hybrid run ./site --until done       your pages in the container, as a headless test")
        lines.append("  hybrid doctor                        what is installed, what is missing")
        lines.append("")
        lines.append("Long operations (pack, update, serve start-up, the demo) report progress on standard error;")
        lines.append("results go to standard output.")
        return lines.joined(separator: "\n")
    }
}

