import Foundation

/// What the `app` module reports to its container: the page's own word on its health.
@MainActor
public protocol BridgeAppHealthDelegate: AnyObject, Sendable {
    /// The package page signalled `hybrid.call('app', 'ready')`.
    func bridgeAppReady() async
}

/// The built-in `app` module a ``HybridWebView`` registers when it serves an offline package
/// (``PackageBinding``): the page tells the container its version works (boot health,
/// ``BootHealthPolicy``).
///
/// - `ready` → `null`: the version on trial is healthy; it is confirmed and never rolled back.
///
/// Default deny: only the package's own origin (its scheme, with the host and port of the active
/// manifest's origin) may call it; every other page gets `denied`, so no other page can confirm
/// (or keep on trial) a version it did not ship.
public struct AppModule: BridgeModule {
    /// The name pages call the module by (`hybrid.call('app', …)`).
    public let name = "app"
    /// The package's origin when it was known at registration, else every origin (each call is
    /// then checked against the active manifest's origin).
    public let allowedOrigins: [OriginPattern]
    /// The package whose pages may call.
    public let package: PackageBinding
    /// Set ``BridgeDelegateSlot/delegate`` to the container.
    public let slot: BridgeDelegateSlot<any BridgeAppHealthDelegate>

    /// An `app` module for `package`'s pages; set `slot.delegate` to the container.
    public init(package: PackageBinding, slot: BridgeDelegateSlot<any BridgeAppHealthDelegate> = .init()) {
        self.package = package
        self.slot = slot
        allowedOrigins = Self.origin(of: package).map { [.exact($0)] } ?? [.any]
    }

    /// `ready`.
    public var actions: [BridgeAction] {
        let slot = slot
        let package = package
        return [
            Action("ready") { (_: Empty, context) in
                guard let origin = context.origin, origin == Self.origin(of: package) else {
                    throw BridgeFailure.denied("app.ready is for the pages of package '\(package.id)'")
                }
                try await slot.require("app").bridgeAppReady()
                return BridgeEmpty()
            },
        ]
    }

    /// The origin the package's pages have in the view: its scheme, with the active manifest's host and port.
    static func origin(of package: PackageBinding) -> BridgeOrigin? {
        guard let manifest = try? package.installer.store.activePackage(package.id).manifest,
              let url = manifest.originURL, let host = url.host else { return nil }
        return BridgeOrigin(scheme: package.scheme, host: host.lowercased(), port: url.port)
    }
}
