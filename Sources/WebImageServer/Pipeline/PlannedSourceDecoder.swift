import Foundation
import WebImage

/// One request's decode of its source, run in a worker slot: it reads the source's header,
/// refuses a source over the resolution limit before decoding a pixel, works out the request's
/// ``ResizePlan`` and decodes straight at the size the plan resizes to (shrink-on-load: a JPEG
/// 8× larger than the result is decoded at 1/8 in the DCT) unless a crop needs the full image.
///
/// It decodes with this request's own options, so two requests for different results of one
/// source share its download but never a decode planned for the other.
struct PlannedSourceDecoder {
    let coders: CodersManager
    let options: ProcessingOptions
    /// The most pixels a source may have (all its frames together, as imgproxy counts them).
    let maxPixels: Int
    /// The most frames of an animation processed; 1 decodes the first frame only, and a source
    /// with more frames than a higher limit is refused.
    let maxFrames: Int

    /// The source decoded at the size the request's result needs.
    func decode(_ data: Data) throws -> Image {
        guard let info = coders.imageInfo(for: data) else {
            return try coders.decode(data, options: limited(.default))
        }
        let pixels = info.pixelSize.width.multipliedReportingOverflow(by: info.pixelSize.height)
        if pixels.overflow || pixels.partialValue > maxPixels {
            throw WebImageError(.imageTooLarge,
                "The source is \(info.pixelSize.width)×\(info.pixelSize.height), over the limit of \(maxPixels / 1_000_000) megapixels.")
        }
        var planned = limited(.default)
        let turned = SourceOrientation.turned(info.pixelSize, rotate: options.rotate)
        // A vector is drawn at the size the result needs, larger than its own size too.
        let vector = info.format == .svg
        var planOptions = options
        if vector { planOptions.enlarge = true }
        let plan = ResizePlan(options: planOptions, sourceSize: turned)
        let shrinks = plan.scaledSize.width < turned.width || plan.scaledSize.height < turned.height
        if plan.sourceCrop == nil, shrinks || (vector && plan.scaledSize != turned) {
            // The decoder sees the source before `rot` turns it: a quarter turn swaps the box.
            planned.thumbnailPixelSize = SourceOrientation.unturned(plan.scaledSize, rotate: options.rotate)
            planned.preserveAspectRatio = false
        }
        return try coders.decode(data, options: planned)
    }

    private func limited(_ options: DecodeOptions) -> DecodeOptions {
        var options = options
        options.limits.maxPixels = min(options.limits.maxPixels, maxPixels)
        if maxFrames <= 1 {
            options.firstFrameOnly = true
        } else {
            options.limits.maxFrames = min(options.limits.maxFrames, maxFrames)
            let (bytes, overflow) = maxPixels.multipliedReportingOverflow(by: 4)
            if !overflow { options.limits.maxTotalBytes = min(options.limits.maxTotalBytes, bytes) }
        }
        return options
    }
}

/// Sizes before and after the request's quarter turns (`rot`).
enum SourceOrientation {
    static func turned(_ size: PixelSize, rotate: Int) -> PixelSize {
        rotate % 180 == 0 ? size : PixelSize(width: size.height, height: size.width)
    }

    static func unturned(_ size: PixelSize, rotate: Int) -> PixelSize {
        turned(size, rotate: rotate)
    }
}
