import Foundation
import WebImage

/// Turns a decoded source into the result a request asks for, by its ``JobPlan``, in imgproxy's
/// order: the trim of a still image's borders first, the quarter turns (so every size below is in
/// the turned image's terms), the crop, the resize, the flips, the crop to the result, blur,
/// sharpen and pixelate, and the canvas (extension to the target or its aspect ratio, and
/// padding), then the flattening of alpha over a background when the result keeps none, and the
/// watermark.
///
/// The decode may already have done the resize (``PlannedSourceDecoder``): then the image arrives
/// at the plan's scaled size and the crop and resize steps are skipped. An animation (when the
/// server keeps more than its first frame) has every frame processed alike, its timing kept.
enum ImageProcessor {
    /// `image` processed by `plan`; with `flattenOver`, its alpha composited over that colour as
    /// the last step (built into the canvas when there is one, so no bitmap is made for it).
    static func process(_ image: Image, plan: JobPlan, flattenOver: RGBA? = nil) throws -> Image {
        var windows = FrameChoices()
        guard image.isAnimated else {
            return try processFrame(try trimmed(image, plan.options.trim), plan: plan, flattenOver: flattenOver,
                                    windows: &windows)
        }
        // The first frame now; the others as the encoder asks for them, one at a time, cropped
        // where smart gravity cropped the first.
        let poster = try processFrame(Image(bitmap: image.bitmap, format: image.format), plan: plan,
                                      flattenOver: flattenOver, windows: &windows)
        let durations = (0..<image.frameCount).map { image.frameDuration(at: $0) }
        let header = AnimationHeader(loopCount: image.loopCount, durations: durations, frameSize: poster.pixelSize)
        let decoder = ProcessedFrames(source: image, plan: plan, flattenOver: flattenOver, windows: windows)
        let frames = AnimatedFrames(header: header, data: nil, poster: poster.bitmap, decoder: decoder)
        return Image(animation: frames, format: image.format)
    }

    /// Frame `index` of an animation, processed as the first was.
    private final class ProcessedFrames: AnimationFrameDecoding {
        let source: Image
        let plan: JobPlan
        let flattenOver: RGBA?
        let windows: FrameChoices

        init(source: Image, plan: JobPlan, flattenOver: RGBA?, windows: FrameChoices) {
            self.source = source
            self.plan = plan
            self.flattenOver = flattenOver
            self.windows = windows
        }

        func decodeFrame(at index: Int) throws -> Bitmap {
            let still = Image(bitmap: try source.frame(at: index).bitmap, format: source.format)
            var windows = windows
            return try ImageProcessor.processFrame(still, plan: plan, flattenOver: flattenOver, windows: &windows).bitmap
        }
    }

    /// What the first frame that needed them worked out for the others: the crop windows smart
    /// gravity chose, and the watermark's scaled copy.
    struct FrameChoices: Sendable {
        var source: PixelRect?
        var result: PixelRect?
        var watermark: Bitmap?
    }

    /// `crop` itself, or with smart gravity the window of its size that `image` holds the most
    /// in (`SmartCrop`), chosen once into `chosen` and kept.
    private static func window(_ crop: PixelRect, in image: Image, smart: Bool, chosen: inout PixelRect?) -> PixelRect {
        guard smart else { return crop }
        if let chosen, chosen.size == crop.size { return chosen }
        let window = SmartCrop.window(in: image.bitmap, size: crop.size)
        chosen = window
        return window
    }

    fileprivate static func processFrame(_ image: Image, plan job: JobPlan, flattenOver: RGBA?,
                                         windows: inout FrameChoices) throws -> Image {
        // Each frame and each step begins only while the work is wanted.
        try WorkCancellation.checkCurrent()
        let options = job.options
        // Every step's image carries the plan's bounds, which the library's transformers check.
        let steps = job.stepOptions
        var image = Image(bitmap: image.bitmap, format: image.format, decodeOptions: steps, colorProfile: image.colorProfile)
        if let turn = quarterTurn(options.rotate) {
            image = Image(bitmap: image.bitmap.applying(turn), format: image.format, decodeOptions: steps,
                          colorProfile: image.colorProfile)
        }
        // Decoded at the plan's scaled size (shrink-on-load), the crop and resize are done; at the
        // source's size, every step runs; at any other size, the steps are planned again for it.
        let shrunk = job.decodeBox != nil && image.pixelSize == job.resize.scaledSize
        let plan = shrunk || image.pixelSize == job.sourceSize ? job.resize : try job.replanned(for: image.pixelSize)
        if !shrunk, let crop = plan.sourceCrop {
            let smart = (options.crop?.gravity ?? options.gravity).type == .smart
            let rect = window(crop, in: image, smart: smart, chosen: &windows.source)
            image = try apply(CroppingTransformer(rect: rect.pointRect), to: image)
        }
        if image.pixelSize != plan.scaledSize {
            image = try apply(ResizingTransformer(size: PointSize(width: Double(plan.scaledSize.width),
                                                                  height: Double(plan.scaledSize.height)),
                                                    filter: options.resizingAlgorithm), to: image)
        }
        if options.flipHorizontal || options.flipVertical {
            image = try apply(FlippingTransformer(horizontal: options.flipHorizontal, vertical: options.flipVertical),
                              to: image)
        }
        if let crop = plan.resultCrop, crop.size != image.pixelSize {
            let rect = window(crop, in: image, smart: options.gravity.type == .smart, chosen: &windows.result)
            image = try apply(CroppingTransformer(rect: rect.pointRect), to: image)
        }
        if options.blur > 0 {
            image = try apply(BlurTransformer(radius: options.blur), to: image)
        }
        if options.sharpen > 0 {
            image = try sharpen(image, sigma: options.sharpen)
        }
        if options.pixelate > 1 {
            try WorkCancellation.checkCurrent()
            image = Image(bitmap: Pixelation.pixelate(image.bitmap, size: options.pixelate), format: image.format,
                          decodeOptions: image.decodeOptions, colorProfile: image.colorProfile)
        }
        if let canvas = plan.canvas, canvas != image.pixelSize {
            image = extend(image, to: canvas, at: plan.imageOrigin, background: options.background ?? .clear,
                           flattenOver: flattenOver)
        } else if let flattenOver {
            try WorkCancellation.checkCurrent()
            let bitmap = image.bitmap.flattened(over: flattenOver)
            image = Image(bitmap: bitmap, format: image.format, decodeOptions: image.decodeOptions,
                          colorProfile: image.colorProfile)
        }
        if let watermark = job.watermark {
            image = try Watermarking.apply(watermark, to: image, options: options.watermark, dpr: plan.dprScale,
                                           scaled: &windows.watermark)
        }
        return image
    }

