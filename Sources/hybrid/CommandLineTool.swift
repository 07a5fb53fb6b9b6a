import Foundation

/// One `hybrid` subcommand. Each lives in its own file under `Commands/` and is listed in
/// ``CommandLineTool/commands``.
protocol HybridCommand {
    static var name: String { get }
    /// One line for `hybrid --help`.
    static var summary: String { get }
    /// The full text for `hybrid NAME --help`.
    static var usage: String { get }
    /// Runs the command; returns the process exit code.
    static func run(_ arguments: Arguments) throws -> Int32
}

enum CommandLineTool {
    /// Every subcommand, in the order `hybrid --help` lists them.
    static var commands: [any HybridCommand.Type] { [
        RunCommand.self,
        DemoCommand.self,
        DoctorCommand.self,
        BenchCommand.self,
        KeygenCommand.self,
        KeyCommand.self,
        PackCommand.self,
        VerifyCommand.self,
        UpdateCommand.self,
        RepoCommand.self,
        ServeCommand.self,
        ConfigCommand.self,
        HealthCommand.self,
    ] }

    static func run(_ argv: [String]) -> Int32 {
        guard let name = argv.first, name != "--help", name != "-h", name != "help" else {
            // `hybrid help COMMAND` is `hybrid COMMAND --help`.
            if argv.first == "help", argv.count > 1, let command = commands.first(where: { $0.name == argv[1] }) {
                print(command.usage)
                return 0
            }
            print(helpText)
            return argv.isEmpty ? 64 : 0
        }
        guard let command = commands.first(where: { $0.name == name }) else {
            FileHandle.standardError.write(Data("hybrid: unknown command '\(name)'\n\n\(helpText)\n".utf8))
            return 64
        }
        let rest = Array(argv.dropFirst())
        if rest.contains("--help") || rest.contains("-h") {
            print(command.usage)
            return 0
        }
        do {
            return try command.run(Arguments(rest))
        } catch let error as Arguments.Error {
            FileHandle.standardError.write(Data("hybrid \(name): \(error)\n\n\(command.usage)\n".utf8))
            return 64
        } catch {
            FileHandle.standardError.write(Data("hybrid \(name): \(error)\n".utf8))
            return 1
        }
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

/// A small, strict argument reader: `--flag`, `--option value`, `--option=value`, positionals.
struct Arguments {
    enum Error: Swift.Error, CustomStringConvertible {
        case missingValue(String)
        case missingRequired(String)
        case unknown([String])
        case invalid(option: String, value: String, expected: String)

        var description: String {
            switch self {
            case .missingValue(let option): "option \(option) needs a value"
            case .missingRequired(let what): "missing \(what)"
            case .unknown(let options): "unknown option(s): \(options.joined(separator: " "))"
            case .invalid(let option, let value, let expected): "\(option) '\(value)': expected \(expected)"
            }
        }
    }

    private var tokens: [String]
    private(set) var positionals: [String] = []

    init(_ tokens: [String]) { self.tokens = tokens }

    /// Removes and returns whether `--name` is present.
    mutating func flag(_ name: String) -> Bool {
        guard let index = tokens.firstIndex(of: name) else { return false }
        tokens.remove(at: index)
        return true
    }

    /// Removes and returns every value of `--name VALUE` / `--name=VALUE`.
    mutating func values(_ name: String) throws -> [String] {
        var found: [String] = []
        var index = 0
        while index < tokens.count {
            let token = tokens[index]
            if token == name {
                guard index + 1 < tokens.count else { throw Error.missingValue(name) }
                found.append(tokens[index + 1])
                tokens.removeSubrange(index...index + 1)
            } else if token.hasPrefix(name + "=") {
                found.append(String(token.dropFirst(name.count + 1)))
                tokens.remove(at: index)
            } else {
                index += 1
            }
        }
        return found
    }

    /// Removes and returns the last value of `--name`.
    mutating func option(_ name: String) throws -> String? { try values(name).last }

    mutating func required(_ name: String) throws -> String {
        guard let value = try option(name) else { throw Error.missingRequired(name) }
        return value
    }

    mutating func int(_ name: String) throws -> Int? {
        guard let text = try option(name) else { return nil }
        guard let value = Int(text) else { throw Error.invalid(option: name, value: text, expected: "an integer") }
        return value
    }

    mutating func double(_ name: String) throws -> Double? {
        guard let text = try option(name) else { return nil }
        guard let value = Double(text) else { throw Error.invalid(option: name, value: text, expected: "a number") }
        return value
    }

    /// Call after reading every option: the rest must be positionals.
    mutating func finish(maxPositionals: Int = .max) throws -> [String] {
        let unknown = tokens.filter { $0.hasPrefix("--") }
        guard unknown.isEmpty else { throw Error.unknown(unknown) }
        positionals = tokens
        guard positionals.count <= maxPositionals else { throw Error.unknown(Array(positionals.dropFirst(maxPositionals))) }
        return positionals
    }
}
