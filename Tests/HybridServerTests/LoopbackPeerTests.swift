import Foundation
import HybridFixtures
@testable import HybridServer
import Testing

/// Who is on the other end of a loopback connection (`ServerRequest.peerUserID`): what lets the
/// WebDriver endpoint refuse another local user's process, found in the kernel's socket table.
@Suite struct LoopbackPeerTests {
    @Test func theClientSocketsRowGivesItsUser() {
        let table = """
              sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
               0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1 1 0000000000000000 100 0 0 10 0
               1: 0100007F:D431 0100007F:1F90 01 00000000:00000000 00:00000000 00000000  1000        0 2 1 0000000000000000 20 4 30 10 -1
               2: 0100007F:1F90 0100007F:D431 01 00000000:00000000 00:00000000 00000000     0        0 3 1 0000000000000000 20 4 30 10 -1
            """
        #expect(LoopbackPeer.userID(inTable: table, clientPort: 0xD431, serverPort: 0x1F90) == 1000)
        #expect(LoopbackPeer.userID(inTable: table, clientPort: 0x1F90, serverPort: 0xD431) == 0)   // the server's own end
        #expect(LoopbackPeer.userID(inTable: table, clientPort: 1234, serverPort: 0x1F90) == nil)
        #expect(LoopbackPeer.userID(inTable: "garbage\n1: x y z", clientPort: 1, serverPort: 2) == nil)
        #expect(LoopbackPeer.userID(inTable: "", clientPort: 1, serverPort: 2) == nil)
    }

    @Test func aRequestKnowsTheUserThatSentIt() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/who") { request in .text(request.peerUserID.map { String($0) } ?? "unknown") }
        #expect(try await HTTPClient().send(server.url("/who")).text == String(getuid()))
        // Another user's process (root can run one as `nobody`, uid 65534): the server sees that user.
        guard getuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/sbin/runuser") else {
            Issue.record("not root or no runuser: another user's client cannot be started here")
            return
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/sbin/runuser")
        process.arguments = ["-u", "nobody", "--", "/usr/bin/python3", "-c",
                             "import urllib.request,sys; sys.stdout.write(urllib.request.urlopen(sys.argv[1]).read().decode())",
                             server.url("/who").absoluteString]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(text == "65534")
    }
}
