import Foundation
import WebImage

/// `format:best`: the processed result encoded in the candidate formats at the qualities that
/// reach the auto-quality target (``AutoQualitySearch``), the smallest served.
extension ImagePipeline {
    /// The encoding `format:best` serves for `processed`: searched when the plan allows
    /// (``JobPlan/searchesQuality``: still and small enough), else encoded once in the format
    /// ``BestFormatCandidates/unsearched(hasAlpha:animated:)`` picks, at its default quality.
    func bestResult(_ processed: Image, plan: JobPlan, candidates: BestFormatCandidates) throws
        -> (data: Data, format: ImageFormat) {
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
                return (choice.data, choice.format)
            }
        }
        let format = candidates.unsearched(hasAlpha: processed.bitmap.hasAlpha, animated: processed.isAnimated)
            ?? outputFormat(nil, for: processed)
        let data = try encode(processed, as: format, quality: quality(for: format, options: options), options: options)
        metrics.bestFormatChosen(format, encodes: 1)
        return (data, format)
    }
}
