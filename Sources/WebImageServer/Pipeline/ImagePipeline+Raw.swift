import Foundation
import WebImage

/// `raw`: the source's bytes as the answer, with imgproxy's rules — no processing, no resolution
/// check, no format from the extension or `Accept`; the source must still be an image this server
/// reads, within `--max-src-bytes` (and `max_src_file_size`), and is answered with its own format's
/// content type and the usual validators and cache headers.
extension ImagePipeline {
    /// The answer's bytes and format for a raw request: `data` itself.
    func rawBody(_ data: Data, source: URL) throws -> (data: Data, format: ImageFormat) {
        let format = ImageFormat.detect(data)
        guard format != .undefined else {
            throw ServerError(status: 422, name: "unsupported_source",
                              message: "The source (\(source.absoluteString)) is not in an image format this server knows.")
        }
        return (data, format)
    }
}
