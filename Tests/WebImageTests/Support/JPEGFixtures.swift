import CTurboJPEG
import Foundation
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

/// JPEG files the JPEG tests build at run time: with our encoder, or straight with TurboJPEG for
/// what our encoder never writes (grayscale, CMYK, progressive).
enum JPEGFixtures {
    struct CompressionFailed: Error {}

    /// `bitmap` encoded by ``JPEGCoder``.
    static func encode(_ bitmap: Bitmap, quality: Double = 0.9) throws -> Data {
        try JPEGCoder().encode(Image(bitmap: bitmap), as: .jpeg, options: EncodeOptions(compressionQuality: quality))
    }

    /// 4-byte pixels compressed with `tjCompress2` directly.
    static func compress(_ pixels: [UInt8], width: Int, height: Int, pixelFormat: TJPF = TJPF_RGBA,
                         subsampling: TJSAMP = TJSAMP_420, quality: Int32 = 90, flags: Int32 = 0) throws -> Data {
        guard let handle = tjInitCompress() else { throw CompressionFailed() }
        defer { tjDestroy(handle) }
        var output: UnsafeMutablePointer<UInt8>?
        var length: UInt = 0
        let result = pixels.withUnsafeBufferPointer { p in
            tjCompress2(handle, p.baseAddress, Int32(width), Int32(width * 4), Int32(height),
                        Int32(pixelFormat.rawValue), &output, &length, Int32(subsampling.rawValue), quality, flags)
        }
        defer { if let output { tjFree(output) } }
        guard result == 0, let output else { throw CompressionFailed() }
        return Data(bytes: output, count: Int(length))
    }

    /// TurboJPEG's whole-image decode (`tjDecompress2`) of `jpeg` at `size`: the reference the
    /// library's own row decoder is checked against. Returns nil on an error TurboJPEG calls fatal.
    static func turboDecode(_ jpeg: Data, size: PixelSize, pixelFormat: TJPF = TJPF_RGBA, fast: Bool = false) -> [UInt8]? {
        guard let handle = tjInitDecompress() else { return nil }
        defer { tjDestroy(handle) }
        var out = [UInt8](repeating: 0, count: size.area * 4)
        let flags: Int32 = fast ? TJFLAG_FASTDCT | TJFLAG_FASTUPSAMPLE : 0
        let result = jpeg.withUnsafeBytes { raw in
            tjDecompress2(handle, raw.bindMemory(to: UInt8.self).baseAddress, UInt(jpeg.count), &out,
                          Int32(size.width), Int32(size.width * 4), Int32(size.height), Int32(pixelFormat.rawValue), flags)
        }
        if result != 0 && tjGetErrorCode(handle) != Int32(TJERR_WARNING.rawValue) { return nil }
        return out
    }

    /// A progressive JPEG of `bitmap` (libjpeg's standard multi-scan script).
    static func progressive(_ bitmap: Bitmap) throws -> Data {
        try compress(bitmap.pixels, width: bitmap.width, height: bitmap.height, flags: TJFLAG_PROGRESSIVE)
    }

    /// A solid mid-gray JPEG of any size, cheap to make even at many megapixels.
    static func solid(width: Int, height: Int) throws -> Data {
        try compress([UInt8](repeating: 128, count: width * height * 4), width: width, height: height)
    }

    /// `jpeg` with an APP1 "Exif" segment holding `orientation` inserted right after SOI.
    static func withEXIF(_ jpeg: Data, orientation: EXIFOrientation) -> Data {
        let payload = Array("Exif".utf8) + [0, 0] + TestBitmaps.exifTIFF(orientation: orientation)
        let length = payload.count + 2
        let segment: [UInt8] = [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
        var out = Data(jpeg.prefix(2))
        out.append(contentsOf: segment)
        out.append(jpeg.dropFirst(2))
        return out
    }

    /// `jpeg` with the SOF marker's declared size replaced (the scan data is left as it was).
    static func patchingFrameSize(_ jpeg: Data, width: Int, height: Int) -> Data {
        var bytes = [UInt8](jpeg)
        var i = 2
        while i + 9 < bytes.count {
            guard bytes[i] == 0xFF else { i += 1; continue }
            let marker = bytes[i + 1]
            if marker >= 0xC0 && marker <= 0xC2 {
                bytes[i + 5] = UInt8(height >> 8); bytes[i + 6] = UInt8(height & 0xFF)
                bytes[i + 7] = UInt8(width >> 8); bytes[i + 8] = UInt8(width & 0xFF)
                break
            }
            i += 2 + (Int(bytes[i + 2]) << 8 | Int(bytes[i + 3]))
        }
        return Data(bytes)
    }

    /// Feeds `data` to a fresh incremental decoder in `chunks` growing prefixes; returns the image
    /// after each step (nil where none was available yet) and the decoder's final image.
    static func feed(_ data: Data, chunks: Int, options: DecodeOptions = .default) throws -> (steps: [Image?], final: Image?) {
        let decoder = JPEGCoder().makeIncrementalDecoder(options: options)
        var steps: [Image?] = []
        for k in 1..<chunks {
            decoder.update(data.prefix(data.count * k / chunks), finished: false)
            steps.append(try decoder.currentImage())
        }
        decoder.update(data, finished: true)
        return (steps, try decoder.currentImage())
    }

    /// The code of the ``WebImageError`` `body` throws, or nil when it does not throw one.
    static func errorCode<T>(_ body: () throws -> T) -> WebImageError.Code? {
        do {
            _ = try body()
            return nil
        } catch let error as WebImageError {
            return error.code
        } catch {
            return nil
        }
    }
}
