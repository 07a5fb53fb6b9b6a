import Foundation
import HybridCommandLine
import HybridCore
#if os(Linux)
import HybridBlink
import HybridGTK
#endif

/// One `hybrid bench SUITE`: measures something side by side, as ratios from one run.
protocol BenchSuite {
    static var name: String { get }
    /// The keys it reports, one per line, for `hybrid bench --help`.
    static var keys: String { get }
    /// Runs on the MainActor inside the GLib main loop (the CLI owns the main thread).
    @MainActor static func run(_ options: BenchOptions) async throws -> BenchReport
    /// Whether the suite drives an engine (and so takes `--engine`).
    static var usesEngine: Bool { get }
}

extension BenchSuite {
    static var usesEngine: Bool { true }
}

/// Options every suite understands.
struct BenchOptions: Sendable {
    var iterations: Int?
    /// `webkit` or `blink` (`--engine`).
    var engine: String

    /// The engines `--engine` names.
    static let engines = ["webkit", "blink"]

    /// How long a suite waits for one page load before it stops with an error instead of hanging.
    static let loadTimeout: Double = 120

    #if os(Linux)
    /// A new provider of the chosen engine with its own ephemeral session (its own WebKit
    /// context, or its own Chromium browser).
    @MainActor func makeProvider(session: EngineSessionKind = .ephemeral) throws -> any WebEngineProvider {
        engine == "blink" ? try BlinkEngineProvider(session: session) : try GTKEngineProvider(session: session)
    }
    #endif
}

/// `hybrid bench SUITE [--json]`: each suite lives in its own file and is listed in ``suites``.
enum BenchCommand: HybridCommand {
    /// Every suite, in the order `hybrid bench --help` lists them.
    static var suites: [any BenchSuite.Type] { [
        BridgeBenchSuite.self,
        PoolBenchSuite.self,
        ViewsBenchSuite.self,
        ServeBenchSuite.self,
        OfflineBenchSuite.self,
        ProxyBenchSuite.self,
        DataBenchSuite.self,
        UpdateBenchSuite.self,
        RolloutBenchSuite.self,
        FirstScreenBenchSuite.self,
        HealthBenchSuite.self,
    ] }

    static let suite: CommandArgument<String> = .required("SUITE", choices: suites.map { $0.name }, help: "the suite to run")
    static let json: CommandOption<Bool> = .flag("--json", help: "after the table, print one JSON object of every key as the last line")
    static let iterations: CommandOption<Int?> = .int("--iterations", "N", in: 10...Int.max, defaultText: "each suite's own",
                                                      help: "repetitions per measurement")
    static let engine: CommandOption<String> = .choice("--engine", BenchOptions.engines, default: "webkit", help: """
        the engine, for every suite but serve, update and rollout (they use no engine and refuse the option); a suite reports \
        the same keys on either engine
        """)

    static var table: CommandTable {
        CommandTable(
            name: "bench", summary: "Measure side by side, as ratios from one run (suites: \(suites.map { $0.name }.joined(separator: ", ")))",
            discussion: """
                Runs one benchmark suite in a real engine and prints a table; with --json the last line of
                standard output is one JSON object. Never compare the absolute times across machines: the
                ratios, measured in the same run, are the result. Needs a display (run under xvfb-run -a).
                """,
            arguments: [suite], options: [json, iterations, engine],
            epilogue: """
                SUITES:
                \(suites.map { "  \($0.name)\n" + $0.keys.split(separator: "\n").map { "      " + $0 }.joined(separator: "\n") }.joined(separator: "\n"))
                """)
    }

    static func run(_ arguments: ParsedArguments) throws -> Int32 {
        let json = arguments[Self.json]
        let iterations = arguments[Self.iterations]
        let engine = arguments[Self.engine]
        let name = arguments[Self.suite]
        guard let suite = suites.first(where: { $0.name == name }) else {
            throw CommandLineError.invalid(option: "SUITE", value: name, expected: suites.map { $0.name }.joined(separator: "|"))
        }
        if arguments.isGiven(Self.engine), !suite.usesEngine {
            throw CommandLineError.invalid(option: "--engine", value: engine, expected: "nothing: bench \(name) uses no engine")
        }
        #if os(Linux)
        let options = BenchOptions(iterations: iterations, engine: engine)
        let report = try GLibMainLoop.run { try await suite.run(options) }
        print(report.table)
        if json { print(report.json.jsonText) }
        return 0
        #else
        FileHandle.standardError.write(Data("hybrid bench: needs the WebKitGTK engine (Linux)\n".utf8))
        return 1
        #endif
    }
}

/// What a suite measured, in the order it reports.
struct BenchReport: Sendable {
    var values: [(key: String, value: Double)]

    var json: JSONValue {
        .object(Dictionary(uniqueKeysWithValues: values.map { ($0.key, .number(($0.value * 10_000).rounded() / 10_000)) }))
    }

    var table: String {
        values.map { "\($0.key.padding(toLength: 22, withPad: " ", startingAt: 0)) \(String(format: "%.4f", $0.value))" }
            .joined(separator: "\n")
    }
}
