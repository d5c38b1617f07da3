import CWebP
import Foundation
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

/// WebP fixtures built at test time with our encoder and libwebp's muxer.
enum WebPFixtures {
    static let coder = WebPCoder()

    static func encode(_ bitmap: Bitmap, quality: Double = 0.9, lossless: Bool = false) throws -> Data {
        try coder.encode(Image(bitmap: bitmap), as: .webp,
                         options: EncodeOptions(compressionQuality: quality, lossless: lossless))
    }

    /// An animation of solid frames in `colors`, each shown `durations[i]` seconds.
    static func animation(_ colors: [RGBA], durations: [Double], loopCount: Int = 0,
                          width: Int = 40, height: Int = 30, lossless: Bool = true) throws -> Data {
        let frames = zip(colors, durations).map { ImageFrame(bitmap: Bitmap(width: width, height: height, fill: $0), duration: $1) }
        return try coder.encode(Image(frames: frames, loopCount: loopCount), as: .webp,
                                options: EncodeOptions(lossless: lossless))
    }

    /// `webp` with an EXIF chunk holding `exif`, added through the WebPMux API.
    static func addingEXIF(_ exif: [UInt8], to webp: Data) -> Data? {
        webp.withUnsafeBytes { raw -> Data? in
            var bitstream = WebPData(bytes: raw.bindMemory(to: UInt8.self).baseAddress, size: raw.count)
            guard let mux = WebPMuxCreate(&bitstream, 1) else { return nil }
            defer { WebPMuxDelete(mux) }
            let set = exif.withUnsafeBufferPointer { buffer -> WebPMuxError in
                var chunk = WebPData(bytes: buffer.baseAddress, size: buffer.count)
                return WebPMuxSetChunk(mux, "EXIF", &chunk, 1)
            }
            guard set == WEBP_MUX_OK else { return nil }
            var output = WebPData()
            defer { WebPDataClear(&output) }
            guard WebPMuxAssemble(mux, &output) == WEBP_MUX_OK, let bytes = output.bytes else { return nil }
            return Data(bytes: bytes, count: output.size)
        }
    }

    /// Mean absolute difference per channel between two same-sized bitmaps.
    static func meanError(_ a: Bitmap, _ b: Bitmap) -> Double {
        precondition(a.size == b.size)
        var total = 0
        for i in 0..<a.pixels.count { total += abs(Int(a.pixels[i]) - Int(b.pixels[i])) }
        return Double(total) / Double(a.pixels.count)
    }

    /// Overwrites the 24-bit little-endian canvas size fields of a VP8X header.
    static func patchingCanvas(of webp: Data, width: Int, height: Int) -> Data {
        var bytes = [UInt8](webp)
        precondition(String(decoding: bytes[12..<16], as: UTF8.self) == "VP8X")
        for (offset, value) in [(24, width - 1), (27, height - 1)] {
            bytes[offset] = UInt8(value & 0xFF)
            bytes[offset + 1] = UInt8((value >> 8) & 0xFF)
            bytes[offset + 2] = UInt8((value >> 16) & 0xFF)
        }
        return Data(bytes)
    }
}
