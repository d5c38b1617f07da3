import CJPEGRows

/// The JPEG pixel decode: libjpeg-turbo's scanline API through `CJPEGRows`, which reports the
/// rows it has finished as it goes, so a colour conversion can run beside it
/// (``OverlappedColorConversion``). Its pixels are those of TurboJPEG's `tjDecompress2` with the
/// same settings (the same library underneath); unlike it, an error after a warning is an error
/// unless every row was already decoded, so no image comes out with rows never written.
enum JPEGRowDecoder {
    /// How a decode ended when it did not fail outright.
    enum Outcome: Equatable {
        case clean
        /// libjpeg warned (for example about a premature end); the pixels may be partly gray.
        case warning(String)
    }

    /// Decodes `jpeg` at `size` (the size `factor` scales the image to) into `destination`, RGBA
    /// or CMYK. `fast` trades exactness for speed (fast integer DCT, simple chroma upsampling):
    /// invisible when the result is shrunk further, as for thumbnails. With `overlapped`, each
    /// band of finished rows is handed to it; the caller ends it, whatever the outcome. Throws
    /// ``WebImageError/Code/badImageData`` on a fatal error, ``WebImageError/Code/cancelled`` when
    /// the thread's ``WorkCancellation`` stops it (between scans and row blocks); warnings are returned.
    static func decode(_ jpeg: UnsafeBufferPointer<UInt8>, into destination: UnsafeMutableBufferPointer<UInt8>,
                       size: PixelSize, factor: JPEGScaling.Factor, cmyk: Bool, fast: Bool,
                       overlapped: OverlappedColorConversion? = nil) throws -> Outcome {
        precondition(destination.count >= size.area * 4, "destination too small for the decode size")
        guard let source = jpeg.baseAddress, let target = destination.baseAddress else {
            throw WebImageError.badData("The JPEG data is empty.")
        }
        var message = [CChar](repeating: 0, count: 256)
        let context = overlapped.map { Unmanaged.passUnretained($0).toOpaque() }
        let ready: webimage_jpeg_rows_ready? = overlapped == nil ? nil : { context, rows in
            guard let context else { return }
            Unmanaged<OverlappedColorConversion>.fromOpaque(context).takeUnretainedValue().rowsFinished(Int(rows))
        }
        let result = message.withUnsafeMutableBufferPointer { text in
            webimage_jpeg_decode_rows(source, jpeg.count, target, Int32(size.width), Int32(size.height),
                                      cmyk ? 1 : 0, Int32(factor.num), Int32(factor.denom), fast ? 1 : 0,
                                      Int32(OverlappedColorConversion.bandRows), ready, context,
                                      { WorkCancellation.isCurrentCancelled ? 1 : 0 }, text.baseAddress, text.count)
        }
        let text = message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        switch result {
        case WEBIMAGE_JPEG_ROWS_CLEAN.rawValue: return .clean
        case WEBIMAGE_JPEG_ROWS_WARNING.rawValue: return .warning(text)
        case WEBIMAGE_JPEG_ROWS_STOPPED.rawValue: throw WebImageError(.cancelled, "The JPEG decode was cancelled.")
        default: throw WebImageError.badData("The JPEG data is corrupt: \(text.isEmpty ? "unknown libjpeg error" : text).")
        }
    }
}
