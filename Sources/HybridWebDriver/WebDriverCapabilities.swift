import Foundation
import HybridCore

/// What a new session asked for: the W3C capabilities HybridKit reads, and its own `hybrid:options`.
///
/// Processed as the standard says (§7.2): `alwaysMatch` merged with each `firstMatch` entry in
/// turn, the first that validates wins. Unknown standard keys and unknown `hybrid:options` keys
/// are `invalid argument`; other vendors' extension keys (`goog:chromeOptions`) are ignored.
public struct WebDriverCapabilities: Sendable, Equatable {
    /// When a navigation command returns (`normal`: the load finished; `eager` is treated as
    /// `normal`; `none`: at once).
    public enum PageLoadStrategy: String, Sendable { case normal, eager, none }
    /// What a command does when a dialog is open (§16.3 "user prompt handler").
    public enum PromptBehavior: String, Sendable {
        case dismiss, accept, ignore
        case dismissAndNotify = "dismiss and notify"
        case acceptAndNotify = "accept and notify"
    }

    /// `pageLoadStrategy` (default `normal`).
    public var pageLoadStrategy = PageLoadStrategy.normal
    /// `unhandledPromptBehavior` (default `dismiss and notify`).
    public var promptBehavior = PromptBehavior.dismissAndNotify
    /// `timeouts` as given (the session's defaults otherwise).
    public var timeouts = WebDriverTimeouts()
    /// `hybrid:options`: how HybridKit makes the session's view.
    public var hybrid = HybridOptions()

    /// `hybrid:options`: the container a session opens. Each key is optional; a listener that
    /// makes views (the `hybrid webdriver` command, or an app) decides what it honours.
    public struct HybridOptions: Sendable, Equatable {
        /// `engine`: `webkit` or `blink`.
        public var engine: String?
        /// `config`: the path of a remote-config document deciding the view's features.
        public var config: String?
        /// `key`: the public key that verifies `config`'s signature (`config`.sig).
        public var key: String?
        /// `installId`: the install the config's rollout buckets decide for.
        public var installID: String?
        /// `store`: a package store (as `hybrid update` fills it).
        public var store: String?
        /// `package`: the id of an installed package the session opens first (at its entry page).
        public var package: String?
        /// `url`: a page the session opens first.
        public var url: String?
        /// `allow`: more origins whose pages get the bridge's modules.
        public var allow: [String] = []

        /// The keys `hybrid:options` may have.
        public static let keys: Set<String> = ["engine", "config", "key", "installId", "store", "package", "url", "allow"]

        /// Nothing set: the listener's defaults.
        public init() {}
    }

    /// The standard's defaults.
    public init() {}

    /// The capabilities of a New Session body, or the error the standard gives.
    /// - Throws: ``WebDriverError`` `invalid argument` (a malformed or unknown capability) or
    ///   `session not created` (no `firstMatch` entry HybridKit can match).
    static func negotiate(_ body: JSONValue) throws -> WebDriverCapabilities {
        guard let capabilities = body["capabilities"] else {
            throw WebDriverError(.invalidArgument, "the body has no capabilities object")
        }
        guard case .object = capabilities else { throw WebDriverError(.invalidArgument, "capabilities is not an object") }
        let always = try object(capabilities["alwaysMatch"] ?? .object([:]), "alwaysMatch")
        let firsts = try (capabilities["firstMatch"]?.arrayValue ?? (capabilities["firstMatch"] == nil ? [.object([:])] : nil))
            .map { try $0.map { try object($0, "a firstMatch entry") } }
        guard let firsts, !firsts.isEmpty else { throw WebDriverError(.invalidArgument, "firstMatch is not a non-empty array") }
        var mismatch: WebDriverError?
        for first in firsts {
            if let shared = Set(first.keys).intersection(always.keys).first {
                throw WebDriverError(.invalidArgument, "\(shared) is in both alwaysMatch and firstMatch")
            }
            do {
                return try validate(always.merging(first) { a, _ in a })
            } catch let error as WebDriverError where error.code == .sessionNotCreated {
                mismatch = error
            }
        }
        throw mismatch ?? WebDriverError(.sessionNotCreated, "no capabilities matched")
    }

    private static func object(_ value: JSONValue, _ what: String) throws -> [String: JSONValue] {
        guard let object = value.objectValue else { throw WebDriverError(.invalidArgument, "\(what) is not an object") }
        return object
    }

    private static func string(_ value: JSONValue, _ key: String) throws -> String {
        guard let text = value.stringValue else { throw WebDriverError(.invalidArgument, "\(key) is not a string") }
        return text
    }

