import Foundation
import HybridCore

/// What `hybrid run TARGET` opens: a directory served through a custom scheme, an installed
/// offline package served through its custom scheme, or a URL from the network.
struct RunTarget: Sendable {
    /// The custom scheme a directory is served on (`hybrid-app://local/`).
    static let localScheme = "hybrid-app"
    /// Where an engine that cannot navigate to a custom scheme (Blink) serves a directory: at an
    /// https origin, through its HTTP interception (a reserved TLD, never a real site).
    static let httpsLocalOrigin = "https://local.hybrid-run.invalid"
    /// The custom scheme an installed package is served on (`app://m.example.com/app/`).
    static let packageScheme = "app"

    enum Kind: Sendable, Equatable {
        case directory(URL)
        case package(id: String)
        case url
    }

    var kind: Kind
    /// The URL to open (and the one remote config decides for).
    var url: URL
    /// The URL to open instead on an engine without ``EngineCapabilities/customSchemeNavigation``
    /// (a directory's https stand-in origin, a package's real origin).
    var httpsURL: URL?
    /// Custom scheme handlers the target needs (not the package's: its ``PackageBinding`` adds that).
    var schemeHandlers: [String: any URLSchemeHandler] = [:]
    /// The package binding for an installed package id.
    var package: PackageBinding?
    /// Origins that get the bridge modules.
    var origins: [OriginPattern] = []

    /// Resolves `target`: an existing directory, an absolute URL, or else a package id in `store`.
    /// - Throws: ``RunError`` naming what TARGET could be and what is missing.
    static func resolve(_ target: String, entry: String, store: URL?) throws -> RunTarget {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: target, isDirectory: &isDirectory), isDirectory.boolValue {
            let root = URL(fileURLWithPath: target, isDirectory: true)
            let handler = DirectorySchemeHandler(root: root)
            return RunTarget(
                kind: .directory(root),
                url: URL(string: "\(localScheme)://local/")!.appendingPathComponent(entry),
                httpsURL: URL(string: "\(httpsLocalOrigin)/")!.appendingPathComponent(entry),
                schemeHandlers: [localScheme: handler, "https": handler],
                origins: [OriginPattern(stringLiteral: "\(localScheme)://local"), OriginPattern(stringLiteral: httpsLocalOrigin)])
        }
        if let url = URL(string: target), let scheme = url.scheme, scheme.count > 1, url.host != nil || scheme == "about" || scheme == "data" {
            return RunTarget(kind: .url, url: url, origins: BridgeOrigin(url: url).map { [.exact($0)] } ?? [])
        }
        guard PackageManifest.isValidID(target) else {
            throw RunError("TARGET '\(target)' is neither a directory, an absolute URL, nor a package id")
        }
        return try package(target, store: store)
    }

    /// An installed package: its active version served on `app://HOST/PATH/` (the manifest's
    /// origin with the custom scheme), with the network as fallback for what it lacks.
    private static func package(_ id: String, store: URL?) throws -> RunTarget {
        guard let store else {
            throw RunError("TARGET '\(id)' is not a directory or URL; as a package id it needs --store DIR (or HYBRID_STORE), the store 'hybrid update' installs into")
        }
        let packages = PackageStore(root: store)
        guard packages.activeRecord(id) != nil else {
            let installed = packages.packageIDs()
            throw RunError("no package '\(id)' is installed in \(store.path)"
                           + (installed.isEmpty ? " (it is empty: install with hybrid update --repo URL --key PUB --store \(store.path))"
                                                : " (installed: \(installed.joined(separator: ", ")))"))
        }
        let active = try packages.activePackage(id)
        guard var components = URLComponents(string: active.manifest.origin), components.host != nil else {
            throw RunError("package '\(id)' has an origin that is not a URL: \(active.manifest.origin)")
        }
        let origin = "\(packageScheme)://\(components.host ?? "")" + (components.port.map { ":\($0)" } ?? "")
        components.scheme = packageScheme
        guard let base = components.url else { throw RunError("package '\(id)': cannot map \(active.manifest.origin) to \(packageScheme)://") }
        let url = base.appendingPathComponent(active.manifest.entry.value)
        // Where an engine that cannot navigate to a custom scheme (Blink) opens it: the real origin,
        // which the binding then serves (HybridWebViewConfiguration.fitted(to:)).
        let httpsURL = active.manifest.originURL?.appendingPathComponent(active.manifest.entry.value)
        // Serving needs no key: the version was verified when it was installed; nothing is installed here.
        let installer = PackageInstaller(store: packages, platform: .native, verifier: RefusingVerifier())
        var origins = [OriginPattern(stringLiteral: origin)]
        if let real = active.manifest.originURL.flatMap(BridgeOrigin.init(url:)) { origins.append(.exact(real)) }
        return RunTarget(kind: .package(id: id), url: url, httpsURL: httpsURL,
                         package: PackageBinding(installer: installer, id: id, scheme: packageScheme), origins: origins)
    }

    /// The URL to open on an engine with `capabilities`.
    func url(on capabilities: EngineCapabilities) -> URL {
        capabilities.contains(.customSchemeNavigation) ? url : (httpsURL ?? url)
    }
}

/// The verifier of an installer that only serves and confirms versions: it accepts no signature,
/// so nothing can be installed through it.
struct RefusingVerifier: SignatureVerifier {
    func isValidSignature(_ signature: Data, of message: Data) -> Bool { false }
}

/// A `hybrid run` failure with a message for the page author.
struct RunError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
