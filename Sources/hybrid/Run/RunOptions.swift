import Foundation
import HybridCore

/// What `hybrid run` was asked to do.
struct RunOptions: Sendable {
    enum Until: String, Sendable, CaseIterable { case load, done }
    /// The engine the page opens on (`--engine`) unless `--config` picks another.
    enum Engine: String, Sendable, CaseIterable { case webkit, blink }
    var target: String
    var engine: Engine = .webkit
    var entry = "index.html"
    var screenshot: URL?
    var report: URL?
    var timeout: Double = 30
    var allow: [String] = []
    var verbose = false
    var until: Until = .load
    var viewport = ViewportSize(width: 1024, height: 768)
    /// Show the window shell (header bar, progress) and run until it is closed.
    var windowed = false
    /// Cookies (Netscape cookies.txt) put into the session before the page loads.
    var cookies: [Cookie] = []
    /// The package store a package-id TARGET is served from (`--store`).
    var store: URL?
    /// The repository damaged files of a package-id TARGET are fetched from again (`--repo`).
    var repository: URL?
    /// A remote-config document deciding the features for the target URL (`--config`).
    var config: RunConfigFile?
    /// Open the engine's inspector on loopback (`--inspect`): WebKit's remote inspector listing, set
    /// up before the engine starts, or Chromium's DevTools endpoint.
    var inspect = false
    /// Reload the page when a file of a directory TARGET is saved; swap style sheets in place when
    /// only CSS changed (`--watch`). The run then lasts until done, the timeout or the window closes.
    var watch = false
    /// WebKit's inspector listing, when `--inspect` set it up.
    var webKitInspector: URL?
}

/// How a run ended; the exit code follows test-runner conventions (0 ok, 1 failed, 2 timeout/crash).
struct RunOutcome: Sendable {
    var exitCode: Int32
    var summary: String
    var details: JSONValue?
    var url: String?
    var title: String?
    /// The page's timing and errors, as the container recorded them (`--report`'s `health`).
    var health: JSONValue?
    /// What launch integrity found for a package-id target (`--report`'s `integrity`).
    var integrity: JSONValue?
}
