import Foundation
import WebImage

/// `format:best`: the processed result encoded in the candidate formats at the qualities that
/// reach the auto-quality target (``AutoQualitySearch``), the smallest served, with the copyright
/// fields written in and `max_bytes` kept.
extension ImagePipeline {
    /// The encoding `format:best` chose: lossless when `quality` is nil.
    struct BestEncoding {
        let data: Data
        let format: ImageFormat
        let quality: Int?
    }

    /// The result `format:best` serves for `processed`: the chosen encoding (``bestResult(_:plan:candidates:)``)
    /// with `metadata` in its container; with `maxBytes` above 0 and a lossy choice over it, the
    /// chosen format encoded again at the highest lower quality that fits (as `max_bytes` does for
    /// any result).
    func bestServed(_ processed: Image, plan: JobPlan, candidates: BestFormatCandidates, metadata: EmbeddedMetadata,
                    maxBytes: Int) throws -> (data: Data, format: ImageFormat) {
        let chosen = try bestResult(processed, plan: plan, candidates: candidates)
        let served: Data
        do {
            served = try metadata.embed(in: chosen.data, format: chosen.format)
        } catch let error as WebImageError {
            throw ServerError(status: 422, name: "encoding_failed", message: error.message)
        }
        guard maxBytes > 0, served.count > maxBytes, let quality = chosen.quality, quality > 1,
              Self.maxBytesFormats.contains(chosen.format) else { return (served, chosen.format) }
        let fitted = try encode(processed, as: chosen.format, quality: quality - 1, maxBytes: maxBytes,
                                metadata: metadata, options: plan.options)
        return (fitted, chosen.format)
    }

    /// The encoding `format:best` serves for `processed`: searched when the plan allows
    /// (``JobPlan/searchesQuality``: still and small enough), else encoded once in the format
    /// ``BestFormatCandidates/unsearched(hasAlpha:animated:)`` picks, at its default quality.
    func bestResult(_ processed: Image, plan: JobPlan, candidates: BestFormatCandidates) throws -> BestEncoding {
        let options = plan.options
        if plan.searchesQuality, !processed.isAnimated {
            let still = Image(bitmap: processed.bitmap, format: processed.format, decodeOptions: processed.decodeOptions,
                              colorProfile: processed.colorProfile)
            let decodeOptions = plan.stepOptions
            let search = AutoQualitySearch(
                target: configuration.autoQualityTarget, minQuality: configuration.autoQualityMin,
                maxQuality: configuration.autoQualityMax, maxEncodes: configuration.bestFormatMaxEncodes,
                encode: { format, quality, lossless in
                    try self.encode(still, as: format, quality: quality, lossless: lossless, options: options)
                },
                decode: { [coders] data in try coders.decode(data, options: decodeOptions).bitmap })
            if let choice = try search.choose(still.bitmap, candidates: candidates) {
                metrics.bestFormatChosen(choice.format, encodes: choice.encodes)
                return BestEncoding(data: choice.data, format: choice.format, quality: choice.quality)
            }
        }
        let format = candidates.unsearched(hasAlpha: processed.bitmap.hasAlpha, animated: processed.isAnimated)
            ?? outputFormat(nil, for: processed)
        let quality = quality(for: format, options: options)
        let data = try encode(processed, as: format, quality: quality, options: options)
        metrics.bestFormatChosen(format, encodes: 1)
        return BestEncoding(data: data, format: format, quality: format == .png ? nil : quality)
    }
}
