import Foundation

/// One command of a HybridKit tool (`hybrid`, `hybrid-bench`, `hybrid-demo`). Each of `hybrid`'s
/// lives in its own file under `Sources/hybrid/Commands/` and is listed in `CommandLineTool.commands`.
/// Its ``table`` declares what it takes; ``main(_:tool:)`` parses by it and calls ``run(_:)``.
public protocol HybridCommand {
    /// Its name, options, arguments, subcommands and prose: everything parsing and help need.
    static var table: CommandTable { get }
    /// Runs the command on its parsed words; returns the process exit code. (A ``CommandGroup``
    /// has it already: its subcommands run instead.)
    /// - Parameter arguments: The command line, parsed by ``table``.
    /// - Returns: The exit code.
    /// - Throws: ``CommandLineError`` for a usage error (exit 64); anything else exits 1.
    static func run(_ arguments: ParsedArguments) throws -> Int32
    /// Runs the command on its raw words, reporting as `tool`; the default is below.
    /// - Parameters:
    ///   - argv: Its words, the command's name not included.
    ///   - tool: How messages and help name it (`hybrid pack`).
    /// - Returns: The exit code.
    static func main(_ argv: [String], tool: String) -> Int32
}

extension HybridCommand {
    /// The word that names it (`pack`, `bench`), from its ``table``.
    public static var name: String { table.name }
    /// One line for the tool's list of commands, from its ``table``.
    public static var summary: String { table.summary }

    /// The full `--help` text, made from its ``table``.
    /// - Parameter tool: How the synopsis names it (`hybrid pack`).
    /// - Returns: The help text.
    public static func help(tool: String) -> String { table.help(tool: tool) }

    /// Runs the command on `argv` (its words, the command's name not included) as `tool`
    /// reports it (`hybrid pack`): `--help` or `-h` before any `--` prints the help; a group hands
    /// the rest to the subcommand its first word names; a usage error prints the error and the
    /// help on standard error and exits 64; any other error prints the error and exits 1.
    /// - Parameters:
    ///   - argv: Its words.
    ///   - tool: How messages and help name it.
    /// - Returns: The exit code.
    public static func main(_ argv: [String], tool: String) -> Int32 {
        let table = table
        if !table.subcommands.isEmpty {
            if let first = argv.first, let command = table.subcommands.first(where: { $0.name == first }) {
                return command.main(Array(argv.dropFirst()), tool: "\(tool) \(first)")
            }
            if let first = argv.first, first == "--help" || first == "-h" {
                print(table.help(tool: tool))
                return 0
            }
            let error = CommandLineError.unknownSubcommand(given: argv.first, expected: table.subcommands.map { $0.name })
            FileHandle.standardError.write(Data("\(tool): \(error)\n\n\(table.help(tool: tool))\n".utf8))
            return 64
        }
        let options = argv.prefix { $0 != "--" }
        if options.contains("--help") || options.contains("-h") {
            print(table.help(tool: tool))
            return 0
        }
        do {
            return try run(ParsedArguments(parsing: argv, by: table))
        } catch let error as CommandLineError {
            FileHandle.standardError.write(Data("\(tool): \(error)\n\n\(table.help(tool: tool))\n".utf8))
            return 64
        } catch {
            FileHandle.standardError.write(Data("\(tool): \(error)\n".utf8))
            return 1
        }
    }
}

/// A command that only groups subcommands (`hybrid config`): its table lists them, and
/// ``HybridCommand/main(_:tool:)`` hands every word after the group's name to the one the first word names.
public protocol CommandGroup: HybridCommand {}

extension CommandGroup {
    /// Not reached: ``HybridCommand/main(_:tool:)`` runs a subcommand instead.
    /// - Parameter arguments: Unused.
    /// - Returns: Never.
    /// - Throws: ``CommandLineError/unknownSubcommand(given:expected:)``.
    public static func run(_ arguments: ParsedArguments) throws -> Int32 {
        throw CommandLineError.unknownSubcommand(given: nil, expected: table.subcommands.map { $0.name })
    }
}

/// How a tool that `hybrid` runs for one of its commands names itself: `hybrid bench` runs
/// `hybrid-bench` with ``variable`` set to `hybrid bench`, so its help and messages say what the
/// user typed.
public enum ForwardedInvocation {
    /// The environment variable `hybrid` sets before it runs the tool.
    public static let variable = "HYBRID_FORWARDED_AS"

    /// The name the running tool was invoked by. Removes ``variable`` from the environment, so
    /// a process the tool starts is not taken for a forwarded one.
    /// - Parameter name: Its own name, when it was run directly (`hybrid-bench`).
    /// - Returns: `hybrid bench` when `hybrid` ran it, else `name`.
    public static func toolName(else name: String) -> String {
        let forwarded = ProcessInfo.processInfo.environment[variable]
        unsetenv(variable)
        guard let forwarded, !forwarded.isEmpty else { return name }
        return forwarded
    }
}
