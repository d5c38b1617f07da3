import Foundation
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

/// Hand-built PNG and APNG byte streams for the PNG tests: raw scanlines compressed with zlib
/// "stored" (uncompressed) deflate blocks, so every byte of the file is under the test's control.
enum PNGFixtures {
    /// PNG colour types.
    static let gray: UInt8 = 0, rgb: UInt8 = 2, indexed: UInt8 = 3, grayAlpha: UInt8 = 4, rgba: UInt8 = 6

    /// A zlib stream holding `raw` in stored blocks, with its Adler-32.
    static func zlibStored(_ raw: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01]
        var index = 0
        repeat {
            let n = min(65535, raw.count - index)
            out.append(index + n >= raw.count ? 1 : 0)
            out += [UInt8(n & 0xFF), UInt8(n >> 8), UInt8(~n & 0xFF), UInt8((~n >> 8) & 0xFF)]
            out += raw[index..<index + n]
            index += n
        } while index < raw.count
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in raw { a = (a + UInt32(byte)) % 65521; b = (b + a) % 65521 }
        return out + PNGWriter.bigEndian(b << 16 | a)
    }

    /// Rows of packed samples, each prefixed with filter type 0 (none).
    static func scanlines(_ rows: [[UInt8]]) -> [UInt8] {
        rows.flatMap { [0] + $0 }
    }

    /// An IHDR payload.
    static func ihdr(_ width: Int, _ height: Int, depth: UInt8 = 8, colorType: UInt8 = rgba,
                     interlaced: Bool = false) -> [UInt8] {
        PNGWriter.bigEndian(UInt32(width)) + PNGWriter.bigEndian(UInt32(height))
            + [depth, colorType, 0, 0, interlaced ? 1 : 0]
    }

    /// A complete PNG whose image data is `rows` (packed samples, no filter byte).
    static func png(width: Int, height: Int, depth: UInt8 = 8, colorType: UInt8 = rgba,
                    rows: [[UInt8]], interlaced: Bool = false,
                    extraChunks: [(UInt32, [UInt8])] = []) -> Data {
        png(header: ihdr(width, height, depth: depth, colorType: colorType, interlaced: interlaced),
            zlib: zlibStored(scanlines(rows)), extraChunks: extraChunks)
    }

    /// A complete PNG from an IHDR payload and a zlib stream (chunks before IDAT in between).
    static func png(header: [UInt8], zlib: [UInt8], extraChunks: [(UInt32, [UInt8])] = []) -> Data {
        var writer = PNGWriter()
        writer.appendChunk(PNGChunks.IHDR, header)
        for (type, payload) in extraChunks { writer.appendChunk(type, payload) }
        writer.appendChunk(PNGChunks.IDAT, zlib)
        writer.appendChunk(PNGChunks.IEND, [])
        return Data(writer.bytes)
    }

    /// The RGBA rows of `bitmap`.
    static func rows(of bitmap: Bitmap) -> [[UInt8]] {
        (0..<bitmap.height).map { y in Array(bitmap.pixels[y * bitmap.bytesPerRow..<(y + 1) * bitmap.bytesPerRow]) }
    }

    /// An Adam7-interlaced RGBA8 PNG of `bitmap`.
    static func interlacedPNG(_ bitmap: Bitmap) -> Data {
        let passes = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]
        var raw: [UInt8] = []
        for (x0, y0, dx, dy) in passes {
            guard x0 < bitmap.width, y0 < bitmap.height else { continue }
            for y in stride(from: y0, to: bitmap.height, by: dy) {
                raw.append(0)
                for x in stride(from: x0, to: bitmap.width, by: dx) {
                    let p = bitmap.pixel(x: x, y: y)
                    raw += [p.r, p.g, p.b, p.a]
                }
            }
        }
        return png(header: ihdr(bitmap.width, bitmap.height, interlaced: true), zlib: zlibStored(raw))
    }

    /// One APNG frame to build: its pixels, rectangle offset, delay and operations.
    struct Frame {
        var bitmap: Bitmap
        var x = 0, y = 0
        var delay: (UInt16, UInt16) = (1, 10)
        var dispose: UInt8 = 0
        var blend: UInt8 = 0
    }

    /// A complete APNG of `frames` on a `canvas` canvas. With `defaultImage` the IDAT is a
    /// separate image that is not part of the animation; otherwise frame 0 is the IDAT.
    static func apng(canvas: PixelSize, frames: [Frame], plays: UInt32 = 0, defaultImage: Bitmap? = nil,
                     declaredFrames: Int? = nil) -> Data {
        var writer = PNGWriter()
        writer.appendChunk(PNGChunks.IHDR, ihdr(canvas.width, canvas.height))
        writer.appendChunk(PNGChunks.acTL,
                           PNGWriter.bigEndian(UInt32(declaredFrames ?? frames.count)) + PNGWriter.bigEndian(plays))
        var sequence: UInt32 = 0
        func control(_ f: Frame) -> [UInt8] {
            defer { sequence += 1 }
            return PNGWriter.bigEndian(sequence) + PNGWriter.bigEndian(UInt32(f.bitmap.width))
                + PNGWriter.bigEndian(UInt32(f.bitmap.height)) + PNGWriter.bigEndian(UInt32(f.x))
                + PNGWriter.bigEndian(UInt32(f.y)) + PNGWriter.bigEndian(f.delay.0)
                + PNGWriter.bigEndian(f.delay.1) + [f.dispose, f.blend]
        }
        func data(_ bitmap: Bitmap) -> [UInt8] { zlibStored(scanlines(rows(of: bitmap))) }
        if let defaultImage { writer.appendChunk(PNGChunks.IDAT, data(defaultImage)) }
        for (index, frame) in frames.enumerated() {
            writer.appendChunk(PNGChunks.fcTL, control(frame))
            if index == 0 && defaultImage == nil {
                writer.appendChunk(PNGChunks.IDAT, data(frame.bitmap))
            } else {
                writer.appendChunk(PNGChunks.fdAT, PNGWriter.bigEndian(sequence) + data(frame.bitmap))
                sequence += 1
            }
        }
        writer.appendChunk(PNGChunks.IEND, [])
        return Data(writer.bytes)
    }

    /// A solid bitmap.
    static func solid(_ width: Int, _ height: Int, _ colour: RGBA) -> Bitmap {
        Bitmap(width: width, height: height, fill: colour)
    }
}
