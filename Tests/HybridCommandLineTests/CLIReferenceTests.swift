import Foundation
import HybridCommandLine
import Testing
@testable import hybrid
@testable import hybrid_bench
@testable import hybrid_demo

/// Every command of the three tools as `hybrid` runs it: `hybrid bench` and `hybrid demo` are
/// the tables of hybrid-bench and hybrid-demo, which `hybrid` forwards to.
private var everyCommand: [(tool: String, command: any HybridCommand.Type)] {
    CommandLineTool.commands.map { command in
    switch command.name {
    case BenchCommand.name: ("hybrid bench", BenchCommand.self)
    case DemoCommand.name: ("hybrid demo", DemoCommand.self)
    default: ("hybrid \(command.name)", command)
    }
    }
}

@Suite("docs/cli.md and --help, from the command tables")
struct CLIReferenceTests {
    /// Fails when docs/cli.md's generated part is not what the tables make; with
    /// `HYBRID_UPDATE_CLI_DOCS=1` it rewrites that part instead.
    @Test func docsMatchTheTables() throws {
        let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/cli.md")
        let text = try String(contentsOf: docs, encoding: .utf8)
        let expected = try #require(CommandReference.splice(CommandReference.markdown(everyCommand), into: text),
                                    "docs/cli.md has no generated part (\(CommandReference.beginMarker))")
        if ProcessInfo.processInfo.environment["HYBRID_UPDATE_CLI_DOCS"] == "1", expected != text {
            try expected.write(to: docs, atomically: true, encoding: .utf8)
            return
        }
        #expect(text == expected, """
            docs/cli.md's options sections are not what the command tables make: \
            HYBRID_UPDATE_CLI_DOCS=1 swift test --skip-build --filter CLIReferenceTests rewrites them
            """)
    }

    @Test func helpNamesEveryOptionAndArgument() {
        var leaves = everyCommand
        var checked = 0
        while let (tool, command) = leaves.popLast() {
            let table = command.table
            leaves += table.subcommands.map { ("\(tool) \($0.name)", $0) }
            let help = command.help(tool: tool)
            #expect(help.hasPrefix("USAGE: \(tool)"))
            for option in table.options {
                #expect(help.contains("  \(option.signature)"), "\(tool) --help lacks \(option.name)")
            }
            for argument in table.arguments {
                #expect(help.contains("  \(argument.displayName)"), "\(tool) --help lacks \(argument.name)")
            }
            checked += table.options.count
        }
        #expect(checked >= 60, "every tool's options: \(checked)")
    }

    /// The tools' own rules, through real tables: a value that is an option, `--`, a repeat.
    @Test func realTablesKeepTheRules() throws {
        let serve = ServeCommand.table
        #expect(throws: CommandLineError.missingValue("--port")) { try ParsedArguments(parsing: ["repo", "--port", "--quiet"], by: serve) }
        #expect(throws: CommandLineError.repeated("--port")) { try ParsedArguments(parsing: ["repo", "--port", "1", "--port=2"], by: serve) }
        #expect(try ParsedArguments(parsing: ["--quiet", "--", "--repo"], by: serve)[ServeCommand.repo] == "--repo")
        let run = try ParsedArguments(parsing: ["site", "--allow", "https://a", "--allow=https://b", "--until", "done"], by: RunCommand.table)
        #expect(run[RunCommand.allow] == ["https://a", "https://b"] && run[RunCommand.until] == "done")
        #expect(throws: CommandLineError.invalid(option: "--until", value: "never", expected: "load|done")) {
            try ParsedArguments(parsing: ["site", "--until", "never"], by: RunCommand.table)
        }
    }
}
