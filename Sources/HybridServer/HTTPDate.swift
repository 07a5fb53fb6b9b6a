import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), the one date format HTTP servers send.
enum HTTPDate {
    private static let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// Formatted by hand from `gmtime_r`: it runs for every static response, where building a
    /// `DateFormatter` was a third of the server thread's time; fixed English names, because
    /// `strftime`'s `%a`/`%b` follow the process locale (GTK apps set one).
    static func format(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        return "\(days[Int(parts.tm_wday)]), \(pad(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(parts.tm_year + 1900) "
            + "\(pad(parts.tm_hour)):\(pad(parts.tm_min)):\(pad(parts.tm_sec)) GMT"
    }

    /// `[30/Nov/2026:10:56:54 +0000]`, the common log format's timestamp.
    static func logTimestamp(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        return "[\(pad(parts.tm_mday))/\(months[Int(parts.tm_mon)])/\(parts.tm_year + 1900):"
            + "\(pad(parts.tm_hour)):\(pad(parts.tm_min)):\(pad(parts.tm_sec)) +0000]"
    }

    static func parse(_ text: String) -> Date? { formatter().date(from: text) }

    private static func pad(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }

    /// A fresh formatter per call: DateFormatter is not thread-safe, and only conditional
    /// requests (`If-Modified-Since`) parse dates.
    private static func formatter() -> DateFormatter {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter
    }
}
