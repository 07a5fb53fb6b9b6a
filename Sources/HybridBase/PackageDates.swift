import Foundation

/// Dates as ISO 8601 text, and the JSON coders every package document uses.
package enum PackageDates {
    package static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]   // compact: the manifest is most of an update's bytes
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(format(date))
        }
        return encoder
    }

    package static var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            // Four-digit years only, and only dates that are written back as the same instant:
            // the formatter also reads years of any length, and a 98-digit one decoded to an
            // instant that encoded as another (found by the key-rotation fuzz target's round trip).
            let formatter = ISO8601DateFormatter()
            guard text.utf8.prefix(while: { (0x30...0x39).contains($0) }).count == 4, let date = formatter.date(from: text),
                  formatter.date(from: formatter.string(from: date)) == date else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "not an ISO 8601 date: \(text)")
            }
            return date
        }
        return decoder
    }

    package static func format(_ date: Date) -> String { ISO8601DateFormatter().string(from: date) }

    package static func isSHA256Hex(_ text: String) -> Bool {
        text.utf8.count == 64 && text.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }
    }
}
