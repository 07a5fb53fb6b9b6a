import Foundation
import HybridCore

/// A WebDriver error as the W3C protocol sends it: one of the standard's error codes, the HTTP
/// status it goes with, and a message (W3C WebDriver §6.6, "Errors").
///
/// This is the protocol's wire value, the way ``BridgeFailure`` codes are the bridge's: a client
/// (Selenium, WebdriverIO) switches on ``Code-swift.enum``, never on the message.
public struct WebDriverError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The W3C error codes; the raw value is the code's spelling on the wire.
    public enum Code: String, Sendable, CaseIterable {
        /// The click would land on another element that covers the target.
        case elementClickIntercepted = "element click intercepted"
        /// The element cannot be interacted with (not displayed).
        case elementNotInteractable = "element not interactable"
        /// An argument is missing or of the wrong type, or an option is unknown.
        case invalidArgument = "invalid argument"
        /// A cookie's domain is not the current page's.
        case invalidCookieDomain = "invalid cookie domain"
        /// The element is disabled or read-only for this command.
        case invalidElementState = "invalid element state"
        /// The selector does not parse or selects something that is not an element.
        case invalidSelector = "invalid selector"
        /// No session has this id (it ended, or never was).
        case invalidSessionID = "invalid session id"
        /// The page's script threw.
        case javaScriptError = "javascript error"
        /// No dialog is open.
        case noSuchAlert = "no such alert"
        /// No cookie of that name is visible to the page.
        case noSuchCookie = "no such cookie"
        /// No element matched (within the implicit wait), or the id was never issued.
        case noSuchElement = "no such element"
        /// The frame is gone or cannot be reached.
        case noSuchFrame = "no such frame"
        /// No window has that handle.
        case noSuchWindow = "no such window"
        /// An asynchronous script did not call back within the script timeout.
        case scriptTimeout = "script timeout"
        /// The session could not be made (capabilities, or the app did not allow automation).
        case sessionNotCreated = "session not created"
        /// The element was issued for a document that is gone, or was removed from it.
        case staleElementReference = "stale element reference"
        /// A navigation did not finish within the page-load timeout.
        case timeout = "timeout"
        /// The engine refused the cookie.
        case unableToSetCookie = "unable to set cookie"
        /// The engine could not render the page.
        case unableToCaptureScreen = "unable to capture screen"
        /// A dialog is open and the session's prompt behaviour answered it; the command did not run.
        case unexpectedAlertOpen = "unexpected alert open"
        /// No command has this path.
        case unknownCommand = "unknown command"
        /// Anything else.
        case unknownError = "unknown error"
        /// The path is known, the HTTP method is not.
        case unknownMethod = "unknown method"
        /// The command exists but HybridKit cannot do it on this view (docs/testing.md lists them).
        case unsupportedOperation = "unsupported operation"

        /// The HTTP status the standard gives this error.
        public var httpStatus: Int {
            switch self {
            case .elementClickIntercepted, .elementNotInteractable, .invalidArgument, .invalidCookieDomain,
                 .invalidElementState, .invalidSelector: 400
            case .invalidSessionID, .noSuchAlert, .noSuchCookie, .noSuchElement, .noSuchFrame, .noSuchWindow,
                 .staleElementReference, .unknownCommand: 404
            case .unknownMethod: 405
            case .javaScriptError, .scriptTimeout, .sessionNotCreated, .timeout, .unableToSetCookie, .unableToCaptureScreen,
                 .unexpectedAlertOpen, .unknownError, .unsupportedOperation: 500
            }
        }
    }

    /// The standard's error code.
    public var code: Code
    /// What went wrong, for the test's author.
    public var message: String
    /// Extra data the standard defines for some errors (`unexpected alert open`: the dialog's `text`).
    public var data: [String: JSONValue]?

    /// An error with `code` and `message`.
    public init(_ code: Code, _ message: String, data: [String: JSONValue]? = nil) {
        self.code = code
        self.message = message
        self.data = data
    }

    /// `code: message`.
    public var description: String { "\(code.rawValue): \(message)" }

    /// The error's body: `{"value": {"error", "message", "stacktrace"[, "data"]}}`.
    var body: JSONValue {
        var value: [String: JSONValue] = ["error": .string(code.rawValue), "message": .string(message), "stacktrace": ""]
        if let data { value["data"] = .object(data) }
        return ["value": .object(value)]
    }

    /// A WebDriver error for any error a command met: itself, or `unknown error` with its text.
    static func wrapping(_ error: any Error) -> WebDriverError {
        if let error = error as? WebDriverError { return error }
        if case .engine(.javaScript(let message))? = error as? HybridError { return WebDriverError(.javaScriptError, message) }
        return WebDriverError(.unknownError, "\(error)")
    }
}
