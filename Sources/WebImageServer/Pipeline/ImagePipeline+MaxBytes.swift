import Foundation
import WebImage

/// The encode of a result: its metadata written in, and with `max_bytes` / `mb` a result larger
/// than the budget encoded again at lower qualities.
extension ImagePipeline {
    /// The formats whose quality `max_bytes` lowers: imgproxy's formats with a quality that this
    /// server encodes lossily. Other formats are encoded once, whatever their size, as in imgproxy.
    static let maxBytesFormats: Set<ImageFormat> = [.jpeg, .webp, .avif, .jpegXL]

    /// The lowest quality the search goes down to: imgproxy stops lowering at 10 and serves that
    /// encoding when even it is over the budget.
    static let maxBytesLowestQuality = 10

    /// `image` encoded as `format` at `quality` with `metadata` in its container, or with
    /// `maxBytes` above 0 and a format that has a quality, at the highest quality from 10 (or
    /// `quality` when lower) to `quality` whose encoding, metadata included, fits in `maxBytes`
    /// (at most eight encodes); the smallest encoding when none fits.
    func encode(_ image: Image, as format: ImageFormat, quality: Int, maxBytes: Int, metadata: EmbeddedMetadata,
                options: ProcessingOptions) throws -> Data {
        func attempt(_ quality: Int) throws -> Data {
            let encoded = try encode(image, as: format, quality: quality, options: options)
            do {
                return try metadata.embed(in: encoded, format: format)
            } catch let error as WebImageError {
                throw ServerError(status: 422, name: "encoding_failed", message: error.message)
            }
        }
        guard maxBytes > 0, Self.maxBytesFormats.contains(format) else { return try attempt(quality) }
        let lowest = min(quality, Self.maxBytesLowestQuality)
        return try EncodeQualitySearch.highestFitting(maxBytes: maxBytes, qualities: lowest...quality) { quality in
            try WorkCancellation.checkCurrent()
            return try attempt(quality)
        }.data
    }
}
