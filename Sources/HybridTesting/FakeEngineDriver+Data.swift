import Foundation
import HybridCore

/// The data plane played by a test: permission requests, downloads and file pickers as an engine
/// reports them, each awaiting the contract's one answer.
extension FakeEngineDriver {
    /// Reports a permission request as an engine with ``EngineCapabilities/permissionPrompts`` does.
    /// - Returns: The contract's decision (deny once the view is closed or dead).
    public func requestPermission(_ kinds: Set<PermissionKind>, from origin: String, isMainFrame: Bool? = true) async -> PermissionDecision {
        guard let host, let url = URL(string: origin), let parsed = BridgeOrigin(url: url) else { return .deny }
        return await withCheckedContinuation { continuation in
            host.permissionRequested(PermissionRequest(kinds: kinds, origin: parsed, isMainFrame: isMainFrame)) { continuation.resume(returning: $0) }
        }
    }

    /// Reports a download as an engine does.
    /// - Returns: The contract's decision (cancel once the view is closed).
    public func startDownload(_ download: Download) async -> DownloadDecision {
        guard let host else { return .cancel }
        return await withCheckedContinuation { continuation in
            host.downloadStarted(download) { continuation.resume(returning: $0) }
        }
    }

    /// Reports a download's progress, end or failure.
    public func reportDownload(_ id: String, _ event: DownloadEvent) { host?.downloadChanged(id, event) }

    /// Reports an opened file picker.
    /// - Returns: The files the contract answered with (none once the view is closed or dead).
    public func openFileChooser(_ request: FileChooserRequest) async -> [URL] {
        guard let host else { return [] }
        return await withCheckedContinuation { continuation in
            host.fileChooserOpened(request) { continuation.resume(returning: $0) }
        }
    }
}
