import Foundation

/// The JavaScript HybridKit ships as package resources (`Resources/NAME.js`, assembled from
/// `runtime/src`): the runtime and the bridge transport in HybridBridge's bundle; the request
/// proxy's, the prefetcher's and the page capture's in HybridCore's.
package enum ScriptResource {
    /// The source of `NAME.js` in `bundle`, or, when the bundle lacks it, a script that says so in
    /// the page's console (a page without the script fails visibly, never silently).
    package static func source(_ name: String, in bundle: Bundle) -> String {
        guard let url = bundle.url(forResource: name, withExtension: "js"),
              let source = try? String(contentsOf: url, encoding: .utf8)
        else { return "console.error('HybridKit: \(name).js is missing from the bundle');" }
        return source
    }
}
