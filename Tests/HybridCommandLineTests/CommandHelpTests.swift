import HybridCommandLine
import Testing

private enum Leaf: HybridCommand {
    static let out: CommandOption<String> = .required("--out", "FILE", help: "where the document goes")
    static let force: CommandOption<Bool> = .flag("--force", help: "overwrite a file that is there")
    static var table: CommandTable {
        CommandTable(name: "leaf", summary: "A leaf", discussion: "Writes a leaf.", options: [out, force], epilogue: "EXIT STATUS: 0.")
    }
    static func run(_ arguments: ParsedArguments) throws -> Int32 { arguments[force] ? 3 : 0 }
}

private enum Group: CommandGroup {
    static var table: CommandTable { CommandTable(name: "group", summary: "A group", subcommands: [Leaf.self]) }
}

@Suite("Help, the docs' sections and exit codes, made from the table")
struct CommandHelpTests {
    @Test func helpListsEveryOptionWithItsDefault() {
        let help = Leaf.help(tool: "tool leaf")
        #expect(help.hasPrefix("USAGE: tool leaf --out FILE [--force]\n\nWrites a leaf.\n"))
        #expect(help.contains("  --out FILE            where the document goes (required)"))
        #expect(help.contains("  --force               overwrite a file that is there"))
        #expect(help.contains("-h, --help"))
        #expect(help.hasSuffix("EXIT STATUS: 0."))
    }

    @Test func longHelpWrapsInItsColumn() {
        let option: CommandOption<Bool> = .flag("--a-very-long-option-name", help: String(repeating: "word ", count: 40))
        let help = CommandTable(name: "x", summary: "x", options: [option]).help(tool: "x")
        let lines = help.split(separator: "\n")
        #expect(lines.allSatisfy { $0.count <= 100 })
        #expect(lines.contains("  --a-very-long-option-name"))
    }

    @Test func mainExitCodes() {
        #expect(Leaf.main(["--out", "f"], tool: "t") == 0)
        #expect(Leaf.main(["--out", "f", "--force"], tool: "t") == 3)
        #expect(Leaf.main(["--help", "--bogus"], tool: "t") == 0)
        #expect(Leaf.main(["--out", "--force"], tool: "t") == 64)
        #expect(Leaf.main(["--bogus"], tool: "t") == 64)
        #expect(Leaf.main(["--out", "f", "--", "--help"], tool: "t") == 64)
        #expect(Group.main(["leaf", "--out", "f", "--force"], tool: "t") == 3)
        #expect(Group.main([], tool: "t") == 64)
        #expect(Group.main(["nonsense"], tool: "t") == 64)
        #expect(Group.main(["--help"], tool: "t") == 0)
    }

    @Test func groupHelpHasEverySubcommand() {
        let help = Group.help(tool: "t group")
        #expect(help.contains("USAGE: t group SUBCOMMAND"))
        #expect(help.contains("  leaf                  A leaf"))
        #expect(help.contains("USAGE: t group leaf --out FILE [--force]"))
    }

    @Test func referenceHasATableRowPerOptionAndSplices() throws {
        let markdown = CommandReference.markdown([("t group", Group.self)])
        #expect(markdown.contains("### `t group leaf`"))
        #expect(markdown.contains("| `--out FILE` | where the document goes (required) |"))
        #expect(markdown.contains("| `--force` | overwrite a file that is there |"))
        let document = "intro\n\(CommandReference.beginMarker)\nold\n\(CommandReference.endMarker)\nafter\n"
        let spliced = try #require(CommandReference.splice("new", into: document))
        #expect(spliced == "intro\n\(CommandReference.beginMarker)\nnew\n\(CommandReference.endMarker)\nafter\n")
        #expect(CommandReference.splice("new", into: "no markers") == nil)
    }
}
