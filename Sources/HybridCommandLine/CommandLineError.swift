/// A usage error: the command line does not fit the command's table. ``HybridCommand/main(_:tool:)``
/// reports it with the command's help and exits 64.
public enum CommandLineError: Error, Equatable, CustomStringConvertible {
    /// An option (`--name`, `-x`) the command does not declare.
    case unknownOption(String)
    /// An option that takes a value, given without one: last on the line, or followed by
    /// another option (a `--word` is never taken as a value; write `--name=--word` for that).
    case missingValue(String)
    /// A flag given a value (`--json=yes`).
    case unexpectedValue(String)
    /// A single-valued option given more than once (declared neither repeatable nor last-wins).
    case repeated(String)
    /// A required option or argument that is missing.
    case missingRequired(String)
    /// A value that is not what the option or argument expects.
    case invalid(option: String, value: String, expected: String)
    /// Arguments beyond what the command takes.
    case unexpectedArguments([String])
    /// A group command (`hybrid config`) given no subcommand, or one it does not have.
    case unknownSubcommand(given: String?, expected: [String])

    /// The sentence a user reads.
    public var description: String {
        switch self {
        case .unknownOption(let option): "unknown option \(option)"
        case .missingValue(let option): "option \(option) needs a value"
        case .unexpectedValue(let option): "option \(option) takes no value"
        case .repeated(let option): "option \(option) is given more than once"
        case .missingRequired(let what): "missing \(what)"
        case .invalid(let option, let value, let expected): "\(option) '\(value)': expected \(expected)"
        case .unexpectedArguments(let extra): "unexpected argument(s): \(extra.joined(separator: " "))"
        case .unknownSubcommand(let given?, let expected): "unknown subcommand '\(given)': expected \(expected.joined(separator: "|"))"
        case .unknownSubcommand(nil, let expected): "missing SUBCOMMAND (\(expected.joined(separator: "|")))"
        }
    }
}
