import Foundation
import HybridBase

/// The JavaScript world a script runs in or a message handler listens in.
///
/// `.page` is the page's own world. A named world is isolated from it: the page's
/// scripts cannot see its globals or its message handlers (WKContentWorld on Apple,
/// a script world on WebKitGTK, an isolated world on Blink).
public enum ScriptWorld: Sendable, Hashable {
    /// The page's own world, shared with the page's scripts.
    case page
    /// An isolated world with this name; scripts and handlers with the same name share it.
    case named(String)

    /// The world's name, or `nil` for the page world.
    public var name: String? { if case .named(let name) = self { name } else { nil } }
}

/// A script the engine injects into every matching document.
public struct UserScript: Sendable, Hashable {
    /// When the script runs.
    public enum InjectionTime: Sendable, Hashable { case documentStart, documentEnd }
    /// Which frames the script runs in.
    public enum Frames: Sendable, Hashable { case mainFrameOnly, allFrames }

    /// The JavaScript source.
    public var source: String
    /// Whether it runs before the page's own scripts or after the document was parsed.
    public var injectionTime: InjectionTime
    /// Whether it runs in the main frame only or in every frame.
    public var frames: Frames
    /// The world it runs in (the page's, or an isolated one).
    public var world: ScriptWorld
    /// URL patterns (`scheme://host/path`, `*` wildcards) the script is limited to; empty = all.
    public var allowList: [String]
    /// URL patterns the script never runs in.
    public var blockList: [String]

    /// A script; by default it runs at document start, in the main frame, in the page's world,
    /// on every URL.
    public init(
        source: String, injectionTime: InjectionTime = .documentStart, frames: Frames = .mainFrameOnly,
        world: ScriptWorld = .page, allowList: [String] = [], blockList: [String] = []
    ) {
        self.source = source
        self.injectionTime = injectionTime
        self.frames = frames
        self.world = world
        self.allowList = allowList
        self.blockList = blockList
    }
}

/// A user style sheet the engine injects into every matching document.
public struct UserStyleSheet: Sendable, Hashable {
    /// The CSS source.
    public var source: String
    /// Whether it applies to the main frame only or to every frame.
    public var frames: UserScript.Frames
    /// URL patterns (`scheme://host/path`, `*` wildcards) the sheet is limited to; empty = all.
    public var allowList: [String]
    /// URL patterns the sheet never applies to.
    public var blockList: [String]

    /// A style sheet; by default it applies to the main frame of every URL.
    public init(source: String, frames: UserScript.Frames = .mainFrameOnly, allowList: [String] = [], blockList: [String] = []) {
        self.source = source
        self.frames = frames
        self.allowList = allowList
        self.blockList = blockList
    }
}

/// A message the page posted to a named handler
/// (`window.webkit.messageHandlers.NAME.postMessage(body)` in the handler's world).
public struct ScriptMessage: Sendable {
    /// The handler's name.
    public var name: String
    /// The posted value. A string is delivered as-is (no JSON round trip), anything else as JSON text.
    public var body: Body

    /// How the posted value arrives.
    public enum Body: Sendable, Equatable {
        /// The page posted a string.
        case string(String)
        /// The page posted another value; this is its JSON text.
        case json(String)
    }

    /// A message as the engine received it.
    public init(name: String, body: Body) {
        self.name = name
        self.body = body
    }
}

/// The answer to a message posted to a handler that replies: one type from the bridge router,
/// through the engine contract, to each driver.
public enum ScriptReply: Sendable, Equatable {
    /// Resolve the page's promise with this JSON value (JSON text).
    case json(String)
    /// Resolve the page's promise with this string.
    case string(String)
    /// Reject the page's promise with an error carrying this message.
    case error(String)

    /// Nothing to deliver (the document that asked has gone, or the message needs no answer): an
    /// empty string, which the bridge transport discards silently.
    public static let dropped = ScriptReply.string("")

    /// The text a string or JSON reply carries; `nil` for an error and for ``dropped``.
    public var text: String? {
        switch self {
        case .string(let text), .json(let text): text.isEmpty ? nil : text
        case .error: nil
        }
    }
}

/// A reply handler's answer to one message: known at once, or still to be worked out.
public enum ScriptAnswer: Sendable {
    /// Sent at once, from inside the engine's callback: no task is started for the message.
    case now(ScriptReply)
    /// Worked out by this closure, in a task the engine adapter starts at once on the main actor.
    case later(@MainActor @Sendable () async -> ScriptReply)

    /// The reply, awaited when it is still to be worked out.
    @MainActor public func reply() async -> ScriptReply {
        switch self {
        case .now(let reply): reply
        case .later(let work): await work()
        }
    }
}

/// A named script message handler registered when the engine is created.
public struct ScriptMessageHandler: Sendable {
    /// Works out the reply to a message; always run in a task.
    public typealias Handler = @MainActor @Sendable (ScriptMessage) async -> ScriptReply
    /// Answers a message at once when it can (``ScriptAnswer/now(_:)``): a message round trip is
    /// then only the engine's own work, which matters for a bridge's every call.
    public typealias Answerer = @MainActor @Sendable (ScriptMessage) -> ScriptAnswer
    /// Takes a message that gets no reply.
    public typealias Receiver = @MainActor @Sendable (ScriptMessage) -> Void

