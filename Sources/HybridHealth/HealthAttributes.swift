import Foundation
import HybridBase

/// The one table between a ``HealthEvent`` and its OpenTelemetry attributes, both ways:
/// semantic-convention names where one exists, `hybridkit.*` for the rest.
enum HealthAttributes {
    package static func encode(_ event: HealthEvent) -> [OTLPAttribute] {
        var out: [OTLPAttribute] = []
        func add(_ key: String, _ value: String?) { if let value { out.append(OTLPAttribute(key, .string(value))) } }
        func add(_ key: String, _ value: Int?) { if let value { out.append(OTLPAttribute(key, .int(value))) } }
        func add(_ key: String, _ value: Double?) { if let value { out.append(OTLPAttribute(key, .double(value))) } }
        let context = event.context
        add("hybridkit.package.id", context.packageID)
        add("hybridkit.package.version", context.packageVersion)
        add("hybridkit.engine", context.engine)
        add("hybridkit.config.rule", context.configRule)
        add("hybridkit.rollout.bucket", context.rolloutBucket)
        add("url.full", context.url)
        add("hybridkit.launch.id", context.launchID)
        switch event.kind {
        case .launch(let source):
            add("hybridkit.page.source", source.rawValue)
        case .pageTiming(let timing):
            add("hybridkit.timing.response_start_ms", timing.responseStart)
            add("hybridkit.timing.dom_content_loaded_ms", timing.domContentLoaded)
            add("hybridkit.timing.load_ms", timing.load)
            add("hybridkit.timing.first_paint_ms", timing.firstPaint)
            add("hybridkit.timing.first_contentful_paint_ms", timing.firstContentfulPaint)
        case .ready(let milliseconds):
            add("hybridkit.timing.ready_ms", milliseconds)
        case .scriptError(let report):
            add("exception.type", report.type)
            add("exception.message", report.message)
            add("exception.stacktrace", report.stack)
            add("code.file.path", report.source)
            add("code.line.number", report.line)
            add("code.column.number", report.column)
            add("hybridkit.error.origin", report.origin)
        case .whiteScreen(let reason, let recovery):
            add("hybridkit.white_screen.reason", reason)
            add("hybridkit.white_screen.recovery", recovery)
        case .processTerminated(let reason):
            add("hybridkit.termination.reason", reason)
        case .bridgeFailure(let module, let code):
            add("hybridkit.bridge.module", module)
            add("error.type", code)
        case .proxyFailure(let code):
            add("error.type", code)
        case .update(let way, let bytes, let milliseconds):
            add("hybridkit.update.way", way)
            add("hybridkit.update.bytes", bytes)
            add("hybridkit.update.duration_ms", milliseconds)
        case .rollback(let reason):
            add("hybridkit.rollback.reason", reason)
        case .dropped(let count):
            add("hybridkit.dropped.count", count)
        }
        return out
    }

    /// The event these attributes describe, or `nil` when they are not a HybridKit event.
    package static func decode(_ attributes: [OTLPAttribute], time: Date) -> HealthEvent? {
        var values: [String: OTLPValue] = [:]
        for attribute in attributes { values[attribute.key] = attribute.value }
        func string(_ key: String) -> String? { values[key]?.string }
        func int(_ key: String) -> Int? { values[key]?.int }
        func double(_ key: String) -> Double? { values[key]?.double }
        guard let name = string("event.name"), let engine = string("hybridkit.engine") else { return nil }
        let context = HealthContext(packageID: string("hybridkit.package.id"), packageVersion: int("hybridkit.package.version"),
                                    engine: engine, configRule: string("hybridkit.config.rule"),
                                    rolloutBucket: double("hybridkit.rollout.bucket"), url: string("url.full"),
                                    launchID: string("hybridkit.launch.id"))
        let kind: HealthEvent.Kind
        switch name {
        case "hybridkit.page.launch":
            guard let source = string("hybridkit.page.source").flatMap(HealthEvent.PageSource.init(rawValue:)) else { return nil }
            kind = .launch(source: source)
        case "hybridkit.page.timing":
            kind = .pageTiming(PageTiming(responseStart: double("hybridkit.timing.response_start_ms"),
                                          domContentLoaded: double("hybridkit.timing.dom_content_loaded_ms"),
                                          load: double("hybridkit.timing.load_ms"),
                                          firstPaint: double("hybridkit.timing.first_paint_ms"),
                                          firstContentfulPaint: double("hybridkit.timing.first_contentful_paint_ms")))
        case "hybridkit.page.ready":
            guard let milliseconds = double("hybridkit.timing.ready_ms") else { return nil }
            kind = .ready(milliseconds: milliseconds)
        case "hybridkit.script.error":
            kind = .scriptError(ScriptErrorReport(type: string("exception.type") ?? "error", message: string("exception.message") ?? "",
                                                  source: string("code.file.path"), line: int("code.line.number"),
                                                  column: int("code.column.number"), stack: string("exception.stacktrace"),
                                                  origin: string("hybridkit.error.origin")))
        case "hybridkit.page.white_screen":
            kind = .whiteScreen(reason: string("hybridkit.white_screen.reason") ?? "", recovery: string("hybridkit.white_screen.recovery") ?? "")
        case "hybridkit.process.terminated":
            kind = .processTerminated(reason: string("hybridkit.termination.reason") ?? "")
        case "hybridkit.bridge.failure":
            kind = .bridgeFailure(module: string("hybridkit.bridge.module") ?? "", code: string("error.type") ?? "")
        case "hybridkit.proxy.failure":
            kind = .proxyFailure(code: string("error.type") ?? "")
        case "hybridkit.package.update":
            kind = .update(way: string("hybridkit.update.way") ?? "", bytes: int("hybridkit.update.bytes") ?? 0,
                           milliseconds: double("hybridkit.update.duration_ms") ?? 0)
        case "hybridkit.package.rollback":
            kind = .rollback(reason: string("hybridkit.rollback.reason") ?? "")
        case "hybridkit.health.dropped":
            kind = .dropped(count: int("hybridkit.dropped.count") ?? 0)
        default:
            return nil
        }
        return HealthEvent(kind, time: time, context: context)
    }
}
