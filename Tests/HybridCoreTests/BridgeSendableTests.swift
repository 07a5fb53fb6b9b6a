import Foundation
@testable import HybridBridge
@testable import HybridCore
@testable import HybridNetwork
@testable import HybridBase
@testable import HybridEngine
@testable import HybridHTTP
@testable import HybridHealth
@testable import HybridPackages

// Compile-time checks only: the bridge's values cross tasks and actors. If one of these stops
// being Sendable, this file stops compiling.
private func requireSendable<T: Sendable>(_: T.Type) {}

private func bridgeTypesAreSendable() {
    requireSendable(BridgeFailure.self)
    requireSendable(BridgeMessage.self)
    requireSendable(BridgeCall.self)
    requireSendable(BridgeAction.self)
    requireSendable(BridgeCallContext.self)
    requireSendable(BridgeEmpty.self)
    requireSendable(BridgeBytes.self)
    requireSendable(BridgeDecoder.self)
    requireSendable(BridgeDecoder.Failure.self)
    requireSendable(BridgeOrigin.self)
    requireSendable(OriginPattern.self)
    requireSendable(BridgeDocument.self)
    requireSendable(ScriptReply.self)
    requireSendable(BridgeLogEntry.self)
    requireSendable(BridgeCompletion.self)
    requireSendable(BridgeRouter.Limits.self)
    requireSendable(BridgeHost.Options.self)
    requireSendable(BridgeTransport.self)
    requireSendable(BridgeURLCall.self)
    requireSendable(BridgeKeyValueStore.self)
    requireSendable(BridgeKeyValueStore.Limits.self)
    requireSendable(DeviceInfo.self)
    requireSendable(HybridInfoModule.self)
    requireSendable(DeviceModule.self)
    requireSendable(StorageModule.self)
    requireSendable(NavigationModule.self)
    requireSendable(UIModule.self)
    requireSendable(BridgeRouter.self)
    requireSendable(BridgeHost.self)
}
