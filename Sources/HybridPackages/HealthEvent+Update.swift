import Foundation
import HybridHealth

extension HealthEvent {
    /// The outcome of an offline-package update as an event (``PackageUpdater/health`` records it
    /// for every update; an app that updates otherwise records it itself): how the new version was fetched (`none` when the repository had
    /// nothing newer, `patch` when byte-level patches were applied, `files` when some files were
    /// reused from the store, `full` otherwise), the bytes fetched (manifest included) and how long
    /// it took. The context is the package's release after the update.
    ///
    /// ```swift
    /// let updater = PackageUpdater(repository: repo, installer: installer, health: recorder, healthEngine: "webkit")
    /// let report = try await updater.update("shop")   // recorded
    /// ```
    public init(update report: PackageUpdater.Report, engine: String, time: Date = Date()) {
        let way = if report.upToDate || report.outcome == nil {
            "none"
        } else if report.patchesApplied > 0 {
            "patch"
        } else if report.blobsReused > 0 {
            "files"
        } else {
            "full"
        }
        let version: Int? = switch report.outcome {
        case .installed(let version, _)?, .alreadyActive(let version)?: version
        case nil: report.previousVersion
        }
        self.init(.update(way: way, bytes: Int(report.totalBytes), milliseconds: report.duration * 1000), time: time,
                  context: HealthContext(packageID: report.id, packageVersion: version, engine: engine))
    }
}
