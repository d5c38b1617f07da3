import CTurboJPEG
import Foundation

/// One TurboJPEG compressor handle, destroyed with this object; reused across the encodes of a
/// quality search.
final class TurboJPEGCompressor {
    private let handle: tjhandle

    init() throws {
        guard let handle = tjInitCompress() else {
            let reason = tjGetErrorStr2(nil).map { String(cString: $0) } ?? "unknown TurboJPEG error"
            throw WebImageError(.encodingFailed, "Could not create a TurboJPEG compressor: \(reason).")
        }
        self.handle = handle
    }

    deinit { tjDestroy(handle) }

    /// Compresses 4-byte pixels (`pixelFormat` is RGBX, RGBA or CMYK) at `quality` 1…100.
    func compress(_ pixels: UnsafeBufferPointer<UInt8>, size: PixelSize, pixelFormat: TJPF, quality: Int,
                  subsampling: TJSAMP, flags: Int32 = 0) throws -> Data {
        precondition(pixels.count >= size.area * 4, "pixel buffer too small for the image size")
        guard let source = pixels.baseAddress else {
            throw WebImageError(.encodingFailed, "There are no pixels to encode.")
        }
        guard size.width <= 65_535, size.height <= 65_535 else {
            throw WebImageError(.encodingFailed, "A \(size) image is too large for JPEG (at most 65535 pixels a side); set EncodeOptions.maxPixelSize.")
        }
        var output: UnsafeMutablePointer<UInt8>?
        var length: UInt = 0
        let result = tjCompress2(handle, source, Int32(size.width), Int32(size.width * 4), Int32(size.height),
                                 Int32(pixelFormat.rawValue), &output, &length, Int32(subsampling.rawValue),
                                 Int32(quality), flags)
        guard result == 0, let output, length > 0 else {
            if let output { tjFree(output) }
            let reason = tjGetErrorStr2(handle).map { String(cString: $0) } ?? "unknown TurboJPEG error"
            throw WebImageError(.encodingFailed, "JPEG encoding of a \(size) image failed: \(reason).")
        }
        // Hand TurboJPEG's buffer to Data without copying; it is released with tjFree.
        return Data(bytesNoCopy: output, count: Int(length), deallocator: .custom { pointer, _ in
            tjFree(pointer.assumingMemoryBound(to: UInt8.self))
        })
    }
}
