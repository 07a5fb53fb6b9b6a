import Foundation
@testable import HybridBase
@testable import HybridNetwork
import Testing

/// ``PublicSuffixList`` (libpsl here) and what is decided with it: Fetch Metadata's same-site.
@Suite("Public Suffix List")
struct PublicSuffixListTests {
    @Test func suffixesAndRegistrableDomainsAreTheLists() {
        #expect(PublicSuffixList.isAvailable)
        for suffix in ["com", "co.uk", "github.io", "localhost", "CO.UK", "co.uk."] {
            #expect(PublicSuffixList.isPublicSuffix(suffix), "\(suffix)")
        }
        for domain in ["example.com", "example.co.uk", "me.github.io"] {
            #expect(!PublicSuffixList.isPublicSuffix(domain), "\(domain)")
        }
        #expect(PublicSuffixList.registrableDomain("a.b.example.co.uk") == "example.co.uk")
        #expect(PublicSuffixList.registrableDomain("Shop.Example.COM") == "example.com")
        #expect(PublicSuffixList.registrableDomain("me.github.io") == "me.github.io")
        #expect(PublicSuffixList.registrableDomain("co.uk") == nil)
        #expect(PublicSuffixList.registrableDomain("127.0.0.1") == nil)
        #expect(PublicSuffixList.registrableDomain("[::1]") == nil)
        #expect(PublicSuffixList.registrableDomain("") == nil)
    }

    @Test func sameSiteIsOneRegistrableDomain() {
        #expect(PublicSuffixList.isSameSite("a.example.com", "b.example.com"))
        #expect(PublicSuffixList.isSameSite("example.com", "www.example.com"))
        #expect(PublicSuffixList.isSameSite("127.0.0.1", "127.0.0.1"))
        #expect(!PublicSuffixList.isSameSite("a.github.io", "b.github.io"))
        #expect(!PublicSuffixList.isSameSite("a.co.uk", "b.co.uk"))
        #expect(!PublicSuffixList.isSameSite("example.com", "example.org"))
        #expect(!PublicSuffixList.isSameSite("127.0.0.1", "127.0.0.2"))
        #expect(!PublicSuffixList.isSameSite("localhost", "a.localhost"))
    }

    @Test func fetchMetadataSaysSameSiteForOneRegistrableDomainOfOneScheme() {
        let origin = BridgeOrigin(url: URL(string: "https://app.example.com")!)!
        func site(_ url: String) -> String { ProxyFetchMetadata.site(url: URL(string: url)!, origin: origin, crossSite: false) }
        #expect(site("https://app.example.com/x") == "same-origin")
        #expect(site("https://api.example.com/x") == "same-site")
        #expect(site("https://app.example.com:8443/x") == "same-site")
        #expect(site("http://api.example.com/x") == "cross-site")
        #expect(site("https://example.org/x") == "cross-site")
        let pages = BridgeOrigin(url: URL(string: "https://me.github.io")!)!
        #expect(ProxyFetchMetadata.site(url: URL(string: "https://you.github.io/")!, origin: pages, crossSite: false) == "cross-site")
        // A hop that was cross-site keeps the request cross-site.
        #expect(ProxyFetchMetadata.site(url: URL(string: "https://app.example.com/")!, origin: origin, crossSite: true) == "cross-site")
    }
}
