import Foundation

/// `--help`, made from the table: synopsis, prose, arguments, options (with defaults and
/// choices), subcommands, epilogue.
extension CommandTable {
    /// Width help text is wrapped to.
    static let helpWidth = 100
    /// Where the help column of an option or argument starts.
    static let helpColumn = 24

    /// The synopsis: `tool` and its words, required options written out, optional ones in
    /// brackets (or `[OPTIONS]` when they would make the line too long).
    /// - Parameter tool: How the command is invoked (`hybrid serve`).
    /// - Returns: The synopsis, without `USAGE:`.
    public func synopsis(tool: String) -> String {
        if !subcommands.isEmpty { return "\(tool) SUBCOMMAND [OPTIONS]" }
        let words = arguments.map(\.signature)
        let required = options.filter(\.isRequired).map(\.signature)
        let optional = options.filter { !$0.isRequired }.map { "[\($0.signature)]" }
        let long = ([tool] + words + required + optional).joined(separator: " ")
        if long.count + "USAGE: ".count <= Self.helpWidth || optional.isEmpty { return long }
        return ([tool] + words + required + ["[OPTIONS]"]).joined(separator: " ")
    }

    /// The whole `--help` text.
    /// - Parameter tool: How the command is invoked (`hybrid serve`).
    /// - Returns: The help text.
    public func help(tool: String) -> String {
        var lines = ["USAGE: " + synopsis(tool: tool)]
        if !discussion.isEmpty { lines += ["", discussion] }
        if !subcommands.isEmpty {
            lines += ["", "SUBCOMMANDS:"]
            for command in subcommands { lines += Self.entry(command.name, command.summary) }
            lines += ["", "Run '\(tool) SUBCOMMAND --help' for a subcommand's options."]
            for command in subcommands { lines += ["", command.help(tool: "\(tool) \(command.name)")] }
            return lines.joined(separator: "\n")
        }
        if !arguments.isEmpty {
            lines += ["", "ARGUMENTS:"]
            for argument in arguments { lines += Self.entry(argument.displayName, Self.describe(argument)) }
        }
        lines += ["", "OPTIONS:"]
        for option in options { lines += Self.entry(option.signature, Self.describe(option)) }
        lines += Self.entry("-h, --help", "show this help")
        if let epilogue { lines += ["", epilogue] }
        return lines.joined(separator: "\n")
    }

    /// An option's help with what the table adds: required, default, range, repeatable.
    static func describe(_ option: OptionDeclaration) -> String {
        var notes: [String] = []
        if option.isRequired { notes.append("required") }
        if case .integer(let range?) = option.kind { notes.append(ParsedArguments.describe(range)) }
        if let value = option.defaultText { notes.append("default \(value)") }
        if option.multiplicity == .repeated { notes.append("repeatable") }
        return notes.isEmpty ? option.help : "\(option.help) (\(notes.joined(separator: "; ")))"
    }

    /// An argument's help with its default, or its choices when it has several.
    static func describe(_ argument: ArgumentDeclaration) -> String {
        var notes: [String] = []
        if let choices = argument.choices, choices.count > 1 { notes.append(choices.joined(separator: "|")) }
        if let value = argument.defaultText { notes.append("default \(value)") }
        return notes.isEmpty ? argument.help : "\(argument.help) (\(notes.joined(separator: "; ")))"
    }

    /// `  NAME   text…` with the text wrapped in the help column (starting on the next line when
    /// the name does not leave room).
    static func entry(_ name: String, _ text: String) -> [String] {
        let indent = String(repeating: " ", count: helpColumn)
        var lines = wrap(text, width: helpWidth - helpColumn).map { indent + $0 }
        let head = "  " + name
        if head.count < helpColumn - 1, !lines.isEmpty {
            lines[0] = head.padding(toLength: helpColumn, withPad: " ", startingAt: 0) + lines[0].dropFirst(helpColumn)
        } else {
            lines.insert(head, at: 0)
        }
        return lines
    }

    /// `text`'s words in lines of at most `width` characters (a longer word alone on its line).
    static func wrap(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        var line = ""
        for word in text.split(whereSeparator: { $0 == " " || $0 == "\n" }) {
            if line.isEmpty {
                line = String(word)
            } else if line.count + 1 + word.count <= width {
                line += " " + word
            } else {
                lines.append(line)
                line = String(word)
            }
        }
        if !line.isEmpty { lines.append(line) }
        return lines
    }
}
