import Foundation
import WebImage

/// One request's decode of its source, run in a worker slot: it reads the source's header, plans
/// the whole job from it (``JobPlan``: refused before a pixel is decoded when any step passes the
/// limits) and decodes straight at the size the plan resizes to (shrink-on-load: a JPEG 8× larger
/// than the result is decoded at 1/8 in the DCT) unless a crop needs the full image.
///
/// It decodes with this request's own options, so two requests for different results of one
/// source share its download but never a decode planned for the other.
struct PlannedSourceDecoder {
    let coders: CodersManager
    let options: ProcessingOptions
    let limits: JobLimits
    /// The server's watermark, for the plan of a request that asks for one.
    var watermark: WatermarkImage? = nil
    /// Whether a source of a format is decoded with its own colours (not converted to sRGB), for
    /// a result that embeds its profile; without a header to tell the format, it is converted.
    var keepsColorProfile: (ImageFormat) -> Bool = { _ in false }

    /// The source decoded at the size the request's result needs, with the plan it was decoded
    /// for and whether its colours were kept.
    func decode(_ data: Data) throws -> (image: Image, plan: JobPlan, profileKept: Bool) {
        guard let info = coders.imageInfo(for: data) else {
            // No header to plan from: the decode itself is bounded by the limits, and the plan is
            // made (and checked) from what it gave.
            let image = try coders.decode(data, options: decodeOptions())
            let plan = try JobPlan(options: options, shownSize: image.pixelSize, format: image.format,
                                   frameCount: image.frameCount, limits: limits, watermark: watermark)
            return (image, plan, false)
        }
        let plan = try JobPlan(options: options, shownSize: info.pixelSize, format: info.format,
                               frameCount: info.frameCount, limits: limits, watermark: watermark)
        let keepsProfile = keepsColorProfile(info.format)
        var planned = decodeOptions()
        planned.convertsToSRGB = !keepsProfile
        if let box = plan.decodeBox {
            planned.thumbnailPixelSize = box
            planned.preserveAspectRatio = false
        }
        let image = try coders.decode(data, options: planned)
        // The decoder's own count, where the header had none or told another.
        try plan.checkFrames(image.frameCount)
        return (image, plan, keepsProfile)
    }

    /// The library's decode options with the server's limits: per frame, all frames and frames.
    private func decodeOptions() -> DecodeOptions {
        var options = DecodeOptions.default
        options.resamplingFilter = self.options.resizingAlgorithm
        options.limits.maxPixels = min(options.limits.maxPixels, limits.maxSourcePixels)
        if limits.maxFrames <= 1 {
            options.firstFrameOnly = true
        } else {
            options.limits.maxFrames = min(options.limits.maxFrames, limits.maxFrames)
            let (bytes, overflow) = limits.maxSourcePixels.multipliedReportingOverflow(by: 4)
            if !overflow { options.limits.maxTotalBytes = min(options.limits.maxTotalBytes, bytes) }
        }
        return options
    }
}