    /// The name the page posts to (`window.webkit.messageHandlers.NAME`).
    public var name: String
    /// The world the handler is visible in; the page cannot reach a handler in an isolated world.
    public var world: ScriptWorld
    /// `.reply`: `postMessage` returns a Promise resolved by the handler (WKScriptMessageHandlerWithReply).
    /// `.noReply`: fire-and-forget (the older WKScriptMessageHandler).
    public var kind: Kind

    /// Whether the handler replies, and how it is called.
    public enum Kind: Sendable {
        /// `postMessage` returns a Promise that this answers.
        case reply(Answerer)
        /// `postMessage` returns nothing; this only receives.
        case noReply(Receiver)
    }

    /// A handler that replies, always asynchronously.
    public init(name: String, world: ScriptWorld = .page, reply handler: @escaping Handler) {
        self.init(name: name, world: world, answer: { message in .later { await handler(message) } })
    }

    /// A handler that replies at once when it can.
    public init(name: String, world: ScriptWorld = .page, answer: @escaping Answerer) {
        self.name = name
        self.world = world
        self.kind = .reply(answer)
    }

    /// A handler that does not reply (fire-and-forget).
    public init(name: String, world: ScriptWorld = .page, receive receiver: @escaping Receiver) {
        self.name = name
        self.world = world
        self.kind = .noReply(receiver)
    }
}

/// How autoplay and inline playback behave; fixed when the engine is created.
public struct MediaPolicy: Sendable, Hashable {
    /// Media may start without a user gesture.
    public var autoplayWithoutGesture: Bool
    /// Inline playback (no forced full-screen) — meaningful on iOS; always true on desktop engines.
    public var inlinePlayback: Bool

    /// A media policy; by default media needs a gesture to start and plays inline.
    public init(autoplayWithoutGesture: Bool = false, inlinePlayback: Bool = true) {
        self.autoplayWithoutGesture = autoplayWithoutGesture
        self.inlinePlayback = inlinePlayback
    }
}

/// Everything an engine view is created with. Fixed for the view's life.
public struct EngineConfiguration: Sendable {
    /// Scripts injected into every document, in order.
    public var userScripts: [UserScript]
    /// Style sheets injected into every document, in order.
    public var userStyleSheets: [UserStyleSheet]
    /// Named handlers the page can post messages to.
    public var messageHandlers: [ScriptMessageHandler]
    /// Custom URL schemes this view serves itself (`hybrid-app`, ...). http/https cannot be taken over.
    public var schemeHandlers: [String: any URLSchemeHandler]
    /// Autoplay and inline playback.
    public var media: MediaPolicy
    /// The User-Agent suffix the container appends (pages detect the container by it).
    public var applicationNameForUserAgent: String?
    /// Viewport size in CSS pixels for the view's host window.
    public var viewportSize: ViewportSize
    /// Allow the engine's developer tools / remote inspector.
    public var developerExtras: Bool
    /// Permissions granted up front, by origin (`scheme://host[:port]`), for an engine that cannot
    /// ask at request time (no ``EngineCapabilities/permissionPrompts``); every other origin is
    /// denied. ``HybridWebView`` fills it from its ``PermissionPolicy/grants``.
    public var permissionGrants: [String: Set<PermissionKind>] = [:]
    /// Capture devices are the engine's fake ones (a test pattern and a tone): WebKitGTK's mock
    /// capture devices; for Blink set `BlinkEngineProvider.usesFakeCaptureDevices`, as it is browser-wide.
    public var usesMockCaptureDevices = false

    /// A configuration; by default no scripts, handlers or schemes, an 800×600 viewport, developer
    /// tools off and the `HybridKit` User-Agent suffix.
    public init(
        userScripts: [UserScript] = [], userStyleSheets: [UserStyleSheet] = [],
        messageHandlers: [ScriptMessageHandler] = [], schemeHandlers: [String: any URLSchemeHandler] = [:],
        media: MediaPolicy = MediaPolicy(), applicationNameForUserAgent: String? = "HybridKit",
        viewportSize: ViewportSize = ViewportSize(width: 800, height: 600), developerExtras: Bool = false
    ) {
        self.userScripts = userScripts
        self.userStyleSheets = userStyleSheets
        self.messageHandlers = messageHandlers
        self.schemeHandlers = schemeHandlers
        self.media = media
        self.applicationNameForUserAgent = applicationNameForUserAgent
        self.viewportSize = viewportSize
        self.developerExtras = developerExtras
    }
}

/// A view's size in CSS pixels.
public struct ViewportSize: Sendable, Hashable {
    /// Width in CSS pixels.
    public var width: Int
    /// Height in CSS pixels.
    public var height: Int
    /// A size of `width` × `height` CSS pixels.
    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }
}

/// Where an engine keeps cookies, cache and storage (a `WKWebsiteDataStore`, a WebKitGTK
/// network session, a Chromium profile).
public enum EngineSessionKind: Sendable, Hashable {
    /// In memory only: nothing survives the process.
    case ephemeral
    /// Persistent in this directory (cookies in an SQLite file, caches beside it).
    case persistent(directory: URL)
}
