import Foundation
import HybridCore
import HybridServer
import HybridFixtures
import Testing

/// A page that starts 200 requests at once — fetch and XHR mixed, GET and POST, answered out of
/// order by the loopback server (0–50 ms each), one in ten aborted along the way — gets every
/// answer exactly once, and each its own, through the proxy as with the engine's own networking.
///
/// Before the proxy's `URLSession` was made eagerly, one or two of the earliest requests of such a
/// burst were never answered (2 of 3 runs on WebKitGTK, 2 of 2 on Blink).
@Suite("Proxy concurrency", .serialized)
@MainActor
struct ProxyConcurrencyTests {
    /// One burst in the page: `{ missing, wrong, failed, aborted, answered }` (ids), after every
    /// request has settled or 20 s have passed.
    static let burst = """
        const jobs = [], settled = new Set();
        for (let i = 0; i < 200; i++) {
          const delay = (i * 37 + run * 11) % 51;
          const query = `run=${run}&id=${i}&delay=${delay}`;
          const url = base + path + '?' + query;
          const abortAfter = i % 10 === 3 ? (i * 7 + run) % 31 : -1;
          const post = i % 4 < 2;
          jobs.push(new Promise((resolve) => {
            const done = (outcome) => { settled.add(i); resolve(Object.assign({ i, query }, outcome)); };
            if (i % 2 === 0) {
              const controller = new AbortController();
              if (abortAfter >= 0) setTimeout(() => controller.abort(), abortAfter);
              fetch(url, { method: post ? 'POST' : 'GET', body: post ? 'body ' + i : undefined, signal: controller.signal })
                .then((r) => r.text()).then((text) => {
                  // A body that is not the echo's JSON names what arrived instead.
                  try { done({ got: JSON.parse(text).query }); } catch (e) { done({ error: e.name + ' ' + JSON.stringify(text.slice(0, 120)) }); }
                }, (e) => done({ error: e.name }));
            } else {
              const x = new XMLHttpRequest();
              x.open(post ? 'POST' : 'GET', url);
              x.responseType = 'json';
              x.onload = () => done({ got: x.response && x.response.query });
              x.onerror = () => done({ error: 'error' });
              x.ontimeout = () => done({ error: 'timeout' });
              x.onabort = () => done({ error: 'AbortError' });
              x.send(post ? 'body ' + i : null);
              if (abortAfter >= 0) setTimeout(() => x.abort(), abortAfter);
            }
          }));
        }
        const all = await Promise.race([Promise.all(jobs), new Promise((r) => setTimeout(() => r(null), 20000))]);
        const out = { missing: [], wrong: [], failed: [], aborted: [], answered: 0 };
        if (!all) {
          for (let i = 0; i < 200; i++) if (!settled.has(i)) out.missing.push(i);
          return out;
        }
        for (const o of all) {
          if (o.error === 'AbortError') {
            out.aborted.push(o.i);
          } else if (o.error) {
            out.failed.push(o.i + ':' + o.error);
          } else if (o.got !== o.query) {
            out.wrong.push(o.i + ':' + o.got);
          } else {
            out.answered++;
          }
        }
        return out;
        """

    /// The ids the burst aborts (one in ten).
    static let abortable = Set((0..<200).filter { $0 % 10 == 3 })

    @Test(arguments: EngineKind.allCases)
    func aBurstOf200RequestsIsAnsweredExactlyOnceEach(_ kind: EngineKind) async throws {
        // `/echo/proxy…` goes through the proxy, `/echo/engine…` stays with the engine: the same
        // page and server, so the engine's own networking is the oracle.
        let rig = try ProxyRig(kind) { policy in
            policy.requests = [try! ConfigURLPattern("http://127.0.0.1:*/echo/proxy*")]
        }
        defer { rig.close() }
        try await rig.open()
        let base = rig.url("/").absoluteString.dropLast().description
        let runs = Int(ProcessInfo.processInfo.environment["HYBRID_PROXY_BURST_RUNS"] ?? "") ?? 20
        for (path, count) in [("/echo/engine", 2), ("/echo/proxy", runs)] {
            for run in 0..<count {
                let before = rig.recordCount
                let out = try await rig.js(Self.burst, ["run": .number(Double(run)), "base": .string(base), "path": .string(path)])
                let context = "\(kind) \(path) run \(run)"
                #expect(out["missing"] == [], "\(context): never settled")
                #expect(out["wrong"] == [], "\(context): another request's response")
                #expect(out["failed"] == [], "\(context): failed")
                let aborted = Set(out["aborted"]?.arrayValue?.compactMap { $0.numberValue.map(Int.init) } ?? [])
                #expect(aborted.isSubset(of: Self.abortable), "\(context): aborted without being asked to")
                #expect(out["answered"]?.numberValue.map(Int.init) == 200 - aborted.count, "\(context)")
                if path == "/echo/engine" {
                    #expect(rig.recordCount == before, "\(context): the engine's requests went through the proxy")
                }
            }
        }
        // Every proxied request reached the app's hook once it was over, answered or cancelled.
        try await eventually("every proxied request recorded") { rig.recordCount >= runs * 200 - runs * Self.abortable.count }
        #expect(rig.records.value.allSatisfy { $0.failure == nil || $0.failure == "cancelled" },
                "\(Set(rig.records.value.compactMap(\.failure)))")
    }
}
