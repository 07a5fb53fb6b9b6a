import Foundation
import HybridBridge
import HybridBase

/// What the `app` module reports to its container: the page's own word on its health.
@MainActor
public protocol BridgeAppHealthDelegate: AnyObject, Sendable {
    /// The package page signalled `hybrid.call('app', 'ready')`.
    func bridgeAppReady() async
    /// A network page of `origin`, one of the admitted ready origins, signalled
    /// `hybrid.call('app', 'ready')`: a health mark only, never a package version's confirmation.
    func bridgePageReady(origin: BridgeOrigin?) async
}

extension BridgeAppHealthDelegate {
    /// Ignores a network page's ready mark.
    public func bridgePageReady(origin: BridgeOrigin?) async {}
}

/// The built-in `app` module a ``HybridWebView`` registers when it serves an offline package
/// (``PackageBinding``) or admits network pages' ready marks
/// (``HybridWebViewConfiguration/readyOrigins``): the page tells the container it works (boot
/// health, ``BootHealthPolicy``; health recording).
///
/// - `ready` → `null`: from the package's page, the version on trial is healthy; it is confirmed
///   and never rolled back. From a page of a ready origin, only the launch's ready mark.
///
/// Default deny: only the package's own origin (its scheme, with the host and port of the active
/// manifest's origin) and the listed ready origins may call it; every other page gets `denied`, so
/// no other page can confirm (or keep on trial) a version it did not ship, and no network page
/// ever touches a trial.
public struct AppModule: BridgeModule {
    /// The name pages call the module by (`hybrid.call('app', …)`).
    public let name = "app"
    /// The package's origin when it was known at registration, else every origin (each call is
    /// then checked against the active manifest's origin), plus ``readyOrigins``.
    public let allowedOrigins: [OriginPattern]
    /// The package whose pages may call, if any.
    public let package: PackageBinding?
    /// Network origins whose pages may mark ready (a health mark, never a trial's confirmation).
    public let readyOrigins: [OriginPattern]
    /// Set ``BridgeDelegateSlot/delegate`` to the container.
    public let slot: BridgeDelegateSlot<any BridgeAppHealthDelegate>

    /// An `app` module for `package`'s pages; set `slot.delegate` to the container.
    public init(package: PackageBinding, slot: BridgeDelegateSlot<any BridgeAppHealthDelegate> = .init()) {
        self.init(package: package, readyOrigins: [], slot: slot)
    }

    /// An `app` module for `package`'s pages (if any) and the pages of `readyOrigins`; set
    /// `slot.delegate` to the container.
    public init(package: PackageBinding?, readyOrigins: [OriginPattern],
                slot: BridgeDelegateSlot<any BridgeAppHealthDelegate> = .init()) {
        self.package = package
        self.readyOrigins = readyOrigins
        self.slot = slot
        let packageOrigins: [OriginPattern] = package.map { Self.origin(of: $0).map { [.exact($0)] } ?? [.any] } ?? []
        allowedOrigins = packageOrigins + readyOrigins
    }

    /// `ready`.
    public var actions: [BridgeAction] {
        let slot = slot
        let package = package
        let readyOrigins = readyOrigins
        return [
            Action("ready") { (_: Empty, context) in
                if let package, let origin = context.origin, origin == Self.origin(of: package) {
                    try await slot.require("app").bridgeAppReady()
                } else if readyOrigins.contains(where: { $0.matches(context.origin) }) {
                    try await slot.require("app").bridgePageReady(origin: context.origin)
                } else {
                    let pages = package.map { "the pages of package '\($0.id)'" } ?? "no page"
                    throw BridgeFailure.denied("app.ready is for \(pages) and the app's ready origins")
                }
                return BridgeEmpty()
            },
        ]
    }

    /// The origin the package's pages have in the view: its scheme, with the active manifest's host and port.
    static func origin(of package: PackageBinding) -> BridgeOrigin? {
        guard let manifest = package.activeManifest, let url = manifest.originURL, let host = url.host else { return nil }
        return BridgeOrigin(scheme: package.scheme, host: host.lowercased(), port: url.port)
    }
}