    private static func validate(_ merged: [String: JSONValue]) throws -> WebDriverCapabilities {
        var result = WebDriverCapabilities()
        for (key, value) in merged where value != .null {
            switch key {
            case "browserName":
                let name = try string(value, key)
                guard name == WebDriverEndpoint.browserName else {
                    throw WebDriverError(.sessionNotCreated, "browserName \(name) is not \(WebDriverEndpoint.browserName)")
                }
            case "browserVersion", "platformName":
                _ = try string(value, key)   // any: the view is what the listener makes
            case "acceptInsecureCerts":
                guard let accept = value.boolValue else { throw WebDriverError(.invalidArgument, "acceptInsecureCerts is not a boolean") }
                if accept { throw WebDriverError(.sessionNotCreated, "HybridKit never accepts insecure certificates") }
            case "pageLoadStrategy":
                guard let strategy = PageLoadStrategy(rawValue: try string(value, key)) else {
                    throw WebDriverError(.invalidArgument, "pageLoadStrategy must be normal, eager or none")
                }
                result.pageLoadStrategy = strategy
            case "unhandledPromptBehavior":
                guard let behavior = PromptBehavior(rawValue: try string(value, key)) else {
                    throw WebDriverError(.invalidArgument, "unhandledPromptBehavior must be dismiss, accept, dismiss and notify, accept and notify or ignore")
                }
                result.promptBehavior = behavior
            case "timeouts":
                result.timeouts = try result.timeouts.updating(with: value)
            case "proxy":
                guard value.objectValue?.isEmpty == true else {
                    throw WebDriverError(.sessionNotCreated, "a proxy is the app's (request proxy, remote config), not a capability")
                }
            case "setWindowRect":
                if value.boolValue == true { throw WebDriverError(.sessionNotCreated, "the view's size is fixed by its configuration") }
            case "strictFileInteractability", "webSocketUrl":
                guard value.boolValue != nil else { throw WebDriverError(.invalidArgument, "\(key) is not a boolean") }
            case "hybrid:options":
                result.hybrid = try hybridOptions(value)
            default:
                // Other vendors' extensions are not ours to judge; an unknown standard key is an error.
                guard key.contains(":") else { throw WebDriverError(.invalidArgument, "unknown capability \(key)") }
            }
        }
        return result
    }

    private static func hybridOptions(_ value: JSONValue) throws -> HybridOptions {
        let object = try object(value, "hybrid:options")
        if let unknown = Set(object.keys).subtracting(HybridOptions.keys).sorted().first {
            throw WebDriverError(.invalidArgument, "unknown hybrid:options key \(unknown) (known: \(HybridOptions.keys.sorted().joined(separator: ", ")))")
        }
        var options = HybridOptions()
        let text = { (key: String) throws -> String? in try object[key].map { try string($0, "hybrid:options.\(key)") } }
        options.engine = try text("engine")
        if let engine = options.engine, !["webkit", "blink"].contains(engine) {
            throw WebDriverError(.invalidArgument, "hybrid:options.engine must be webkit or blink, not \(engine)")
        }
        options.config = try text("config")
        options.key = try text("key")
        options.installID = try text("installId")
        options.store = try text("store")
        options.package = try text("package")
        options.url = try text("url")
        if let allow = object["allow"] {
            guard let list = allow.arrayValue else { throw WebDriverError(.invalidArgument, "hybrid:options.allow is not an array") }
            options.allow = try list.map { try string($0, "hybrid:options.allow[]") }
        }
        return options
    }
}

/// A session's timeouts in milliseconds (§9 "Timeouts"): `implicit` for finding elements,
/// `pageLoad` for navigations, `script` for scripts (`nil`: no limit).
public struct WebDriverTimeouts: Sendable, Equatable {
    /// How long a find waits for a match (default 0).
    public var implicit: Int = 0
    /// How long a navigation may take (default 300 000).
    public var pageLoad: Int = 300_000
    /// How long a script may run; `nil` = forever (default 30 000).
    public var script: Int? = 30_000

    /// The defaults.
    public init() {}

    /// These timeouts with the keys of `value` set.
    /// - Throws: ``WebDriverError`` `invalid argument` for an unknown key or a value that is not
    ///   an integer in 0...2^53-1.
    func updating(with value: JSONValue) throws -> WebDriverTimeouts {
        guard let object = value.objectValue else { throw WebDriverError(.invalidArgument, "timeouts is not an object") }
        var result = self
        for (key, value) in object {
            let milliseconds: Int?
            switch value {
            case .null where key == "script": milliseconds = nil
            case .number(let number) where number >= 0 && number <= 9_007_199_254_740_991 && number.rounded() == number:
                milliseconds = Int(number)
            default: throw WebDriverError(.invalidArgument, "timeout \(key) is not an integer from 0")
            }
            switch key {
            case "implicit": result.implicit = milliseconds ?? 0
            case "pageLoad": result.pageLoad = milliseconds ?? 0
            case "script": result.script = milliseconds
            default: throw WebDriverError(.invalidArgument, "unknown timeout \(key)")
            }
        }
        return result
    }

    /// `{"implicit", "pageLoad", "script"}`.
    var json: JSONValue {
        ["implicit": .number(Double(implicit)), "pageLoad": .number(Double(pageLoad)),
         "script": script.map { .number(Double($0)) } ?? .null]
    }
}
