import CWebP
import Foundation

/// Header-level facts of a WebP bitstream and the mapping of libwebp status codes to errors.
enum WebPBitstream {
    /// Size, alpha and animation flags from the headers alone (no pixel memory is allocated).
    /// For an extended (VP8X) file the size is the canvas.
    static func features(of bytes: UnsafeBufferPointer<UInt8>) throws -> WebPBitstreamFeatures {
        guard !bytes.isEmpty else { throw WebImageError.badData("The WebP data is empty.") }
        var features = WebPBitstreamFeatures()
        let status = WebPGetFeatures(bytes.baseAddress, bytes.count, &features)
        guard status == VP8_STATUS_OK else { throw error(for: status, while: "reading the WebP header") }
        return features
    }

    /// The pixel size the header declares.
    static func size(of features: WebPBitstreamFeatures) -> PixelSize {
        PixelSize(width: Int(features.width), height: Int(features.height))
    }

    /// A ``WebImageError`` explaining a failed libwebp call.
    static func error(for status: VP8StatusCode, while action: String) -> WebImageError {
        switch status {
        case VP8_STATUS_NOT_ENOUGH_DATA:
            WebImageError.badData("The WebP data ended early while \(action); the file is truncated.")
        case VP8_STATUS_OUT_OF_MEMORY:
            WebImageError(.imageTooLarge, "libwebp ran out of memory while \(action).")
        case VP8_STATUS_UNSUPPORTED_FEATURE:
            WebImageError.badData("The WebP data uses a feature libwebp does not support (\(action)).")
        default:
            WebImageError.badData("The WebP data is corrupt (libwebp status \(status.rawValue) while \(action)).")
        }
    }
}
