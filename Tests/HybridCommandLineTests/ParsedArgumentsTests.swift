import HybridCommandLine
import Testing

/// A command table that has one option of every kind, for the parser's rules.
private enum Sample {
    static let key: CommandOption<String> = .required("--key", "PUB", help: "the public key")
    static let out: CommandOption<String?> = .text("--out", "DIR", help: "where to write")
    static let entry: CommandOption<String> = .text("--entry", "FILE", default: "index.html", help: "the entry page")
    static let json: CommandOption<Bool> = .flag("--json", help: "print JSON")
    static let allow: CommandOption<[String]> = .repeated("--allow", "ORIGIN", help: "an origin to allow")
    static let port: CommandOption<Int> = .int("--port", "N", default: 8080, in: 0...65_535, help: "the port")
    static let keep: CommandOption<Int?> = .int("--keep", "N", in: 1...Int.max, help: "versions to keep")
    static let timeout: CommandOption<Double> = .double("--timeout", "SECONDS", default: 30, help: "give up after this long")
    static let engine: CommandOption<String> = .choice("--engine", ["webkit", "blink"], default: "webkit", help: "the engine")
    static let host: CommandOption<String?> = CommandOption<String?>.text("--host", "HOST", help: "the host").lastWins()
    static let target: CommandArgument<String> = .required("TARGET", help: "what to open")
    static let extra: CommandArgument<String?> = .optional("EXTRA", help: "one more word")

    static var table: CommandTable {
        CommandTable(name: "sample", summary: "A sample", discussion: "Does nothing.", arguments: [target, extra],
                     options: [key, out, entry, json, allow, port, keep, timeout, engine, host])
    }

    static func parse(_ words: String...) throws -> ParsedArguments {
        try ParsedArguments(parsing: words, by: table)
    }

    static func error(_ words: String...) -> CommandLineError? {
        do {
            _ = try ParsedArguments(parsing: words, by: table)
            return nil
        } catch {
            return error as? CommandLineError
        }
    }
}

@Suite("ParsedArguments: one table's rules for every command")
struct ParsedArgumentsTests {
    @Test func readsTypedValuesAndDefaults() throws {
        let parsed = try Sample.parse("site", "--key", "k", "--json", "--port", "0", "--allow", "a", "--allow", "b")
        #expect(parsed[Sample.target] == "site")
        #expect(parsed[Sample.extra] == nil)
        #expect(parsed[Sample.key] == "k")
        #expect(parsed[Sample.out] == nil)
        #expect(parsed[Sample.entry] == "index.html")
        #expect(parsed[Sample.json])
        #expect(parsed[Sample.allow] == ["a", "b"])
        #expect(parsed[Sample.port] == 0)
        #expect(parsed[Sample.keep] == nil)
        #expect(parsed[Sample.timeout] == 30)
        #expect(parsed[Sample.engine] == "webkit")
        #expect(parsed.isGiven(Sample.port) && !parsed.isGiven(Sample.timeout))
    }

    @Test func unknownOptionIsNamed() {
        #expect(Sample.error("site", "--key", "k", "--bogus") == .unknownOption("--bogus"))
        #expect(Sample.error("site", "--key", "k", "--bogus=1") == .unknownOption("--bogus"))
        #expect(Sample.error("site", "--key", "k", "-x") == .unknownOption("-x"))
        #expect(CommandLineError.unknownOption("--bogus").description == "unknown option --bogus")
    }

    @Test func missingValueAtTheEnd() {
        #expect(Sample.error("site", "--key") == .missingValue("--key"))
        #expect(Sample.error("site", "--key", "k", "--out") == .missingValue("--out"))
        #expect(CommandLineError.missingValue("--out").description == "option --out needs a value")
    }

    @Test func anOptionIsNeverTakenAsAValue() {
        // The old reader took `--json` as --out's value and ran without JSON.
        #expect(Sample.error("site", "--key", "k", "--out", "--json") == .missingValue("--out"))
        #expect(Sample.error("site", "--key", "--out", "x") == .missingValue("--key"))
        #expect(Sample.error("site", "--key", "k", "--out", "--") == .missingValue("--out"))
        // What looks like an option can be a value in the `=` form; `-` and `-1` are values.
        let parsed = try? Sample.parse("site", "--key=--json", "--out", "-")
        #expect(parsed?[Sample.key] == "--json" && parsed?[Sample.out] == "-" && parsed?[Sample.json] == false)
        #expect(Sample.error("site", "--key", "k", "--port", "-1") == .invalid(option: "--port", value: "-1", expected: "0–65535"))
    }

