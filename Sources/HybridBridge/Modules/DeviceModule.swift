import Foundation
import HybridBase

/// The `device` module: where the page is running.
///
/// - `info` → ``DeviceInfo``
public struct DeviceModule: BridgeModule {
    /// The name pages call the module by (`hybrid.call('device', …)`).
    public let name = "device"
    /// The origins whose pages may ask (only those the app lists).
    public let allowedOrigins: [OriginPattern]
    private let appName: String
    private let appVersion: String

    /// - Parameters:
    ///   - appName: The host app's name (default: the process name).
    ///   - appVersion: The host app's version (default: the main bundle's short version, or `0`).
    ///   - allowedOrigins: Who may ask. No default: like every built-in module, it answers only
    ///     the origins the app lists (an app version and locale still tell a foreign page who
    ///     you are).
    public init(appName: String? = nil, appVersion: String? = nil, allowedOrigins: [OriginPattern]) {
        self.appName = appName ?? ProcessInfo.processInfo.processName
        self.appVersion = appVersion
            ?? (Bundle.main.object(forInfoDictionaryKey: "CFBundleShortVersionString") as? String) ?? "0"
        self.allowedOrigins = allowedOrigins
    }

    /// `info`, answered at once.
    public var actions: [BridgeAction] {
        let info = DeviceInfo(appName: appName, appVersion: appVersion)
        return [.immediate("info") { (_: Empty, _) in info }]
    }
}

/// What `device.info` returns.
public struct DeviceInfo: Codable, Sendable, Equatable {
    /// `linux`, `macos`, `ios`, `windows`, `android` or `unknown`.
    public var platform: String
    /// The OS name and version as the OS reports it.
    public var osVersion: String
    /// A BCP 47 tag such as `en-US`.
    public var locale: String
    /// Preferred languages, most preferred first.
    public var languages: [String]
    /// The host app's name and version.
    public var appName: String
    /// The host app's version.
    public var appVersion: String

    /// This device, for an app of that name and version.
    public init(appName: String, appVersion: String) {
        #if os(Linux)
        platform = "linux"
        #elseif os(macOS)
        platform = "macos"
        #elseif os(iOS)
        platform = "ios"
        #elseif os(Windows)
        platform = "windows"
        #elseif os(Android)
        platform = "android"
        #else
        platform = "unknown"
        #endif
        let version = ProcessInfo.processInfo.operatingSystemVersion
        osVersion = "\(version.majorVersion).\(version.minorVersion).\(version.patchVersion)"
        locale = Self.bcp47(Locale.current.identifier)
        languages = Locale.preferredLanguages.map(Self.bcp47)
        self.appName = appName
        self.appVersion = appVersion
    }

    /// `en_US.UTF-8` / `en_US` → `en-US`; POSIX's `C` → `en-US`.
    static func bcp47(_ identifier: String) -> String {
        let base = identifier.split(separator: ".").first.map(String.init) ?? identifier
        if base.isEmpty || base == "C" || base == "POSIX" || base == "en_US_POSIX" { return "en-US" }
        return base.replacingOccurrences(of: "_", with: "-")
    }
}
