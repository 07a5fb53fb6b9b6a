import Foundation
import HybridCore
@testable import HybridWK
import Testing
import WebKit

// The WKWebView adapter's data-plane translations, run on Linux against the WebKit stand-in.

@Suite("Media-capture requests become the contract's permission kinds and origins")
@MainActor
struct WKPermissionTranslationTests {
    @Test func captureTypesMapToKinds() {
        #expect(WKNavigationProxy.kinds(.camera) == [.camera])
        #expect(WKNavigationProxy.kinds(.microphone) == [.microphone])
        #expect(WKNavigationProxy.kinds(.cameraAndMicrophone) == [.camera, .microphone])
    }

    @Test func securityOriginsKeepTheirPortAndDefaultPortZero() {
        #expect(WKNavigationProxy.origin(scheme: "https", host: "M.Example.com", port: 0).description == "https://m.example.com")
        #expect(WKNavigationProxy.origin(scheme: "https", host: "m.example.com", port: 8443).description == "https://m.example.com:8443")
        #expect(WKNavigationProxy.origin(scheme: "hybrid-app", host: "app", port: 0).description == "hybrid-app://app")
    }

    @Test func downloadsAndPromptsAreClaimedAndTheIOSPickerIsExplained() {
        #expect(WKDriver.capabilities.contains([.downloads, .permissionPrompts]))
        #expect(!WKDriver.capabilities.contains(.fileChoosers))
        #expect(WKDriver.limitations[.fileChoosers]?.contains("iOS") == true)
        #expect(WKDriver.limitations[.downloads] == nil)
    }
}
