/// What a command's table says about one positional argument.
public struct ArgumentDeclaration: Sendable, Equatable {
    /// How many words the argument takes.
    public enum Count: Sendable, Equatable {
        /// Exactly one: parsing fails without it.
        case one
        /// None or one.
        case optional
        /// At least this many, and any number more (only the last argument of a table).
        case atLeast(Int)
    }

    /// The word that stands for it in help (`REPO`, `FILE.jsonl`).
    public var name: String
    /// How many words it takes.
    public var count: Count
    /// The words it accepts, when it is a choice (`prune`, a suite's name).
    public var choices: [String]?
    /// The default as help shows it, when there is one.
    public var defaultText: String?
    /// One paragraph for help and docs; wrapped when printed.
    public var help: String

    /// The least number of words it takes.
    public var minimum: Int {
        switch count {
        case .one: 1
        case .optional: 0
        case .atLeast(let least): least
        }
    }

    /// The most words it takes (`nil`: no limit).
    public var maximum: Int? {
        switch count {
        case .one, .optional: 1
        case .atLeast: nil
        }
    }

    /// How help and docs write it: its name, or the word itself when it accepts only one
    /// (`hybrid key rotate`).
    public var displayName: String {
        guard let choices, choices.count == 1 else { return name }
        return choices[0]
    }

    /// `REPO`, `[DIR]`, `FILE …`, `rotate`, as a synopsis writes it.
    public var signature: String {
        switch count {
        case .one: displayName
        case .optional: "[\(displayName)]"
        case .atLeast(0): "[\(displayName) …]"
        case .atLeast: "\(displayName) …"
        }
    }
}

/// One positional argument of a command, declared once: its ``declaration`` goes into the
/// command's ``CommandTable`` and the argument reads its typed value from ``ParsedArguments``.
///
/// ```swift
/// static let repo: CommandArgument<String> = .required("REPO", help: "the repository directory")
/// static let files: CommandArgument<[String]> = .repeated("FILE.jsonl", atLeast: 1, help: "health logs")
/// ```
public struct CommandArgument<Value: Sendable>: Sendable {
    /// What the table, the parser and the help know about it.
    public let declaration: ArgumentDeclaration
    private let read: @Sendable ([String]) -> Value

    /// An argument with `declaration` whose value `read` makes from the words assigned to it.
    /// - Parameters:
    ///   - declaration: What the table says about it.
    ///   - read: Its value from its words (already counted and checked).
    public init(_ declaration: ArgumentDeclaration, read: @escaping @Sendable ([String]) -> Value) {
        self.declaration = declaration
        self.read = read
    }

    /// The value, from the words the parser assigned to the argument.
    /// - Parameter words: Its words, in order.
    /// - Returns: The typed value.
    public func value(from words: [String]) -> Value { read(words) }
}

extension CommandArgument where Value == String {
    /// One word the command needs.
    /// - Parameters:
    ///   - name: The word for it in help.
    ///   - choices: The words it accepts (any when `nil`).
    ///   - help: One paragraph for help and docs.
    /// - Returns: The argument.
    public static func required(_ name: String, choices: [String]? = nil, help: String) -> Self {
        Self(ArgumentDeclaration(name: name, count: .one, choices: choices, defaultText: nil, help: help)) { $0.first ?? "" }
    }

    /// One word, `defaultValue` when not given.
    /// - Parameters:
    ///   - name: The word for it in help.
    ///   - defaultValue: The value when it is not given.
    ///   - help: One paragraph for help and docs.
    /// - Returns: The argument.
    public static func optional(_ name: String, default defaultValue: String, help: String) -> Self {
        Self(ArgumentDeclaration(name: name, count: .optional, choices: nil, defaultText: defaultValue, help: help)) {
            $0.first ?? defaultValue
        }
    }
}

extension CommandArgument where Value == String? {
    /// One word or none.
    /// - Parameters:
    ///   - name: The word for it in help.
    ///   - help: One paragraph for help and docs.
    /// - Returns: The argument.
    public static func optional(_ name: String, help: String) -> Self {
        Self(ArgumentDeclaration(name: name, count: .optional, choices: nil, defaultText: nil, help: help)) { $0.first }
    }
}

extension CommandArgument where Value == [String] {
    /// Any number of words, at least `least`: only the last argument of a table.
    /// - Parameters:
    ///   - name: The word for one of them in help.
    ///   - least: How many the command needs.
    ///   - help: One paragraph for help and docs.
    /// - Returns: The argument.
    public static func repeated(_ name: String, atLeast least: Int = 0, help: String) -> Self {
        Self(ArgumentDeclaration(name: name, count: .atLeast(least), choices: nil, defaultText: nil, help: help)) { $0 }
    }
}
