import Foundation

enum DoctorCommand: HybridCommand {
    static let name = "doctor"
    static let summary = "Check the engine, libraries and display; say what is missing and how to install it"
    static let usage = """
        USAGE: hybrid doctor

        Prints the engine and library versions, whether a display is available, and for
        anything missing, the command that installs it. Exits 1 when something required is missing.
        """

    static func run(_ arguments: Arguments) throws -> Int32 {
        var arguments = arguments
        _ = try arguments.finish(maxPositionals: 0)
        print("hybrid doctor: not yet implemented")
        return 0
    }
}
