import Foundation
import HybridCore

/// The page side of the element commands (`Resources/webdriver-atoms.js`), run in the page's
/// world through the engine seam's ``WebEngine/callAsync(_:arguments:in:)``.
enum WebDriverAtoms {
    /// The W3C element reference key (§12.2 "Elements").
    static let elementKey = "element-6066-11e4-a52e-4f735466cecf"

    /// The atoms' source; a missing resource is a build defect, reported on every command.
    static let source: String? = Bundle.module.url(forResource: "webdriver-atoms", withExtension: "js")
        .flatMap { try? String(contentsOf: $0, encoding: .utf8) }

    /// The async-function body for `command`: the test's `script` (for `execute`) as a function of
    /// the frame's window, then the atoms.
    static func body(script: String?) throws -> String {
        guard let source else { throw WebDriverError(.unknownError, "webdriver-atoms.js is missing from HybridWebDriver's bundle") }
        let user = script.map { "(function (__scope) { with (__scope) { return function () {\n\($0)\n}; } })" } ?? "null"
        return "const __hybridWebDriverUser = \(user);\n" + source
    }
}

/// How a script the session ran in the page came back.
enum AtomOutcome {
    /// The atom's value.
    case value(JSONValue)
    /// A dialog opened while it ran (the page is blocked until it is answered).
    case dialogOpened
}

/// Resumes a continuation once, whichever of the script, a dialog or the timeout comes first.
@MainActor
final class FirstOutcome {
    private var continuation: CheckedContinuation<AtomOutcome, any Error>?
    var onFinish: (@MainActor () -> Void)?

    init(_ continuation: CheckedContinuation<AtomOutcome, any Error>) { self.continuation = continuation }

    func resume(_ result: Result<AtomOutcome, any Error>) {
        guard let continuation else { return }
        self.continuation = nil
        onFinish?()
        onFinish = nil
        continuation.resume(with: result)
    }
}
