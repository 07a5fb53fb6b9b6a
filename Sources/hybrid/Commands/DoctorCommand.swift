import Foundation
import HybridCommandLine
#if os(Linux)
import HybridGTK
#endif

/// `hybrid doctor`: what the container needs on this machine, what is there, and how to get the rest.
enum DoctorCommand: HybridCommand {
    static var table: CommandTable {
        CommandTable(
            name: "doctor", summary: "Check the engine, libraries and display; say what is missing and how to install it",
            discussion: """
                Prints the engine and library versions, whether a display is available, and for
                anything missing, the command that installs it. Exits 1 when something required is missing.
                """)
    }

    struct Check {
        var name: String
        var found: String?
        var required: Bool
        var install: String
    }

    static func run(_ arguments: ParsedArguments) throws -> Int32 {
        var checks: [Check] = []
        #if os(Linux)
        let versions = GTKLibraryVersions.loaded
        checks.append(Check(name: "WebKitGTK (engine)", found: versions.webKit, required: true,
                            install: "apt-get install libwebkitgtk-6.0-dev"))
        checks.append(Check(name: "GTK", found: versions.gtk, required: true, install: "apt-get install libgtk-4-dev"))
        checks.append(Check(name: "libsoup (HTTP)", found: versions.soup, required: true, install: "apt-get install libsoup-3.0-dev"))
        #endif
        checks.append(Check(name: "libsodium (Ed25519, SHA-256)", found: library("libsodium.so.23"), required: true, install: "apt-get install libsodium-dev"))
        checks.append(Check(name: "zlib (package compression)", found: library("libz.so.1"), required: false, install: "apt-get install zlib1g"))
        let display = ProcessInfo.processInfo.environment["WAYLAND_DISPLAY"].flatMap { $0.isEmpty ? nil : "wayland \($0)" }
            ?? ProcessInfo.processInfo.environment["DISPLAY"].flatMap { $0.isEmpty ? nil : "X11 \($0)" }
        checks.append(Check(name: "display", found: display, required: false, install: "none needed: hybrid run starts its own Xvfb; tests use xvfb-run -a"))
        checks.append(Check(name: "Xvfb (headless display)", found: executable("Xvfb"), required: display == nil, install: "apt-get install xvfb xauth"))
        checks.append(Check(name: "xvfb-run (tests)", found: executable("xvfb-run"), required: false, install: "apt-get install xvfb xauth"))
        checks.append(Check(name: "chromium (Blink engine)", found: executable("chromium"), required: false, install: "apt-get install chromium"))
        checks.append(Check(name: "nginx (static repository proof)", found: executable("nginx"), required: false, install: "apt-get install nginx"))

        var missingRequired = false
        for check in checks {
            let mark = check.found != nil ? "ok " : (check.required ? "MISSING" : "absent")
            let padded = check.name.padding(toLength: 34, withPad: " ", startingAt: 0)
            print("\(mark.padding(toLength: 8, withPad: " ", startingAt: 0)) \(padded) \(check.found ?? "→ \(check.install)")")
            if check.found == nil && check.required { missingRequired = true }
        }
        print(missingRequired ? "\nSomething required is missing: run scripts/bootstrap.sh (installs everything)." : "\nReady.")
        return missingRequired ? 1 : 0
    }

    /// The path of a program on PATH (or in the sbin directories Debian uses for daemons).
    static func executable(_ name: String) -> String? {
        let path = (ProcessInfo.processInfo.environment["PATH"] ?? "") + ":/usr/sbin:/sbin"
        for directory in path.split(separator: ":") {
            let candidate = "\(directory)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// Whether a shared library can be loaded, by its soname.
    static func library(_ soname: String) -> String? {
        guard let handle = dlopen(soname, RTLD_LAZY) else { return nil }
        dlclose(handle)
        return soname
    }
}
