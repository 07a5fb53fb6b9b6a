import Foundation

/// The WebDriver commands HybridKit answers, decoded from an HTTP method and path (W3C
/// WebDriver §6.5, "Endpoints"; `displayed` is Selenium's and chromedriver's extension).
enum WebDriverCommand: Equatable {
    case newSession, status
    case deleteSession, getTimeouts, setTimeouts
    case navigateTo, currentURL, back, forward, refresh, title, pageSource
    case windowHandle, closeWindow, switchToWindow, windowHandles, newWindow
    case switchToFrame, switchToParentFrame
    case getWindowRect, setWindowRect, maximize, minimize, fullscreen
    case findElement, findElements, activeElement
    case findElementFrom(String), findElementsFrom(String)
    case elementSelected(String), elementAttribute(String, String), elementProperty(String, String)
    case elementCSS(String, String), elementText(String), elementTagName(String), elementRect(String)
    case elementEnabled(String), elementDisplayed(String)
    case elementClick(String), elementClear(String), elementSendKeys(String), elementScreenshot(String)
    case executeSync, executeAsync
    case allCookies, namedCookie(String), addCookie, deleteCookie(String), deleteAllCookies
    case performActions, releaseActions
    case dismissAlert, acceptAlert, alertText, sendAlertText
    case screenshot
    /// A command of the standard HybridKit does not implement (shadow roots, print, accessibility):
    /// answered with `unsupported operation`, naming it.
    case unsupported(String)

    /// The command, the session id when the path has one; `unknown command` for a path the
    /// standard does not have, `unknown method` for a known path with another method.
    static func route(method: String, segments: [String]) -> Result<(WebDriverCommand, session: String?), WebDriverError> {
        let method = method.uppercased()
        if segments == ["status"] { return method == "GET" ? .success((.status, nil)) : .failure(unknownMethod(method, segments)) }
        if segments == ["session"] { return method == "POST" ? .success((.newSession, nil)) : .failure(unknownMethod(method, segments)) }
        guard segments.count >= 2, segments[0] == "session" else {
            return .failure(WebDriverError(.unknownCommand, "no command at /\(segments.joined(separator: "/"))"))
        }
        let session = segments[1]
        let rest = Array(segments.dropFirst(2))
        let table = commands(for: rest)
        guard !table.isEmpty else {
            return .failure(WebDriverError(.unknownCommand, "no command at /\(segments.joined(separator: "/"))"))
        }
        guard let command = table[method] else { return .failure(unknownMethod(method, segments)) }
        return .success((command, session))
    }

    private static func unknownMethod(_ method: String, _ segments: [String]) -> WebDriverError {
        WebDriverError(.unknownMethod, "\(method) is not a method of /\(segments.joined(separator: "/"))")
    }

    /// Every method the path after `/session/{id}` answers.
    private static func commands(for path: [String]) -> [String: WebDriverCommand] {
        switch path {
        case []: return ["DELETE": .deleteSession]
        case ["timeouts"]: return ["GET": .getTimeouts, "POST": .setTimeouts]
        case ["url"]: return ["POST": .navigateTo, "GET": .currentURL]
        case ["back"]: return ["POST": .back]
        case ["forward"]: return ["POST": .forward]
        case ["refresh"]: return ["POST": .refresh]
        case ["title"]: return ["GET": .title]
        case ["source"]: return ["GET": .pageSource]
        case ["window"]: return ["GET": .windowHandle, "DELETE": .closeWindow, "POST": .switchToWindow]
        case ["window", "handles"]: return ["GET": .windowHandles]
        case ["window", "new"]: return ["POST": .newWindow]
        case ["window", "rect"]: return ["GET": .getWindowRect, "POST": .setWindowRect]
        case ["window", "maximize"]: return ["POST": .maximize]
        case ["window", "minimize"]: return ["POST": .minimize]
        case ["window", "fullscreen"]: return ["POST": .fullscreen]
        case ["frame"]: return ["POST": .switchToFrame]
        case ["frame", "parent"]: return ["POST": .switchToParentFrame]
        case ["element"]: return ["POST": .findElement]
        case ["elements"]: return ["POST": .findElements]
        case ["element", "active"]: return ["GET": .activeElement]
        case ["execute", "sync"]: return ["POST": .executeSync]
        case ["execute", "async"]: return ["POST": .executeAsync]
        case ["cookie"]: return ["GET": .allCookies, "POST": .addCookie, "DELETE": .deleteAllCookies]
        case ["actions"]: return ["POST": .performActions, "DELETE": .releaseActions]
        case ["alert", "dismiss"]: return ["POST": .dismissAlert]
        case ["alert", "accept"]: return ["POST": .acceptAlert]
        case ["alert", "text"]: return ["GET": .alertText, "POST": .sendAlertText]
        case ["screenshot"]: return ["GET": .screenshot]
        case ["print"]: return ["POST": .unsupported("print page")]
        default: break
        }
        if path.count == 3, path[0] == "shadow", path[2] == "element" || path[2] == "elements" {
            return ["POST": .unsupported("find element from shadow root")]
        }
        if path.count == 2, path[0] == "cookie" { return ["GET": .namedCookie(path[1]), "DELETE": .deleteCookie(path[1])] }
        guard path.count >= 3, path[0] == "element" else { return [:] }
        let id = path[1]
        if path.count == 4 {
            let name = path[3]
            switch path[2] {
            case "attribute": return ["GET": .elementAttribute(id, name)]
            case "property": return ["GET": .elementProperty(id, name)]
            case "css": return ["GET": .elementCSS(id, name)]
            default: return [:]
            }
        }
        guard path.count == 3 else { return [:] }
        switch path[2] {
        case "element": return ["POST": .findElementFrom(id)]
        case "elements": return ["POST": .findElementsFrom(id)]
        case "selected": return ["GET": .elementSelected(id)]
        case "text": return ["GET": .elementText(id)]
        case "name": return ["GET": .elementTagName(id)]
        case "rect": return ["GET": .elementRect(id)]
        case "enabled": return ["GET": .elementEnabled(id)]
        case "displayed": return ["GET": .elementDisplayed(id)]
        case "click": return ["POST": .elementClick(id)]
        case "clear": return ["POST": .elementClear(id)]
        case "value": return ["POST": .elementSendKeys(id)]
        case "screenshot": return ["GET": .elementScreenshot(id)]
        case "shadow": return ["GET": .unsupported("get element shadow root")]
        case "computedrole": return ["GET": .unsupported("get computed role")]
        case "computedlabel": return ["GET": .unsupported("get computed label")]
        default: return [:]
        }
    }
}
