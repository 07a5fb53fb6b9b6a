import Foundation

/// One command of a HybridKit tool (`hybrid`, `hybrid-bench`, `hybrid-demo`). Each of `hybrid`'s
/// lives in its own file under `Sources/hybrid/Commands/` and is listed in `CommandLineTool.commands`.
public protocol HybridCommand {
    /// The word that names it (`pack`, `bench`).
    static var name: String { get }
    /// One line for `hybrid --help`.
    static var summary: String { get }
    /// The full text for `hybrid NAME --help`.
    static var usage: String { get }
    /// Runs the command; returns the process exit code.
    static func run(_ arguments: Arguments) throws -> Int32
    /// Runs the command on its raw arguments, reporting as `tool`; the default is below.
    static func main(_ argv: [String], tool: String) -> Int32
}

extension HybridCommand {
    /// Runs the command on `argv` (its arguments, the command's name not included) as `tool`
    /// reports it (`hybrid pack`): `--help` prints ``usage``; a usage error prints it with the
    /// error and exits 64; any other error prints the error and exits 1.
    public static func main(_ argv: [String], tool: String) -> Int32 {
        if argv.contains("--help") || argv.contains("-h") {
            print(usage)
            return 0
        }
        do {
            return try run(Arguments(argv))
        } catch let error as Arguments.Error {
            FileHandle.standardError.write(Data("\(tool): \(error)\n\n\(usage)\n".utf8))
            return 64
        } catch {
            FileHandle.standardError.write(Data("\(tool): \(error)\n".utf8))
            return 1
        }
    }
}

/// A small, strict argument reader: `--flag`, `--option value`, `--option=value`, positionals.
public struct Arguments {
    /// A usage error, reported with the command's usage (exit 64).
    public enum Error: Swift.Error, CustomStringConvertible {
        /// An option given without its value.
        case missingValue(String)
        /// A required option or positional that is missing.
        case missingRequired(String)
        /// Options (or extra positionals) the command does not take.
        case unknown([String])
        /// A value that is not what the option expects.
        case invalid(option: String, value: String, expected: String)

        /// The sentence a user reads.
        public var description: String {
            switch self {
            case .missingValue(let option): "option \(option) needs a value"
            case .missingRequired(let what): "missing \(what)"
            case .unknown(let options): "unknown option(s): \(options.joined(separator: " "))"
            case .invalid(let option, let value, let expected): "\(option) '\(value)': expected \(expected)"
            }
        }
    }

    private var tokens: [String]
    /// What ``finish(maxPositionals:)`` left: the positionals.
    public private(set) var positionals: [String] = []

    /// A reader of `tokens` (the command's arguments).
    public init(_ tokens: [String]) { self.tokens = tokens }

    /// Removes and returns whether `--name` is present.
    public mutating func flag(_ name: String) -> Bool {
        guard let index = tokens.firstIndex(of: name) else { return false }
        tokens.remove(at: index)
        return true
    }

    /// Removes and returns every value of `--name VALUE` / `--name=VALUE`.
    public mutating func values(_ name: String) throws -> [String] {
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
    public mutating func option(_ name: String) throws -> String? { try values(name).last }

    /// Removes and returns the last value of `--name`, which must be given.
    public mutating func required(_ name: String) throws -> String {
        guard let value = try option(name) else { throw Error.missingRequired(name) }
        return value
    }

    /// Removes and returns `--name`'s last value as an integer.
    public mutating func int(_ name: String) throws -> Int? {
        guard let text = try option(name) else { return nil }
        guard let value = Int(text) else { throw Error.invalid(option: name, value: text, expected: "an integer") }
        return value
    }

    /// Removes and returns `--name`'s last value as a number.
    public mutating func double(_ name: String) throws -> Double? {
        guard let text = try option(name) else { return nil }
        guard let value = Double(text) else { throw Error.invalid(option: name, value: text, expected: "a number") }
        return value
    }

    /// Call after reading every option: the rest must be positionals.
    public mutating func finish(maxPositionals: Int = .max) throws -> [String] {
        let unknown = tokens.filter { $0.hasPrefix("--") }
        guard unknown.isEmpty else { throw Error.unknown(unknown) }
        positionals = tokens
        guard positionals.count <= maxPositionals else { throw Error.unknown(Array(positionals.dropFirst(maxPositionals))) }
        return positionals
    }
}
