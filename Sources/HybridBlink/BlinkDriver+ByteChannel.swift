#if os(Linux)  // Chromium over a pipe: Linux only (Apple platforms use WKWebView)
import Foundation
import HybridCore

/// The bridge's byte channel on Blink: served by ``BlinkByteServer`` on loopback instead of at its
/// custom scheme (which Chromium hands to the OS). The view's own reads of its route
/// (`<route>/read/<token>`, GETs without a body) pause in Fetch at the request stage and go on with
/// the route's key added; reads by anyone else reach the server without it and are refused. Posts
/// are not paused: Fetch copies a paused request's body into `requestPaused` as base64, a `Blob`'s
/// too (measured: a 10 MB body made a 77 MB event), so a post is answered on the store's name and
/// the page's origin alone, and can only add bytes under a token nobody but its page names.
extension BlinkDriver {
    /// The configuration's byte channel, when it is served at this process's byte server.
    var servedByteChannel: BridgeByteChannel? {
        guard let channel = configuration.schemeHandlers[BridgeByteChannel.scheme] as? BridgeByteChannel,
              let server = BlinkByteServer.shared, channel.endpoint == server.origin
        else { return nil }
        return channel
    }

    /// Serves the configuration's byte channel (from the view's creation to its tear-down).
    func openByteRoute() {
        guard let channel = servedByteChannel, let server = BlinkByteServer.shared else { return }
        byteRoute = (channel.baseURL, server.add(channel), channel.storeID)
    }

    /// The route is gone: its URLs answer nothing from now on, whoever asks.
    func closeByteRoute() {
        guard let route = byteRoute else { return }
        byteRoute = nil
        BlinkByteServer.shared?.remove(route.storeID)
    }

    /// Lets the page about to load at `url` reach the byte server: Chromium's Local Network Access
    /// refuses a loopback request from a page of another address space (an https page, or one
    /// Fetch fulfilled) with `LocalNetworkAccessPermissionDenied` unless its origin holds the
    /// `loopback-network` permission, which headless Chromium never asks for (measured: granting
    /// `loopbackNetwork` or `localNetworkAccess` with `Browser.grantPermissions` is accepted and
    /// changes nothing; `Browser.setPermission` of `loopback-network` works). Granted once per origin
    /// in the browser context (so for every view of the browser), loopback only (not the local
    /// network), and only to origins a view's main frame loads while it serves a route and whose
    /// pages may call the bridge's modules (``BridgeByteChannel/pageOrigins``): a foreign page the
    /// view shows gets no loopback access from it. A loopback origin is granted too: a page Fetch
    /// fulfilled there (a package on a loopback origin) is outside the loopback address space.
    func grantByteRouteAccess(to url: URL) {
        guard byteRoute != nil, let channel = servedByteChannel, channel.admitsPage(at: url),
              let scheme = url.scheme?.lowercased(), scheme == "https" || scheme == "http",
              let origin = BridgeOrigin(url: url)?.description
        else { return }
        guard browser.loopbackGrants.insert(origin).inserted else { return }
        browser.send("Browser.setPermission", ["origin": .string(origin), "permission": ["name": "loopback-network"], "setting": "granted"])
    }

    /// The Fetch pattern that pauses this view's reads of its own route.
    var byteRoutePattern: JSONValue? {
        byteRoute.map { ["urlPattern": .string($0.baseURL + "read/*"), "requestStage": "Request"] }
    }

    /// A paused read of this view's own route goes on with the route's key, any other request to
    /// the byte server as it is; `false` for requests elsewhere.
    func continueByteRouteRequest(_ id: String, url: URL, headers: JSONValue?) -> Bool {
        guard let server = BlinkByteServer.shared, url.absoluteString.hasPrefix(server.origin + "/") else { return false }
        // Another route's request, or a post paused by an `http` handler's pattern, goes on untouched:
        // the byte server is never served by a handler of the view.
        guard let route = byteRoute, url.absoluteString.hasPrefix(route.baseURL + "read/") else {
            fire("Fetch.continueRequest", ["requestId": .string(id)])
            return true
        }
        var fields = (headers?.objectValue ?? [:]).filter { !$0.key.equalsIgnoringASCIICase(BlinkByteServer.keyHeader) }
            .sorted { $0.key < $1.key }.map { JSONValue.object(["name": .string($0.key), "value": $0.value]) }
        fields.append(["name": .string(BlinkByteServer.keyHeader), "value": .string(route.key)])
        fire("Fetch.continueRequest", ["requestId": .string(id), "headers": .array(fields)])
        return true
    }
}
#endif
