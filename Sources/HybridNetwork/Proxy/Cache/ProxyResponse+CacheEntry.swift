import Foundation
import HybridBase

extension ProxyResponse {
    /// A response read back from a stored entry: the entry's status (with its standard reason
    /// phrase), headers and body, at the entry's URL, not redirected, of type `basic`.
    public init(stored entry: HTTPCacheEntry) {
        self.init(status: entry.status, statusText: ProxyHeaders.reasonPhrase(entry.status), url: entry.url, redirected: false,
                  headers: entry.headers.map { [$0.name, $0.value] }, body: entry.body)
    }

    /// This response as an entry to store under `url` and `identity` (`Set-Cookie` is never
    /// stored); `nil` when its body does not decode.
    public func entry(url: String, identity: String, requestTime: Date, responseTime: Date) -> HTTPCacheEntry? {
        guard let body = bodyData else { return nil }
        return HTTPCacheEntry(url: url, identity: identity, varying: [:], status: status,
                              headers: headers.compactMap { $0.count == 2 ? HTTPCacheEntry.Field($0[0], $0[1]) : nil },
                              body: body, requestTime: requestTime, responseTime: responseTime)
    }
}
