/// What a command's table says about one option; the parser, the help and docs/cli.md read it.
/// Commands make one through ``CommandOption``'s factories, which also give it a typed value.
public struct OptionDeclaration: Sendable, Equatable {
    /// What the option's value is, and so how it is checked.
    public enum Kind: Sendable, Equatable {
        /// No value: present or not.
        case flag
        /// Any text.
        case text
        /// An integer, within the range when there is one.
        case integer(ClosedRange<Int>?)
        /// A number (`Double`'s syntax).
        case number
        /// One of these words.
        case choice([String])
    }

    /// How often the option may be given.
    public enum Multiplicity: Sendable, Equatable {
        /// At most once: a second one is a usage error.
        case once
        /// Any number of times; the last one counts.
        case lastWins
        /// Any number of times; every value counts (`--allow A --allow B`).
        case repeated
    }

    /// `--name`, as the user types it.
    public var name: String
    /// The word that stands for the value in help (`N`, `DIR`); `nil` for a flag.
    public var valueName: String?
    /// What the value is.
    public var kind: Kind
    /// How often it may be given.
    public var multiplicity: Multiplicity
    /// Whether the command refuses to run without it.
    public var isRequired: Bool
    /// The default as help shows it (`8080`, `$HYBRID_STORE`), when there is one.
    public var defaultText: String?
    /// One paragraph for help and docs; wrapped when printed.
    public var help: String

    /// Whether the option takes a value.
    public var takesValue: Bool { kind != .flag }

    /// `--name VALUE` (or `--name` for a flag), as a synopsis and the docs write it.
    public var signature: String {
        guard let valueName else { return name }
        return "\(name) \(valueName)"
    }
}

/// One option of a command, declared once: its ``declaration`` goes into the command's
/// ``CommandTable`` (parsing, validation, help, docs) and the option itself reads its typed value
/// from ``ParsedArguments``: `arguments[Self.port]` is an `Int`.
///
/// ```swift
/// static let port: CommandOption<Int> = .int("--port", "N", default: 8080, in: 0...65_535, help: "the port; 0 picks a free one")
/// static let key: CommandOption<String> = .required("--key", "PUB", help: "the public key")
/// static let json: CommandOption<Bool> = .flag("--json", help: "print JSON")
/// ```
public struct CommandOption<Value: Sendable>: Sendable {
    /// What the table, the parser and the help know about it.
    public private(set) var declaration: OptionDeclaration
    private let read: @Sendable ([String]) -> Value

    /// An option with `declaration` whose value `read` makes from the texts given for it, in order
    /// (already checked against the declaration's kind; empty when it was not given).
    /// - Parameters:
    ///   - declaration: What the table says about it.
    ///   - read: Its value from the given texts.
    public init(_ declaration: OptionDeclaration, read: @escaping @Sendable ([String]) -> Value) {
        self.declaration = declaration
        self.read = read
    }

    /// The value, from the texts given for the option on one command line.
    /// - Parameter texts: What followed the option each time it was given, in order.
    /// - Returns: The typed value.
    public func value(from texts: [String]) -> Value { read(texts) }

    /// The same option, which may be given more than once, the last one counting.
    /// - Returns: The option, declared last-wins.
    public func lastWins() -> Self {
        var option = self
        option.declaration.multiplicity = .lastWins
        return option
    }
}

extension CommandOption where Value == Bool {
    /// A flag: `true` when given.
    /// - Parameters:
    ///   - name: `--name`.
    ///   - help: One paragraph for help and docs.
    /// - Returns: The option.
    public static func flag(_ name: String, help: String) -> Self {
        Self(OptionDeclaration(name: name, valueName: nil, kind: .flag, multiplicity: .once, isRequired: false,
                               defaultText: nil, help: help)) { !$0.isEmpty }
    }
}

extension CommandOption where Value == String? {
    /// An optional text option: `nil` when not given.
    /// - Parameters:
    ///   - name: `--name`.
    ///   - valueName: The word for the value in help.
    ///   - defaultText: What the command uses when it is not given, as help says it.
    ///   - help: One paragraph for help and docs.
    /// - Returns: The option.
    public static func text(_ name: String, _ valueName: String, defaultText: String? = nil, help: String) -> Self {
        Self(OptionDeclaration(name: name, valueName: valueName, kind: .text, multiplicity: .once, isRequired: false,
                               defaultText: defaultText, help: help)) { $0.last }
    }

    /// An optional choice among `choices`: `nil` when not given.
    /// - Parameters:
    ///   - name: `--name`.
    ///   - choices: The words it accepts.
    ///   - defaultText: What the command uses when it is not given, as help says it.
    ///   - help: One paragraph for help and docs.
    /// - Returns: The option.
    public static func choice(_ name: String, _ choices: [String], defaultText: String? = nil, help: String) -> Self {
        Self(OptionDeclaration(name: name, valueName: choices.joined(separator: "|"), kind: .choice(choices), multiplicity: .once,
                               isRequired: false, defaultText: defaultText, help: help)) { $0.last }
    }
}

extension CommandOption where Value == String {
    /// A text option with a default.
    /// - Parameters:
    ///   - name: `--name`.
    ///   - valueName: The word for the value in help.
    ///   - defaultValue: The value when it is not given.
    ///   - help: One paragraph for help and docs.
    /// - Returns: The option.
    public static func text(_ name: String, _ valueName: String, default defaultValue: String, help: String) -> Self {
        Self(OptionDeclaration(name: name, valueName: valueName, kind: .text, multiplicity: .once, isRequired: false,
                               defaultText: defaultValue, help: help)) { $0.last ?? defaultValue }
    }

