import Foundation
import HybridCore
import HybridCrypto

// Compile-time checks only (as swift-argument-parser's SendableTests), not a test: the package
// types cross tasks and threads, so they must stay `Sendable`. If one stops being, this file
// stops compiling.
private func requireSendable<T: Sendable>(_: T.Type) {}

private func packageTypesAreSendable() {
    requireSendable(PackagePath.self)
    requireSendable(PackageManifest.self)
    requireSendable(PackageFile.self)
    requireSendable(PackagePointer.self)
    requireSendable(PackageStore.self)
    requireSendable(PackageInstaller.self)
    requireSendable(PackageUpdater.self)
    requireSendable(PackageUpdater.Report.self)
    requireSendable(PackageResolver.self)
    requireSendable(PackageSchemeHandler.self)
    requireSendable(PackageWriter.self)
    requireSendable(PackageFaults.self)
    requireSendable(PackagePlatform.self)
    requireSendable(Ed25519Signer.self)
    requireSendable(Ed25519Verifier.self)
    requireSendable(ZlibCompressor.self)
}
