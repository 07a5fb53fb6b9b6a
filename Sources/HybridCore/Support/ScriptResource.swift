import Foundation

/// The JavaScript HybridCore ships as package resources (`Resources/NAME.js`): the runtime, the
/// bridge transport, the request proxy's and the prefetcher's page scripts.
enum ScriptResource {
    /// The source of `NAME.js`, or, when the bundle lacks it, a script that says so in the
    /// page's console (a page without the script fails visibly, never silently).
    static func source(_ name: String) -> String {
        guard let url = Bundle.module.url(forResource: name, withExtension: "js"),
              let source = try? String(contentsOf: url, encoding: .utf8)
        else { return "console.error('HybridKit: \(name).js is missing from the bundle');" }
        return source
    }
}
