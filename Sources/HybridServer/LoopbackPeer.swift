import Foundation

/// Who is on the other end of a loopback TCP connection: the user owning the client's socket, as
/// the kernel lists it (`/proc/net/tcp` and `/proc/net/tcp6`: the socket whose local port is the
/// client's and whose remote port is the server's). TCP has no `SO_PEERCRED` (that is for Unix
/// sockets), so this is the way on Linux to refuse another local user's process; elsewhere, and
/// when the kernel does not list the socket (it closed), the answer is `nil`.
public enum LoopbackPeer {
    /// The uid owning the client socket of a connection from `clientPort` to `serverPort` on this
    /// machine, or `nil` when it cannot be told.
    public static func userID(clientPort: Int, serverPort: Int) -> UInt32? {
        for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
            // Read to the end: the kernel reports these files as empty (size 0) until they are read.
            guard let handle = FileHandle(forReadingAtPath: table) else { continue }
            defer { try? handle.close() }
            let text = String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
            if let uid = userID(inTable: text, clientPort: clientPort, serverPort: serverPort) { return uid }
        }
        return nil
    }

    /// The uid column of the row in `table` (the text of `/proc/net/tcp` or `tcp6`) whose local
    /// port is `clientPort` and remote port is `serverPort`; `nil` when no well-formed row matches.
    static func userID(inTable table: String, clientPort: Int, serverPort: Int) -> UInt32? {
        for line in table.split(separator: "\n").dropFirst() {
            // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode …
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count > 7, port(of: fields[1]) == clientPort, port(of: fields[2]) == serverPort else { continue }
            return UInt32(fields[7])
        }
        return nil
    }

    /// The port of an `ADDRESS:PORT` field, both in hex.
    private static func port(of field: Substring) -> Int? {
        guard let colon = field.lastIndex(of: ":") else { return nil }
        return Int(field[field.index(after: colon)...], radix: 16)
    }
}
