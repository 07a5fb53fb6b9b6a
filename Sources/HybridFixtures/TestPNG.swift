import Foundation

/// A minimal PNG encoder (8-bit RGB, deflate "stored" blocks): real images for test pages and
/// benchmark pages without a codec dependency.
public enum TestPNG {
    /// An 8-bit RGB image of `width`×`height`, each pixel from `pixel(x, y)`.
    public static func rgb(width: Int, height: Int, pixel: (Int, Int) -> (UInt8, UInt8, UInt8)) -> Data {
        var raw = [UInt8]()
        raw.reserveCapacity(height * (1 + width * 3))
        for y in 0..<height {
            raw.append(0)   // filter: none
            for x in 0..<width {
                let (r, g, b) = pixel(x, y)
                raw += [r, g, b]
            }
        }
        var png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        chunk("IHDR", bigEndian(UInt32(width)) + bigEndian(UInt32(height)) + [8, 2, 0, 0, 0], into: &png)
        chunk("IDAT", zlibStored(raw), into: &png)
        chunk("IEND", [], into: &png)
        return png
    }

    private static func chunk(_ type: String, _ body: [UInt8], into png: inout Data) {
        let typed = Array(type.utf8) + body
        png.append(contentsOf: bigEndian(UInt32(body.count)) + typed + bigEndian(crc32(typed)))
    }

    private static func zlibStored(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01]
        var offset = 0
        repeat {
            let count = min(65_535, data.count - offset)
            let final: UInt8 = offset + count == data.count ? 1 : 0
            out += [final, UInt8(count & 0xff), UInt8(count >> 8), UInt8(~count & 0xff), UInt8((~count >> 8) & 0xff)]
            out += data[offset..<offset + count]
            offset += count
        } while offset < data.count
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in data {
            a = (a + UInt32(byte)) % 65_521
            b = (b + a) % 65_521
        }
        return out + bigEndian(b << 16 | a)
    }

    private static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xffff_ffff
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xedb8_8320 : crc >> 1 }
        }
        return ~crc
    }

    private static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8((value >> 16) & 0xff), UInt8((value >> 8) & 0xff), UInt8(value & 0xff)]
    }
}
