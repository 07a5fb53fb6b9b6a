// Linux-only stand-in for Apple's WebKit (docs/apple.md): the module `import WebKit` finds when
// HybridWK and HybridUIKit are checked on Linux. It declares exactly the symbols the adapters use,
// as Apple declares them for Swift (names, labels, optionality, `@MainActor`, `@Sendable`);
// bodies are `surfaceOnly()`: compiled, never run.
//
// Like Apple's, it re-exports Foundation. Apple's WebKit also re-exports UIKit on iOS (AppKit on
// macOS); this one does not, so a HybridWK file that names a UIKit type must import UIKit itself,
// as it must anyway to compile for macOS.
@_exported import FoundationAppleOnly

/// The body of every stand-in declaration: the stand-ins are compiled, never run.
func surfaceOnly(_ function: StaticString = #function) -> Never {
    fatalError("\(function) is a declaration of Apple's SDK for type-checking; it never runs")
}