    /// A text option the command needs: parsing fails without it.
    /// - Parameters:
    ///   - name: `--name`.
    ///   - valueName: The word for the value in help.
    ///   - help: One paragraph for help and docs.
    /// - Returns: The option.
    public static func required(_ name: String, _ valueName: String, help: String) -> Self {
        Self(OptionDeclaration(name: name, valueName: valueName, kind: .text, multiplicity: .once, isRequired: true,
                               defaultText: nil, help: help)) { $0.last ?? "" }
    }

    /// A choice among `choices` with a default.
    /// - Parameters:
    ///   - name: `--name`.
    ///   - choices: The words it accepts.
    ///   - defaultValue: The value when it is not given.
    ///   - help: One paragraph for help and docs.
    /// - Returns: The option.
    public static func choice(_ name: String, _ choices: [String], default defaultValue: String, help: String) -> Self {
        Self(OptionDeclaration(name: name, valueName: choices.joined(separator: "|"), kind: .choice(choices), multiplicity: .once,
                               isRequired: false, defaultText: defaultValue, help: help)) { $0.last ?? defaultValue }
    }
}

extension CommandOption where Value == [String] {
    /// A text option that may be given any number of times: every value, in order.
    /// - Parameters:
    ///   - name: `--name`.
    ///   - valueName: The word for the value in help.
    ///   - help: One paragraph for help and docs.
    /// - Returns: The option.
    public static func repeated(_ name: String, _ valueName: String, help: String) -> Self {
        Self(OptionDeclaration(name: name, valueName: valueName, kind: .text, multiplicity: .repeated, isRequired: false,
                               defaultText: nil, help: help)) { $0 }
    }
}

extension CommandOption where Value == Int {
    /// An integer option with a default.
    /// - Parameters:
    ///   - name: `--name`.
    ///   - valueName: The word for the value in help.
    ///   - defaultValue: The value when it is not given.
    ///   - range: The values it accepts (any integer when `nil`).
    ///   - help: One paragraph for help and docs.
    /// - Returns: The option.
    public static func int(_ name: String, _ valueName: String, default defaultValue: Int, in range: ClosedRange<Int>? = nil,
                           help: String) -> Self {
        Self(OptionDeclaration(name: name, valueName: valueName, kind: .integer(range), multiplicity: .once, isRequired: false,
                               defaultText: String(defaultValue), help: help)) { $0.last.flatMap { Int($0) } ?? defaultValue }
    }

    /// An integer option the command needs: parsing fails without it.
    /// - Parameters:
    ///   - name: `--name`.
    ///   - valueName: The word for the value in help.
    ///   - range: The values it accepts (any integer when `nil`).
    ///   - help: One paragraph for help and docs.
    /// - Returns: The option.
    public static func requiredInt(_ name: String, _ valueName: String, in range: ClosedRange<Int>? = nil, help: String) -> Self {
        Self(OptionDeclaration(name: name, valueName: valueName, kind: .integer(range), multiplicity: .once, isRequired: true,
                               defaultText: nil, help: help)) { $0.last.flatMap { Int($0) } ?? 0 }
    }
}

extension CommandOption where Value == Int? {
    /// An optional integer option: `nil` when not given.
    /// - Parameters:
    ///   - name: `--name`.
    ///   - valueName: The word for the value in help.
    ///   - range: The values it accepts (any integer when `nil`).
    ///   - defaultText: What the command uses when it is not given, as help says it.
    ///   - help: One paragraph for help and docs.
    /// - Returns: The option.
    public static func int(_ name: String, _ valueName: String, in range: ClosedRange<Int>? = nil, defaultText: String? = nil,
                           help: String) -> Self {
        Self(OptionDeclaration(name: name, valueName: valueName, kind: .integer(range), multiplicity: .once, isRequired: false,
                               defaultText: defaultText, help: help)) { $0.last.flatMap { Int($0) } }
    }
}

extension CommandOption where Value == Double {
    /// A number option with a default.
    /// - Parameters:
    ///   - name: `--name`.
    ///   - valueName: The word for the value in help.
    ///   - defaultValue: The value when it is not given.
    ///   - help: One paragraph for help and docs.
    /// - Returns: The option.
    public static func double(_ name: String, _ valueName: String, default defaultValue: Double, help: String) -> Self {
        let text = defaultValue.rounded() == defaultValue ? String(Int(defaultValue)) : String(defaultValue)
        return Self(OptionDeclaration(name: name, valueName: valueName, kind: .number, multiplicity: .once, isRequired: false,
                                      defaultText: text, help: help)) { $0.last.flatMap { Double($0) } ?? defaultValue }
    }
}

extension CommandOption where Value == Double? {
    /// An optional number option: `nil` when not given.
    /// - Parameters:
    ///   - name: `--name`.
    ///   - valueName: The word for the value in help.
    ///   - defaultText: What the command uses when it is not given, as help says it.
    ///   - help: One paragraph for help and docs.
    /// - Returns: The option.
    public static func double(_ name: String, _ valueName: String, defaultText: String? = nil, help: String) -> Self {
        Self(OptionDeclaration(name: name, valueName: valueName, kind: .number, multiplicity: .once, isRequired: false,
                               defaultText: defaultText, help: help)) { $0.last.flatMap { Double($0) } }
    }
}
