import Foundation

/// The options sections of docs/cli.md, made from the commands' tables, and the markers that
/// delimit them in the document: `HybridCommandLineTests` fails when the document's part
/// between the markers is not what the tables make (and rewrites it with `HYBRID_UPDATE_CLI_DOCS=1`).
public enum CommandReference {
    /// The line that opens the generated part.
    public static let beginMarker = "<!-- BEGIN generated from the command tables: edit the tables, not this part -->"
    /// The line that closes it.
    public static let endMarker = "<!-- END generated from the command tables -->"

    /// One section per command (and per subcommand): its synopsis, then a table of its
    /// arguments and options with their defaults.
    /// - Parameter commands: Each command with how it is invoked (`hybrid serve`), in order.
    /// - Returns: The Markdown, without the markers.
    public static func markdown(_ commands: [(tool: String, command: any HybridCommand.Type)]) -> String {
        var sections: [String] = []
        for (tool, command) in commands { sections += self.sections(command.table, tool: tool) }
        return sections.joined(separator: "\n\n")
    }

    /// `document` with the part between the markers replaced by `generated`.
    /// - Parameters:
    ///   - generated: What ``markdown(_:)`` made.
    ///   - document: docs/cli.md's text.
    /// - Returns: The new text, or `nil` when the markers are not there, in order.
    public static func splice(_ generated: String, into document: String) -> String? {
        guard let begin = document.range(of: beginMarker), let end = document.range(of: endMarker),
              begin.upperBound <= end.lowerBound else { return nil }
        return String(document[..<begin.upperBound]) + "\n" + generated + "\n" + String(document[end.lowerBound...])
    }

    private static func sections(_ table: CommandTable, tool: String) -> [String] {
        var lines = ["### `\(tool)`", "", table.summary + ".", "", "```", table.synopsis(tool: tool), "```"]
        if !table.subcommands.isEmpty {
            lines += ["", "| subcommand | |", "|---|---|"]
            lines += table.subcommands.map { "| `\($0.name)` | \(cell($0.summary)) |" }
            return [lines.joined(separator: "\n")]
                + table.subcommands.flatMap { sections($0.table, tool: "\(tool) \($0.name)") }
        }
        var rows: [String] = []
        for argument in table.arguments {
            rows.append("| `\(cell(argument.displayName))` | \(cell(CommandTable.describe(argument))) |")
        }
        for option in table.options {
            rows.append("| `\(cell(option.signature))` | \(cell(CommandTable.describe(option))) |")
        }
        if !rows.isEmpty { lines += ["", "| argument or option | |", "|---|---|"] + rows }
        return [lines.joined(separator: "\n")]
    }

    /// Text for a table cell: pipes escaped, on one line.
    private static func cell(_ text: String) -> String {
        text.replacingOccurrences(of: "|", with: "\\|").replacingOccurrences(of: "\n", with: " ")
    }
}
