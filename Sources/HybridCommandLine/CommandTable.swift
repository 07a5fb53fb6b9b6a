/// A command's options, positional arguments and subcommands, declared once. Parsing
/// (``ParsedArguments``), validation, `--help` (``help(tool:)``) and the options sections of
/// docs/cli.md (``CommandReference``) are all made from it, so they cannot disagree.
///
/// ```swift
/// static var table: CommandTable {
///     CommandTable(name: "serve", summary: "Serve a directory over HTTP",
///                  discussion: "Serves REPO read-only …",
///                  arguments: [repo], options: [port, host, quiet])
/// }
/// ```
public struct CommandTable {
    /// The word that names the command (`pack`, `sign`).
    public var name: String
    /// One line for the tool's list of commands.
    public var summary: String
    /// The command's prose: what it does, in paragraphs already wrapped, printed as it is after
    /// the synopsis.
    public var discussion: String
    /// Its positional arguments, in order.
    public var arguments: [ArgumentDeclaration]
    /// Its options, in the order help lists them.
    public var options: [OptionDeclaration]
    /// Its subcommands (`hybrid config sign`): when there are any, the first word picks one and
    /// the rest is that subcommand's, so a group declares no options or arguments of its own.
    public var subcommands: [any HybridCommand.Type]
    /// Text printed after the options (exit status, examples), as it is.
    public var epilogue: String?

    /// A command's table.
    /// - Parameters:
    ///   - name: The word that names it.
    ///   - summary: One line for the tool's list of commands.
    ///   - discussion: Its prose, printed after the synopsis.
    ///   - arguments: Its positional arguments, in order; only the last may take several words,
    ///     and no required one follows an optional one.
    ///   - options: Its options; `--help` and `-h` are everyone's and may not be declared.
    ///   - subcommands: Its subcommands, when it is a group.
    ///   - epilogue: Text after the options (exit status, examples).
    public init(name: String, summary: String, discussion: String = "", arguments: [any ArgumentDeclaring] = [],
                options: [any OptionDeclaring] = [], subcommands: [any HybridCommand.Type] = [], epilogue: String? = nil) {
        self.name = name
        self.summary = summary
        self.discussion = discussion
        self.arguments = arguments.map(\.argumentDeclaration)
        self.options = options.map(\.optionDeclaration)
        self.subcommands = subcommands
        self.epilogue = epilogue
        let names = self.options.map(\.name)
        precondition(Set(names).count == names.count, "\(name): an option is declared twice")
        precondition(names.allSatisfy { $0.hasPrefix("--") && $0.count > 2 && !$0.contains("=") },
                     "\(name): options are named --word")
        precondition(!names.contains("--help"), "\(name): --help is everyone's")
        precondition(self.arguments.dropLast().allSatisfy { $0.maximum != nil }, "\(name): only the last argument takes several words")
        precondition(subcommands.isEmpty || (self.options.isEmpty && self.arguments.isEmpty),
                     "\(name): a group's words are its subcommands'")
        if let firstOptional = self.arguments.firstIndex(where: { $0.minimum == 0 }) {
            precondition(self.arguments[firstOptional...].allSatisfy { $0.minimum == 0 },
                         "\(name): a required argument follows an optional one")
        }
    }

    /// The declared option named `name` (`--port`), if any.
    /// - Parameter name: The option's name.
    /// - Returns: Its declaration, or `nil` when the command has none of that name.
    public func option(named name: String) -> OptionDeclaration? {
        options.first { $0.name == name }
    }
}

/// Something that declares an option for a ``CommandTable``: a ``CommandOption``.
public protocol OptionDeclaring {
    /// What the table records about the option.
    var optionDeclaration: OptionDeclaration { get }
}

/// Something that declares a positional argument for a ``CommandTable``: a ``CommandArgument``.
public protocol ArgumentDeclaring {
    /// What the table records about the argument.
    var argumentDeclaration: ArgumentDeclaration { get }
}

extension CommandOption: OptionDeclaring {
    /// The option's ``declaration``, for the table.
    public var optionDeclaration: OptionDeclaration { declaration }
}

extension CommandArgument: ArgumentDeclaring {
    /// The argument's ``declaration``, for the table.
    public var argumentDeclaration: ArgumentDeclaration { declaration }
}
