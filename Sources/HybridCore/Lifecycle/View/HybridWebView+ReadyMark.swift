import Foundation
import HybridBase

/// The ready mark of network pages (``HybridWebViewConfiguration/readyOrigins``): recorded by
/// health, never part of a package's boot trial.
extension HybridWebView {
    /// The `app` module for a view without a package: `nil` when no network origin may mark ready.
    static func readyModule(_ readyOrigins: [OriginPattern], slot: BridgeDelegateSlot<any BridgeAppHealthDelegate>) -> AppModule? {
        readyOrigins.isEmpty ? nil : AppModule(package: nil, readyOrigins: readyOrigins, slot: slot)
    }

    /// A network page of an admitted origin called `hybrid.call('app', 'ready')`: its launch's
    /// ready mark is recorded when the launch's page is of that origin (once per launch).
    public func bridgePageReady(origin: BridgeOrigin?) async {
        health?.ready(from: origin)
    }
}
