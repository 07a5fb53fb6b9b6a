import Foundation
import HybridBase

/// The scripts the bridge injects: the transport `hybrid-transport.js` (beside the native message
/// handler) and the page runtime `hybrid.js` (in the page's world), both package resources.
///
/// The transport is the only code that touches `window.webkit.messageHandlers.NAME`. With
/// script worlds it lives in an isolated world, top frame only, so neither the page's scripts
/// nor any iframe can reach the handler; it relays the page runtime's DOM CustomEvents (JSON
/// string `detail`) to native and native's answers back. Without worlds it runs in the page's
/// world and relies on a per-document nonce the container delivers to the top frame only.
public enum BridgeTransportScript {
    /// The transport's source: `hybrid-transport.js` (a package resource beside `hybrid.js`) with
    /// its configuration filled in.
    /// - Parameters:
    ///   - handlerName: The message handler's name (`hybrid`).
    ///   - replies: The handler answers `postMessage` with a Promise; otherwise answers come back
    ///     through `__hybridkitTransport.deliver` evaluated by the container.
    ///   - issuedNonce: The container issues the nonce at commit (`setNonce`); otherwise the
    ///     transport says hello: with `replies` the hello's answer carries the nonce the router
    ///     made, without them the transport makes one and announces it.
    /// - Returns: The script to inject at document start, top frame only.
    public static func source(handlerName: String, replies: Bool, issuedNonce: Bool) -> String {
        let config: JSONValue = ["handler": .string(handlerName), "replies": .bool(replies), "issued": .bool(issuedNonce)]
        return transportSource.replacingOccurrences(of: configPlaceholder, with: config.jsonText)
    }

    /// Where `hybrid-transport.js` takes its configuration.
    static let configPlaceholder = "__HYBRIDKIT_TRANSPORT_CONFIG__"

    /// `hybrid-transport.js` as shipped.
    static let transportSource = ScriptResource.source("hybrid-transport", in: .module)

    /// The script the container evaluates (in the transport's world, main frame) to hand an
    /// issued nonce to a new document, whether or not its transport has started yet.
    public static func issueNonce(_ nonce: String, info: JSONValue) -> String {
        let n = nonce.jsStringLiteral, i = info.jsonText
        return "window.__hybridkitTransport ? window.__hybridkitTransport.setNonce(\(n), \(i)) : "
            + "(window.__hybridkitIssued = { nonce: \(n), info: \(i) }); void 0;"
    }

    /// The script that delivers answers, progress and events to the transport of the document
    /// with `nonce` (a document that has since gone ignores it).
    public static func deliver(_ texts: [String], nonce: String?) -> String {
        let list = texts.map(BridgeJSON.quote).joined(separator: ",")
        return "window.__hybridkitTransport && window.__hybridkitTransport.deliver(\(BridgeJSON.quote(nonce ?? "")), [\(list)]); void 0;"
    }

    /// The page runtime `hybrid.js`, shipped as a package resource.
    public static let runtimeSource = ScriptResource.source("hybrid", in: .module)

    /// `hybrid.js` preceded by its boot settings (`transport`, `urlScheme`, `maxMessageBytes`).
    /// - Parameters:
    ///   - transport: `event` or `url`.
    ///   - urlScheme: The scheme of URL-style calls.
    ///   - maxMessageBytes: The router's message limit, so the runtime refuses an oversized call
    ///     (its Blobs unread) before the handshake too; `nil`: checked from the handshake on.
    ///   - byteChannel: The byte channel's URL prefix and the size from which byte values take it
    ///     (``BridgeByteChannel``); `nil`: every byte value travels as base64.
    ///   - byteChannelReads: The URL prefix the channel's bytes are fetched from, when it is not
    ///     the channel's own (``BridgeByteChannel/readURL``).
    ///   - byteChannelBlobs: Post the channel's bodies wrapped in a `Blob` (a loopback endpoint, where
    ///     Chromium then streams them); `false`: as bytes (a custom scheme: a Blob body there crashes
    ///     WebKitGTK 2.50).
    public static func runtime(transport: String, urlScheme: String, maxMessageBytes: Int? = nil,
                               byteChannel: (url: String, threshold: Int)? = nil, byteChannelReads: String? = nil,
                               byteChannelBlobs: Bool = false) -> String {
        var boot: [String: JSONValue] = ["transport": .string(transport), "urlScheme": .string(urlScheme)]
        if let maxMessageBytes { boot["maxMessageBytes"] = .number(Double(maxMessageBytes)) }
        if let byteChannel {
            boot["byteChannel"] = .string(byteChannel.url)
            boot["byteThreshold"] = .number(Double(byteChannel.threshold))
            if let byteChannelReads, byteChannelReads != byteChannel.url { boot["byteChannelReads"] = .string(byteChannelReads) }
            if byteChannelBlobs { boot["byteChannelBlobs"] = true }
        }
        return "window.__hybridkitBoot = \(JSONValue.object(boot).jsonText);\n" + runtimeSource
    }
}
