import Foundation
@testable import HybridBridge
@testable import HybridCore
@testable import HybridNetwork
@testable import HybridBase
@testable import HybridEngine
@testable import HybridHTTP
@testable import HybridHealth
@testable import HybridPackages
import Testing

@Suite("NavigationPolicy")
struct NavigationPolicyTests {
    func action(_ url: String, mainFrame: Bool = true, newWindow: Bool = false, method: String = "GET",
                headers: [(name: String, value: String)] = []) -> NavigationAction {
        NavigationAction(request: EngineRequest(url: URL(string: url)!, method: method, headers: headers), type: .linkActivated,
                         isMainFrame: mainFrame, targetsNewWindow: newWindow)
    }

    var tokenPolicy: NavigationPolicy {
        var policy = NavigationPolicy()
        policy.parameterRules = [.init(hosts: ["*.example.com"], query: [("token", "a b&c=d+é"), ("v", "2")],
                                       headers: ["X-Token": "t1"])]
        return policy
    }

    @Test func configuredSchemesAreIntercepted() {
        let policy = NavigationPolicy(interceptedSchemes: ["MyApp"])
        #expect(policy.decide(action("myapp://share/open?x=1")) == .intercept(URL(string: "myapp://share/open?x=1")!))
    }

    @Test func systemPaymentAndStoreLinksGoToTheApp() {
        let policy = NavigationPolicy()
        for url in ["tel:+8610086", "mailto:a@b.c", "sms:1", "weixin://wap/pay?x", "alipays://platformapi", "alipay://x",
                    "itms-apps://apps.apple.com/app/id1", "https://apps.apple.com/cn/app/id1"] {
            #expect(policy.decide(action(url)) == .external(URL(string: url)!), "\(url)")
        }
        // Subframes and new windows too: a payment iframe is the common case.
        #expect(policy.decide(action("weixin://pay", mainFrame: false)) == .external(URL(string: "weixin://pay")!))
        #expect(policy.decide(action("tel:1", newWindow: true)) == .external(URL(string: "tel:1")!))
    }

    @Test func unknownSchemesAreBlockedUnlessKnown() {
        let policy = NavigationPolicy()
        #expect(policy.decide(action("evil://x")) == .block(URL(string: "evil://x")!, reason: "unknown scheme 'evil'"))
        #expect(policy.decide(action("app://pkg/index.html"), knownSchemes: ["app"]) == .allow)
        #expect(policy.decide(action("about:blank")) == .allow)
        #expect(policy.decide(action("data:text/html,x")) == .allow)
        var open = NavigationPolicy()
        open.blocksUnknownSchemes = false
        #expect(open.decide(action("evil://x")) == .allow)
    }

    @Test func tokensAreEncodedAndAddedToConfiguredHostsOnly() {
        let decision = tokenPolicy.decide(action("https://m.example.com/a?x=1#frag"))
        #expect(decision == .redirect(to: URL(string: "https://m.example.com/a?x=1&token=a%20b%26c%3Dd%2B%C3%A9&v=2#frag")!,
                                      headers: ["X-Token": "t1"]))
        #expect(tokenPolicy.decide(action("https://example.com/")) != .allow)
        // Look-alikes, other hosts, http (cleartext) never get the token.
        for url in ["https://example.com.evil.com/", "https://evilexample.com/", "http://m.example.com/", "https://other.org/?token=x"] {
            #expect(tokenPolicy.decide(action(url)) == .allow, "\(url)")
        }
    }

    @Test func tokensAreNeverAddedTwice() {
        let once = URL(string: "https://m.example.com/?token=mine&v=1")!
        // Parameters present: only the header is missing.
        #expect(tokenPolicy.decide(action(once.absoluteString)) == .redirect(to: once, headers: ["X-Token": "t1"]))
        // Header present too: nothing to do.
        #expect(tokenPolicy.decide(action(once.absoluteString, headers: [("x-token", "t1")])) == .allow)
        // The policy's own redirect target is let through even when the engine hides the header.
        #expect(tokenPolicy.decide(action(once.absoluteString), redirectedURL: once) == .allow)
        let added = NavigationPolicy.appending([.init(name: "token", value: "1")], to: URL(string: "https://h/?token=0")!)
        #expect(added.absoluteString == "https://h/?token=0")
    }

    @Test func rewritesOnlyTopLevelGETNavigations() {
        #expect(tokenPolicy.decide(action("https://m.example.com/", mainFrame: false)) == .allow)
        #expect(tokenPolicy.decide(action("https://m.example.com/", newWindow: true)) == .allow)
        #expect(tokenPolicy.decide(action("https://m.example.com/", method: "POST")) == .allow)
    }

    @Test func paymentHostsGetTheRequiredReferer() {
        var policy = NavigationPolicy()
        policy.paymentReferers = [.init(hosts: ["wx.tenpay.com"], referer: "https://m.example.com/")]
        let pay = "https://wx.tenpay.com/cgi-bin/mmpayweb-bin/checkmweb?prepay_id=1"
        #expect(policy.decide(action(pay)) == .redirect(to: URL(string: pay)!, headers: ["Referer": "https://m.example.com/"]))
        #expect(policy.decide(action(pay, headers: [("Referer", "https://m.example.com/")])) == .allow)
        #expect(policy.decide(action("https://tenpay.com/")) == .allow)
    }
}