    @Test func equalsForm() throws {
        let parsed = try Sample.parse("--key=a=b", "site", "--out=", "--port=9")
        #expect(parsed[Sample.key] == "a=b")
        #expect(parsed[Sample.out] == "")
        #expect(parsed[Sample.port] == 9)
        #expect(Sample.error("site", "--key", "k", "--json=yes") == .unexpectedValue("--json"))
    }

    @Test func doubleDashEndsOptions() throws {
        let parsed = try Sample.parse("--key", "k", "--", "--json", "--help")
        #expect(parsed[Sample.target] == "--json")
        #expect(parsed[Sample.extra] == "--help")
        #expect(!parsed[Sample.json])
        #expect(parsed.positionals == ["--json", "--help"])
        #expect(Sample.error("--key", "k", "--", "a", "b", "c") == .unexpectedArguments(["c"]))
    }

    @Test func repeatedOption() throws {
        #expect(Sample.error("site", "--key", "a", "--key", "b") == .repeated("--key"))
        #expect(Sample.error("site", "--key", "a", "--json", "--json") == .repeated("--json"))
        #expect(Sample.error("site", "--key", "a", "--port=1", "--port", "2") == .repeated("--port"))
        // Declared last-wins, or repeatable: no error.
        let parsed = try Sample.parse("site", "--key", "k", "--host", "a", "--host", "b", "--allow", "x", "--allow", "y")
        #expect(parsed[Sample.host] == "b")
        #expect(parsed[Sample.allow] == ["x", "y"])
    }

    @Test func integersNumbersAndChoicesAreChecked() {
        #expect(Sample.error("site", "--key", "k", "--port", "80x") == .invalid(option: "--port", value: "80x", expected: "an integer"))
        #expect(Sample.error("site", "--key", "k", "--port", "70000") == .invalid(option: "--port", value: "70000", expected: "0–65535"))
        #expect(Sample.error("site", "--key", "k", "--keep", "0") == .invalid(option: "--keep", value: "0", expected: "at least 1"))
        #expect(Sample.error("site", "--key", "k", "--timeout", "soon") == .invalid(option: "--timeout", value: "soon", expected: "a number"))
        #expect(Sample.error("site", "--key", "k", "--timeout", "nan") == .invalid(option: "--timeout", value: "nan", expected: "a number"))
        #expect(Sample.error("site", "--key", "k", "--engine", "gecko") == .invalid(option: "--engine", value: "gecko", expected: "webkit|blink"))
        #expect((try? Sample.parse("site", "--key", "k", "--timeout", "0.5", "--engine", "blink"))?[Sample.timeout] == 0.5)
    }

    @Test func requiredOptionsAndPositionalCounts() throws {
        #expect(Sample.error("site") == .missingRequired("--key PUB"))
        #expect(Sample.error("--key", "k") == .missingRequired("TARGET"))
        #expect(Sample.error("--key", "k", "a", "b", "c", "d") == .unexpectedArguments(["c", "d"]))
        #expect(try Sample.parse("--key", "k", "a", "b")[Sample.extra] == "b")
    }

    @Test func repeatedAndChoiceArguments() throws {
        let files: CommandArgument<[String]> = .repeated("FILE", atLeast: 1, help: "files")
        let verb: CommandArgument<String> = .required("ACTION", choices: ["prune"], help: "what to do")
        let table = CommandTable(name: "t", summary: "t", arguments: [verb, files])
        #expect(try ParsedArguments(parsing: ["prune", "a", "b", "c"], by: table)[files] == ["a", "b", "c"])
        #expect(throws: CommandLineError.missingRequired("FILE")) { try ParsedArguments(parsing: ["prune"], by: table) }
        #expect(throws: CommandLineError.invalid(option: "ACTION", value: "drop", expected: "prune")) {
            try ParsedArguments(parsing: ["drop", "a"], by: table)
        }
        #expect(throws: CommandLineError.missingRequired("ACTION (prune)")) { try ParsedArguments(parsing: [], by: table) }
    }
}
