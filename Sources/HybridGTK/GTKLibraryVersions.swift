import CWebKitGTK

/// The versions of the C libraries this engine runs on, as loaded at run time (for a
/// diagnostics screen or `hybrid doctor`), without an app importing the C modules.
public struct GTKLibraryVersions: Sendable, Equatable {
    /// WebKitGTK, the engine (`2.50.6`).
    public var webKit: String
    /// GTK, the toolkit its views live in (`4.8.3`).
    public var gtk: String
    /// libsoup, the HTTP library of WebKitGTK and `HybridServer` (`3.2.2`).
    public var soup: String

    /// The libraries loaded in this process.
    public static var loaded: GTKLibraryVersions {
        GTKLibraryVersions(
            webKit: "\(webkit_get_major_version()).\(webkit_get_minor_version()).\(webkit_get_micro_version())",
            gtk: "\(gtk_get_major_version()).\(gtk_get_minor_version()).\(gtk_get_micro_version())",
            soup: "\(soup_get_major_version()).\(soup_get_minor_version()).\(soup_get_micro_version())")
    }
}
