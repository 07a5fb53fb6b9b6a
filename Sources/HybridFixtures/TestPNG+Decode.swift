import Foundation
import HybridCrypto

extension TestPNG {
    /// A decoded PNG: 8-bit samples, every pixel as RGBA.
    public struct Image: Sendable {
        /// Width in pixels.
        public let width: Int
        /// Height in pixels.
        public let height: Int
        /// `width × height × 4` bytes, row by row.
        public let rgba: [UInt8]

        /// The pixel at `(x, y)` as `(r, g, b, a)`.
        public func pixel(_ x: Int, _ y: Int) -> (r: UInt8, g: UInt8, b: UInt8, a: UInt8) {
            let at = (y * width + x) * 4
            return (rgba[at], rgba[at + 1], rgba[at + 2], rgba[at + 3])
        }

        /// Whether the pixel at `(x, y)` is `(r, g, b)`, each channel within `tolerance`
        /// (engines may dither or colour-manage a little).
        public func pixel(_ x: Int, _ y: Int, is color: (r: UInt8, g: UInt8, b: UInt8), tolerance: Int = 8) -> Bool {
            let p = pixel(x, y)
            return abs(Int(p.r) - Int(color.r)) <= tolerance && abs(Int(p.g) - Int(color.g)) <= tolerance
                && abs(Int(p.b) - Int(color.b)) <= tolerance
        }
    }

    /// Why a PNG could not be decoded.
    public struct DecodeError: Error, CustomStringConvertible {
        /// What was wrong.
        public let description: String
    }

    /// Decodes what engines' snapshots produce: a non-interlaced PNG of 8-bit grey, grey+alpha,
    /// RGB or RGBA samples (every filter type), inflated with the system zlib.
    /// - Throws: ``DecodeError`` for anything else, or a malformed file.
    public static func decode(_ png: Data) throws -> Image {
        let bytes = [UInt8](png)
        guard bytes.count > 8, bytes.prefix(8).elementsEqual([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) else {
            throw DecodeError(description: "not a PNG signature")
        }
        func be32(_ at: Int) -> Int { bytes[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
        var offset = 8, width = 0, height = 0, channels = 0
        var compressed = [UInt8]()
        while offset + 8 <= bytes.count {
            let length = be32(offset), type = String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self)
            let body = offset + 8
            guard length >= 0, body + length + 4 <= bytes.count else { throw DecodeError(description: "truncated \(type) chunk") }
            switch type {
            case "IHDR":
                width = be32(body)
                height = be32(body + 4)
                let depth = bytes[body + 8], colorType = bytes[body + 9], interlace = bytes[body + 12]
                channels = [0: 1, 4: 2, 2: 3, 6: 4][colorType] ?? 0
                guard depth == 8, channels > 0, interlace == 0, width > 0, height > 0, width * height <= 64 << 20 else {
                    throw DecodeError(description: "unsupported PNG: depth \(depth), colour type \(colorType), interlace \(interlace), \(width)×\(height)")
                }
            case "IDAT": compressed += bytes[body..<body + length]
            default: break
            }
            offset = body + length + 4
            if type == "IEND" { break }
        }
        guard channels > 0 else { throw DecodeError(description: "no IHDR chunk") }
        guard let zlib = ZlibCompressor.available else { throw DecodeError(description: "libz is not available") }
        let stride = width * channels
        let raw = [UInt8](try zlib.decompress(Data(compressed), expectedSize: height * (1 + stride)))
        var rows = [UInt8](repeating: 0, count: height * stride)
        for y in 0..<height {
            let filter = raw[y * (1 + stride)], line = y * (1 + stride) + 1, out = y * stride
            for i in 0..<stride {
                let a = i >= channels ? Int(rows[out + i - channels]) : 0
                let b = y > 0 ? Int(rows[out - stride + i]) : 0
                let c = i >= channels && y > 0 ? Int(rows[out - stride + i - channels]) : 0
                let predictor: Int
                switch filter {
                case 0: predictor = 0
                case 1: predictor = a
                case 2: predictor = b
                case 3: predictor = (a + b) / 2
                case 4:
                    let p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c)
                    predictor = pa <= pb && pa <= pc ? a : (pb <= pc ? b : c)
                default: throw DecodeError(description: "row \(y): unknown filter \(filter)")
                }
                rows[out + i] = UInt8(truncatingIfNeeded: Int(raw[line + i]) + predictor)
            }
        }
        var rgba = [UInt8](repeating: 255, count: width * height * 4)
        for index in 0..<(width * height) {
            let sample = rows[(index * channels)..<(index * channels + channels)].map { $0 }
            switch channels {
            case 1, 2: (rgba[index * 4], rgba[index * 4 + 1], rgba[index * 4 + 2]) = (sample[0], sample[0], sample[0])
            default: (rgba[index * 4], rgba[index * 4 + 1], rgba[index * 4 + 2]) = (sample[0], sample[1], sample[2])
            }
            if channels == 2 || channels == 4 { rgba[index * 4 + 3] = sample[channels - 1] }
        }
        return Image(width: width, height: height, rgba: rgba)
    }
}
