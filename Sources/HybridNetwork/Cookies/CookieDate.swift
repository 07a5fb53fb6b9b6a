import Foundation
import HybridHealth

/// The cookie-date algorithm of RFC 6265 §5.1.1: the forgiving parser browsers use for
/// `Expires`, which accepts every date format servers have sent over the years
/// (`Wed, 21 Oct 2015 07:28:00 GMT`, `Wednesday, 21-Oct-15 07:28:00 GMT`,
/// `Wed Oct 21 07:28:00 2015`) and rejects dates that do not exist.
public enum CookieDate {
    /// Parses `text` per §5.1.1; `nil` when the algorithm fails (the attribute is then ignored).
    public static func parse(_ text: String) -> Date? {
        var time: (hour: Int, minute: Int, second: Int)?
        var day: Int?
        var month: Int?
        var year: Int?
        for token in tokens(text) {
            if time == nil, let parsed = parseTime(token) {
                time = parsed
            } else if day == nil, let parsed = leadingDigits(token, min: 1, max: 2) {
                day = parsed
            } else if month == nil, let parsed = parseMonth(token) {
                month = parsed
            } else if year == nil, let parsed = leadingDigits(token, min: 2, max: 4) {
                year = parsed
            }
        }
        guard let time, let day, let month, var year else { return nil }
        if (70...99).contains(year) { year += 1900 }
        if (0...69).contains(year) { year += 2000 }
        guard (1...31).contains(day), year >= 1601, time.hour <= 23, time.minute <= 59, time.second <= 59 else { return nil }
        // "If the date does not exist (e.g. 31 February), abort."
        guard day <= daysIn(month: month, year: year) else { return nil }
        let days = daysSinceEpoch(year: year, month: month, day: day)
        return Date(timeIntervalSince1970: TimeInterval(days * 86_400 + time.hour * 3600 + time.minute * 60 + time.second))
    }

    /// The days in `month` of `year` (proleptic Gregorian).
    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days from 1970-01-01 to a proleptic Gregorian date (UTC), counted in 400-year eras of
    /// 146,097 days with March as the first month, so the leap day ends a year. Arithmetic, where a
    /// `Calendar` cost every parse 15 µs (a cache hit parses a `Date` header).
    static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        let shifted = month <= 2 ? year - 1 : year
        let era = (shifted >= 0 ? shifted : shifted - 399) / 400
        let yearOfEra = shifted - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// delimiter = %x09 / %x20-2F / %x3B-40 / %x5B-60 / %x7B-7E; tokens are runs of the rest.
    static func tokens(_ text: String) -> [Substring.UTF8View] {
        let isDelimiter = { (byte: UInt8) -> Bool in
            byte == 0x09 || (0x20...0x2F).contains(byte) || (0x3B...0x40).contains(byte)
                || (0x5B...0x60).contains(byte) || (0x7B...0x7E).contains(byte)
        }
        return Substring(text).utf8.split(whereSeparator: isDelimiter)
    }

    /// `min...max` digits followed by nothing or a non-digit (then anything).
    static func leadingDigits(_ token: Substring.UTF8View, min: Int, max: Int) -> Int? {
        let digits = token.prefix { isDigit($0) }
        guard (min...max).contains(digits.count) else { return nil }
        return digits.reduce(0) { $0 * 10 + Int($1 - 0x30) }
    }

    /// hms-time = 1*2DIGIT ":" 1*2DIGIT ":" 1*2DIGIT, then nothing or a non-digit (then anything).
    static func parseTime(_ token: Substring.UTF8View) -> (hour: Int, minute: Int, second: Int)? {
        var fields: [Int] = []
        var rest = token[...]
        for index in 0..<3 {
            let digits = rest.prefix { isDigit($0) }
            guard (1...2).contains(digits.count) else { return nil }
            fields.append(digits.reduce(0) { $0 * 10 + Int($1 - 0x30) })
            rest = rest.dropFirst(digits.count)
            if index < 2 {
                guard rest.first == UInt8(ascii: ":") else { return nil }
                rest = rest.dropFirst()
            }
        }
        if let next = rest.first, isDigit(next) { return nil }
        return (fields[0], fields[1], fields[2])
    }

    /// The first three characters name a month, case-insensitively (`Oct`, `october`, `OCT.x`).
    static func parseMonth(_ token: Substring.UTF8View) -> Int? {
        guard token.count >= 3 else { return nil }
        let prefix = String(decoding: token.prefix(3), as: UTF8.self).lowercased()
        return ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
            .firstIndex(of: prefix).map { $0 + 1 }
    }

    private static func isDigit(_ byte: UInt8) -> Bool { (0x30...0x39).contains(byte) }
}
