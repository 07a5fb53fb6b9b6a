import Foundation
import HybridCore
import HybridServer
import HybridFixtures

/// The engine as the oracle of the request proxy: a page runs the same script twice, once
/// against paths the engine fetches itself (`/…/engine…`) and once against paths the proxy
/// carries (`/…/proxy…`, on both loopback hosts), on the same server; a test expects the two
/// results to be equal.
///
/// LoopbackServer routes match by whole-segment prefix, so `/echo/proxy` is `/echo`, `/headers/engine`
/// is `/headers`, and so on: one handler answers both.
@MainActor
struct ProxyOracle {
    let rig: ProxyRig

    /// A rig whose policy proxies `/…/proxy…` paths only; `configure` may adjust it further.
    init(_ kind: EngineKind, session: EngineSessionKind = .ephemeral, provider: (any WebEngineProvider)? = nil,
         configure: (inout ProxyPolicy) -> Void = { _ in }) throws {
        rig = try ProxyRig(kind, session: session, provider: provider) { policy in
            policy.requests = [try! ConfigURLPattern("http://127.0.0.1:*/*/proxy*"),
                               try! ConfigURLPattern("http://localhost:*/*/proxy*")]
            configure(&policy)
        }
    }

    /// The page's origin (`http://127.0.0.1:PORT`).
    var base: String { rig.url("/").absoluteString.dropLast().description }
    /// The other origin (`http://localhost:PORT`), cross-origin to the page.
    var cross: String { rig.url("/", host: "localhost").absoluteString.dropLast().description }

    /// Runs `script` with `via` = `engine`, then `via` = `proxy` (and `base`, `cross` and
    /// `arguments`), and returns both results. The proxied run must have gone through the proxy,
    /// the engine's must not have.
    /// - Parameter proxied: Whether the proxied run must reach the proxy (a request refused in the
    ///   page does not).
    func run(_ script: String, _ arguments: [String: JSONValue] = [:], proxied: Bool = true) async throws -> (engine: JSONValue, proxy: JSONValue) {
        var results: [JSONValue] = []
        for via in ["engine", "proxy"] {
            var values = arguments
            values["via"] = .string(via)
            values["base"] = .string(base)
            values["cross"] = .string(cross)
            let before = rig.recordCount
            let value = try await rig.js(script, values)
            if via == "engine" && rig.recordCount != before {
                throw HybridError.network(.internalError("the engine's run went through the proxy"))
            }
            if via == "proxy" && proxied && rig.recordCount == before {
                throw HybridError.network(.internalError("the proxy's run did not go through the proxy"))
            }
            results.append(value)
        }
        return (results[0], results[1])
    }

    func close() { rig.close() }
}