    /// `image` without its borders (``BorderTrim``), before every other step as imgproxy trims;
    /// itself without a trim. An animation is never trimmed, as in imgproxy.
    private static func trimmed(_ image: Image, _ trim: ProcessingOptions.Trim?) throws -> Image {
        guard let trim else { return image }
        let rect = try BorderTrim.rect(in: image.bitmap, threshold: trim.threshold, color: trim.color,
                                   equalHorizontal: trim.equalHorizontal, equalVertical: trim.equalVertical)
        guard rect.size != image.pixelSize else { return image }
        return try apply(CroppingTransformer(rect: rect.pointRect), to: image)
    }

    /// The exact pixel turn for a clockwise rotation by `degrees` (a multiple of 90), as the EXIF
    /// orientation that displays a stored image turned that way; nil for none.
    static func quarterTurn(_ degrees: Int) -> EXIFOrientation? {
        switch ((degrees % 360) + 360) % 360 {
        case 90: .right
        case 180: .down
        case 270: .left
        default: nil
        }
    }

    private static func apply(_ transformer: some ImageTransforming, to image: Image) throws -> Image {
        try WorkCancellation.checkCurrent()
        guard let result = transformer.transform(image, forKey: "") else {
            throw WebImageError(.badImageData, "The image could not be processed (\(type(of: transformer))).")
        }
        return result
    }

    /// An unsharp mask: each colour moved away from its blurred neighbourhood by as much again
    /// (`2 × pixel − blurred`), alpha kept.
    private static func sharpen(_ image: Image, sigma: Double) throws -> Image {
        let blurred = try apply(BlurTransformer(radius: sigma), to: image).bitmap
        let source = image.bitmap
        let bitmap = Bitmap(width: source.width, height: source.height) { out in
            source.pixels.withUnsafeBufferPointer { pixels in
                blurred.pixels.withUnsafeBufferPointer { soft in
                    for index in 0..<out.count {
                        if index & 3 == 3 {
                            out[index] = pixels[index]
                        } else {
                            out[index] = UInt8(clamping: 2 * Int(pixels[index]) - Int(soft[index]))
                        }
                    }
                }
            }
        }
        return Image(bitmap: bitmap, format: image.format, decodeOptions: image.decodeOptions, colorProfile: image.colorProfile)
    }

    /// The image placed on a `canvas`-sized bitmap of `background`, its top-left corner at `origin`;
    /// with `flattenOver`, the background and the image both composited over that colour as they
    /// are written.
    private static func extend(_ image: Image, to canvas: PixelSize, at origin: PixelPoint, background: RGBA,
                               flattenOver: RGBA?) -> Image {
        let source = image.bitmap
        let fill = flattenOver.map { background.flattened(over: $0) } ?? background
        let bitmap = Bitmap(width: canvas.width, height: canvas.height) { out in
            for index in stride(from: 0, to: out.count, by: 4) {
                out[index] = fill.r
                out[index + 1] = fill.g
                out[index + 2] = fill.b
                out[index + 3] = fill.a
            }
            let x0 = max(origin.x, 0), x1 = min(origin.x + source.width, canvas.width)
            let y0 = max(origin.y, 0), y1 = min(origin.y + source.height, canvas.height)
            guard x1 > x0, y1 > y0 else { return }
            source.withUnsafeBytes { pixels in
                for y in y0..<y1 {
                    let from = ((y - origin.y) * source.width + (x0 - origin.x)) * 4
                    let to = (y * canvas.width + x0) * 4
                    if let flattenOver {
                        Bitmap.flatten(pixels.baseAddress! + from, into: out.baseAddress! + to,
                                       pixelCount: x1 - x0, over: flattenOver)
                    } else {
                        UnsafeMutableRawPointer(out.baseAddress! + to)
                            .copyMemory(from: pixels.baseAddress! + from, byteCount: (x1 - x0) * 4)
                    }
                }
            }
        }
        return Image(bitmap: bitmap, format: image.format, decodeOptions: image.decodeOptions, colorProfile: image.colorProfile)
    }
}
