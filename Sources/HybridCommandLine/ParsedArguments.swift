/// A command line parsed by a command's ``CommandTable``: every option checked against its
/// declaration, every positional word assigned to its argument. Read typed values with the
/// declarations themselves: `arguments[Self.port]`.
///
/// The rules, the same for every command:
/// - `--name VALUE` and `--name=VALUE`; a value that starts with `--` only in the second form
///   (`--name --other` is "option --name needs a value", never `--other` taken as the value);
/// - `--` ends the options: every word after it is positional, even `--help`;
/// - an option not in the table, or a word like `-x`, is an error naming it;
/// - a single-valued option given twice is an error, unless declared last-wins or repeated;
/// - integers, numbers, ranges and choices are checked here, before the command runs;
/// - required options and arguments must be there, and no word may be left over.
public struct ParsedArguments {
    private let declared: Set<String>
    private let values: [String: [String]]
    private let assigned: [String: [String]]
    /// Every positional word, in order.
    public let positionals: [String]

    /// Parses `tokens` (a command's words, its name not included) by `table`.
    /// - Parameters:
    ///   - tokens: The words after the command's name.
    ///   - table: The command's table.
    /// - Throws: ``CommandLineError`` when the words do not fit the table.
    public init(parsing tokens: [String], by table: CommandTable) throws {
        var values: [String: [String]] = [:]
        var positionals: [String] = []
        var optionsEnded = false
        var index = 0
        while index < tokens.count {
            let token = tokens[index]
            index += 1
            if optionsEnded || !Self.looksLikeOption(token) {
                positionals.append(token)
                continue
            }
            if token == "--" {
                optionsEnded = true
                continue
            }
            let name: String
            var inline: String?
            if let equals = token.firstIndex(of: "="), token.hasPrefix("--") {
                name = String(token[..<equals])
                inline = String(token[token.index(after: equals)...])
            } else {
                name = token
            }
            guard let option = table.option(named: name) else { throw CommandLineError.unknownOption(name) }
            let value: String
            if !option.takesValue {
                guard inline == nil else { throw CommandLineError.unexpectedValue(name) }
                value = ""
            } else if let inline {
                value = inline
            } else {
                guard index < tokens.count, !tokens[index].hasPrefix("--") else { throw CommandLineError.missingValue(name) }
                value = tokens[index]
                index += 1
            }
            if option.multiplicity == .once, values[name] != nil { throw CommandLineError.repeated(name) }
            try Self.check(value, of: option)
            values[name, default: []].append(value)
        }
        for option in table.options where option.isRequired && values[option.name] == nil {
            throw CommandLineError.missingRequired(option.signature)
        }
        self.declared = Set(table.options.map(\.name) + table.arguments.map(\.name))
        self.values = values
        self.positionals = positionals
        self.assigned = try Self.assign(positionals, to: table.arguments)
    }

    /// The value of `option` on this command line (its default, or `nil`, when not given).
    /// The option must be in the table the words were parsed by.
    public subscript<Value>(option: CommandOption<Value>) -> Value {
        precondition(declared.contains(option.declaration.name), "\(option.declaration.name) is not in the command's table")
        return option.value(from: values[option.declaration.name] ?? [])
    }

    /// The value of `argument` on this command line. The argument must be in the table the
    /// words were parsed by.
    public subscript<Value>(argument: CommandArgument<Value>) -> Value {
        precondition(declared.contains(argument.declaration.name), "\(argument.declaration.name) is not in the command's table")
        return argument.value(from: assigned[argument.declaration.name] ?? [])
    }

    /// Whether `option` was given (as opposed to taking its default).
    /// - Parameter option: An option of the command's table.
    /// - Returns: `true` when it is on the command line.
    public func isGiven<Value>(_ option: CommandOption<Value>) -> Bool {
        values[option.declaration.name] != nil
    }

    /// Options are `--word`, `--` and `-x`; `-` alone and `-1` are positional words.
    private static func looksLikeOption(_ token: String) -> Bool {
        if token.hasPrefix("--") { return true }
        guard token.hasPrefix("-"), let second = token.dropFirst().first else { return false }
        return second.isLetter
    }

    private static func check(_ value: String, of option: OptionDeclaration) throws {
        switch option.kind {
        case .flag, .text:
            return
        case .integer(let range):
            guard let number = Int(value) else {
                throw CommandLineError.invalid(option: option.name, value: value, expected: "an integer")
            }
            if let range, !range.contains(number) {
                throw CommandLineError.invalid(option: option.name, value: value, expected: describe(range))
            }
        case .number:
            guard let number = Double(value), number.isFinite else {
                throw CommandLineError.invalid(option: option.name, value: value, expected: "a number")
            }
        case .choice(let choices):
            guard choices.contains(value) else {
                throw CommandLineError.invalid(option: option.name, value: value, expected: choices.joined(separator: "|"))
            }
        }
    }

    /// `0–65535`, `at least 1`, `at most 9`.
    static func describe(_ range: ClosedRange<Int>) -> String {
        switch (range.lowerBound, range.upperBound) {
        case (let low, .max): "at least \(low)"
        case (.min, let high): "at most \(high)"
        case (let low, let high): "\(low)–\(high)"
        }
    }

    /// Gives each argument its words: the required ones first, then the optional ones in order,
    /// and what is left to a last argument that takes several.
    private static func assign(_ words: [String], to arguments: [ArgumentDeclaration]) throws -> [String: [String]] {
        let required = arguments.reduce(0) { $0 + $1.minimum }
        var spare = words.count - required
        var assigned: [String: [String]] = [:]
        var rest = words[...]
        for argument in arguments {
            var take = argument.minimum
            let extra = argument.maximum.map { $0 - argument.minimum } ?? .max
            let more = min(extra, max(spare, 0))
            take += more
            spare -= more
            guard rest.count >= argument.minimum else {
                throw CommandLineError.missingRequired(argument.choices.map { "\(argument.name) (\($0.joined(separator: "|")))" } ?? argument.name)
            }
            let mine = Array(rest.prefix(take))
            rest = rest.dropFirst(mine.count)
            if let choices = argument.choices {
                for word in mine where !choices.contains(word) {
                    throw CommandLineError.invalid(option: argument.name, value: word, expected: choices.joined(separator: "|"))
                }
            }
            assigned[argument.name] = mine
        }
        guard rest.isEmpty else { throw CommandLineError.unexpectedArguments(Array(rest)) }
        return assigned
    }
}
