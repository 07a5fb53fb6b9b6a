import Foundation
import HybridCore
import HybridCrypto

/// The pixels of a PNG the engine rendered, enough to cut an element out of a page screenshot:
/// 8-bit RGB or RGBA, not interlaced (what WebKitGTK's and Chromium's snapshots are).
struct PNGImage {
    /// A rectangle in pixels.
    struct Rect: Equatable {
        var x: Int, y: Int, width: Int, height: Int
    }

    /// Why a PNG cannot be read or written.
    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    let width: Int
    let height: Int
    /// Bytes per pixel: 3 (RGB) or 4 (RGBA).
    let channels: Int
    /// Rows of `width * channels` bytes, unfiltered.
    var pixels: [UInt8]

    private static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// Decodes `data`.
    /// - Throws: ``Failure`` for anything but a well-formed 8-bit RGB(A) PNG, or when zlib is missing.
    init(_ data: Data) throws {
        let bytes = [UInt8](data)
        guard bytes.count > 8, Array(bytes.prefix(8)) == Self.signature else { throw Failure("not a PNG") }
        var offset = 8
        var header: [UInt8]?
        var compressed: [UInt8] = []
        while offset + 12 <= bytes.count {
            let length = Int(Self.uint32(bytes, offset))
            let type = String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self)
            guard length <= bytes.count - offset - 12 else { throw Failure("chunk \(type) runs past the end") }
            let body = Array(bytes[(offset + 8)..<(offset + 8 + length)])
            if type == "IHDR" { header = body }
            if type == "IDAT" { compressed += body }
            if type == "IEND" { break }
            offset += 12 + length
        }
        guard let header, header.count == 13 else { throw Failure("no IHDR") }
        width = Int(Self.uint32(header, 0))
        height = Int(Self.uint32(header, 4))
        guard header[8] == 8, header[12] == 0, [2, 6].contains(header[9]) else {
            throw Failure("only 8-bit, non-interlaced RGB or RGBA is read (depth \(header[8]), colour type \(header[9]))")
        }
        guard width > 0, height > 0, width <= 32_768, height <= 32_768 else { throw Failure("size \(width)x\(height)") }
        channels = header[9] == 6 ? 4 : 3
        guard let zlib = ZlibCompressor.available else { throw Failure("libz is not available") }
        let stride = width * channels
        let raw = [UInt8](try zlib.decompress(Data(compressed), expectedSize: height * (stride + 1)))
        pixels = try Self.unfilter(raw, rows: height, stride: stride, channels: channels)
    }

    init(width: Int, height: Int, channels: Int, pixels: [UInt8]) {
        self.width = width
        self.height = height
        self.channels = channels
        self.pixels = pixels
    }

    /// The part of the image inside `rect` (clipped to the image).
    /// - Throws: ``Failure`` when nothing of `rect` is inside the image.
    func cropped(to rect: Rect) throws -> PNGImage {
        let left = max(0, rect.x), top = max(0, rect.y)
        let right = min(width, rect.x + rect.width), bottom = min(height, rect.y + rect.height)
        guard right > left, bottom > top else { throw Failure("the element is outside the viewport") }
        var out: [UInt8] = []
        out.reserveCapacity((right - left) * (bottom - top) * channels)
        for row in top..<bottom {
            let start = (row * width + left) * channels
            out += pixels[start..<(start + (right - left) * channels)]
        }
        return PNGImage(width: right - left, height: bottom - top, channels: channels, pixels: out)
    }

    /// The image as a PNG (each row unfiltered, zlib-compressed).
    /// - Throws: ``Failure`` when zlib is missing or fails.
    func encoded() throws -> Data {
        let stride = width * channels
        var raw: [UInt8] = []
        raw.reserveCapacity(height * (stride + 1))
        for row in 0..<height {
            raw.append(0)
            raw += pixels[(row * stride)..<((row + 1) * stride)]
        }
        guard let compressed = ZlibCompressor.available?.compress(Data(raw)) else { throw Failure("zlib could not compress") }
        var header: [UInt8] = []
        Self.append(UInt32(width), to: &header)
        Self.append(UInt32(height), to: &header)
        header += [8, channels == 4 ? 6 : 2, 0, 0, 0]
        var png = Self.signature
        Self.chunk("IHDR", header, into: &png)
        Self.chunk("IDAT", [UInt8](compressed), into: &png)
        Self.chunk("IEND", [], into: &png)
        return Data(png)
    }

    // MARK: Bytes

    private static func unfilter(_ raw: [UInt8], rows: Int, stride: Int, channels: Int) throws -> [UInt8] {
        var out = [UInt8](repeating: 0, count: rows * stride)
        for row in 0..<rows {
            let filter = raw[row * (stride + 1)]
            let source = row * (stride + 1) + 1
            let line = row * stride
            for i in 0..<stride {
                let x = raw[source + i]
                let a = i >= channels ? Int(out[line + i - channels]) : 0
                let b = row > 0 ? Int(out[line - stride + i]) : 0
                let c = row > 0 && i >= channels ? Int(out[line - stride + i - channels]) : 0
                let predictor: Int
                switch filter {
                case 0: predictor = 0
                case 1: predictor = a
                case 2: predictor = b
                case 3: predictor = (a + b) / 2
                case 4:
                    let p = a + b - c
                    let pa = abs(p - a), pb = abs(p - b), pc = abs(p - c)
                    predictor = pa <= pb && pa <= pc ? a : (pb <= pc ? b : c)
                default: throw Failure("row \(row) has filter \(filter)")
                }
                out[line + i] = UInt8(truncatingIfNeeded: Int(x) + predictor)
            }
        }
        return out
    }

    private static func uint32(_ bytes: [UInt8], _ offset: Int) -> UInt32 {
        bytes[offset..<(offset + 4)].reduce(0) { $0 << 8 | UInt32($1) }
    }

    private static func append(_ value: UInt32, to bytes: inout [UInt8]) {
        bytes += [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    private static func chunk(_ type: String, _ body: [UInt8], into png: inout [UInt8]) {
        append(UInt32(body.count), to: &png)
        let typed = Array(type.utf8) + body
        png += typed
        append(crc32(typed), to: &png)
    }

    private static let crcTable: [UInt32] = (0..<256).map { n in
        (0..<8).reduce(UInt32(n)) { c, _ in c & 1 == 1 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
    }

    private static func crc32(_ bytes: [UInt8]) -> UInt32 {
        ~bytes.reduce(UInt32.max) { crcTable[Int(($0 ^ UInt32($1)) & 0xFF)] ^ ($0 >> 8) }
    }
}
