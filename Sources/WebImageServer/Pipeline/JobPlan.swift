import Foundation
import WebImage

/// The whole of one request's work, worked out from its options and the source's header before a
/// pixel is decoded: the size the decoder is asked for, the ``ResizePlan`` (scaled down as a whole
/// to the result-dimension limit, as imgproxy does), and every bitmap the steps will make — the
/// decode, the crop, the resize, the canvas, the watermark's scaled copy — each checked against ``JobLimits``, with an
/// animation's frames counted. A request over any limit is refused (422) before memory is taken.
///
/// The encoded result is held besides the result's bitmap and is of its order: 4 bytes a pixel
/// and a header for BMP, about that at most for PNG and TIFF of noise, less for lossy formats;
/// the bitmap limit on the result bounds it too.
///
/// An AVIF sequence is encoded one processed frame at a time: besides that frame, its encoder holds
/// a YUV copy of it, libaom's reference frames (a few frames' worth of the result's size) and the
/// compressed frames so far. Its work grows with the frames' pixels, which ``checkFrames(_:)`` bounds.
///
/// `format:best` adds the quality search (``searchesQuality``): beside the result it holds the
/// result's luma once or twice (1 byte a pixel each: over white, and over black when it has alpha),
/// one decoded candidate at the result's size (4 bytes a pixel, within the bitmap limit like every
/// step) with its luma, and the encoded bytes of the best candidate so far; a result larger than
/// ``JobLimits/maxQualitySearchPixels`` is encoded once instead.
struct JobPlan: Sendable {
    /// The source's size as the steps see it: as shown (EXIF orientation applied) and turned by `rot`.
    let sourceSize: PixelSize
    /// The geometry of the steps, in ``sourceSize``'s terms.
    let resize: ResizePlan
    /// The size the decoder is asked for (as stored, before `rot`), when the source is decoded
    /// smaller than its own size (shrink-on-load); nil to decode it whole.
    let decodeBox: PixelSize?
    /// The limits the plan was checked against, for a re-plan of an image that decoded at another size.
    let limits: JobLimits
    let options: ProcessingOptions
    /// The server's watermark, when the request asks for one and the server has one.
    let watermark: WatermarkImage?
    /// Whether `format:best` searches the candidates' formats and qualities for this result: one
    /// of at most ``JobLimits/maxQualitySearchPixels`` (and still: an animation is never searched).
    var searchesQuality: Bool {
        options.bestFormat && Self.area(resize.resultSize) <= limits.maxQualitySearchPixels
    }

    /// The plan for a source of `shownSize` (EXIF orientation applied) in `format`, with
    /// `frameCount` frames when the header tells, and the server's `watermark` (used when the
    /// options ask for one); throws a 422 ``ServerError`` when the source, any step or the result
    /// passes `limits`.
    init(options: ProcessingOptions, shownSize: PixelSize, format: ImageFormat, frameCount: Int?,
         limits: JobLimits, watermark: WatermarkImage? = nil) throws(ServerError) {
        self.options = options
        self.limits = limits
        self.watermark = options.watermark.isEnabled ? watermark : nil
        let sourcePixels = Self.area(shownSize)
        guard sourcePixels <= limits.maxSourcePixels else {
            throw ServerError(status: 422, name: "source_over_limits",
                message: "The source is \(shownSize.width)×\(shownSize.height), over the limit of \(Self.megapixels(limits.maxSourcePixels)) megapixels.")
        }
        sourceSize = SourceOrientation.turned(shownSize, rotate: options.rotate)
        // A vector is drawn at the size the result needs, larger than its own size too.
        let vector = format == .svg
        var planOptions = options
        if vector { planOptions.enlarge = true }
        resize = ResizePlan(options: planOptions, sourceSize: sourceSize, maxResultDimension: limits.maxResultDimension)
        let shrinks = resize.scaledSize.width < sourceSize.width || resize.scaledSize.height < sourceSize.height
        // A trim needs the whole image: its borders are found in the decoded pixels, and the
        // steps are planned again for what remains (``replanned(for:)``); the trimmed copy is no
        // larger than the decode.
        if resize.sourceCrop == nil, options.trim == nil, shrinks || (vector && resize.scaledSize != sourceSize) {
            // The decoder sees the source before `rot` turns it: a quarter turn swaps the box.
            decodeBox = SourceOrientation.unturned(resize.scaledSize, rotate: options.rotate)
        } else {
            decodeBox = nil
        }
        try Self.check(resize, decoded: decodeBox == nil ? sourceSize : resize.scaledSize, limits: limits)
        try checkWatermark(on: resize.resultSize)
        if let frameCount { try checkFrames(frameCount) }
    }

    /// Checks an animation of `count` frames (as declared, or as the decoder found them): at most
    /// the frame limit, and its source frames and the frames it will produce at most the source
    /// pixel limit over all of them. A first-frame-only server processes one frame of any animation.
    func checkFrames(_ count: Int) throws(ServerError) {
        guard limits.maxFrames > 1, count > 1 else { return }
        guard count <= limits.maxFrames else {
            throw ServerError(status: 422, name: "source_over_limits",
                message: "The animation has \(count) frames, over the limit of \(limits.maxFrames).")
        }
        let perFrame = max(Self.area(sourceSize), Self.area(resize.scaledSize), Self.area(resize.resultSize))
        let (total, overflow) = perFrame.multipliedReportingOverflow(by: count)
        guard !overflow, total <= limits.maxSourcePixels else {
            throw ServerError(status: 422, name: "source_over_limits",
                message: "The animation's \(count) frames come to more than \(Self.megapixels(limits.maxSourcePixels)) megapixels of work, over the limit.")
        }
    }

    /// The plan for an image that arrived at `size` (turned by `rot`) rather than at this plan's
    /// source or scaled size, checked against the same limits.
    func replanned(for size: PixelSize) throws(ServerError) -> ResizePlan {
        let plan = ResizePlan(options: options, sourceSize: size, maxResultDimension: limits.maxResultDimension)
        try Self.check(plan, decoded: size, limits: limits)
        try checkWatermark(on: plan.resultSize)
        return plan
    }

    /// Decode options carrying this plan's bounds, for the image of every step: the library's
    /// transformers check an image against its decode options' limits (their defaults when it has
    /// none), and every step here was planned within the server's limits already.
    var stepOptions: DecodeOptions {
        var options = DecodeOptions.default
        let pixels = limits.maxBitmapPixels
        let (bytes, overflow) = pixels.multipliedReportingOverflow(by: 4)
        options.limits = DecodeLimits(maxPixels: pixels, maxTotalBytes: overflow ? .max : bytes,
                                      maxFrames: max(1, limits.maxFrames))
        return options
    }

    /// Every bitmap `plan` makes, and its result, within `limits`.
    private static func check(_ plan: ResizePlan, decoded: PixelSize, limits: JobLimits) throws(ServerError) {
        let steps: [(String, PixelSize?)] = [
            ("decode", decoded), ("crop", plan.sourceCrop?.size), ("resize", plan.scaledSize),
            ("result crop", plan.resultCrop?.size), ("canvas", plan.canvas),
        ]
        for case let (step, size?) in steps where area(size) > limits.maxBitmapPixels {
            throw ServerError(status: 422, name: "result_over_limits",
                message: "The \(step) step would make a \(size.width)×\(size.height) image, over the limit of \(megapixels(limits.maxBitmapPixels)) megapixels.")
        }
        let result = plan.resultSize
        if limits.maxResultDimension > 0, max(result.width, result.height) > limits.maxResultDimension {
            throw ServerError(status: 422, name: "result_over_limits",
                message: "The result would be \(result.width)×\(result.height), over the limit of \(limits.maxResultDimension) pixels a side.")
        }
    }

    /// The watermark's scaled copy for a result of `result`, within the bitmap limit.
    private func checkWatermark(on result: PixelSize) throws(ServerError) {
        guard let watermark else { return }
        let size = WatermarkPlacement.scaledSize(of: watermark.bitmap.size, on: result, scale: options.watermark.scale)
        guard Self.area(size) <= limits.maxBitmapPixels else {
            throw ServerError(status: 422, name: "result_over_limits",
                message: "The watermark step would make a \(size.width)×\(size.height) image, over the limit of \(Self.megapixels(limits.maxBitmapPixels)) megapixels.")
        }
    }

    /// Width × height, saturating (the sides come from headers and URLs).
    static func area(_ size: PixelSize) -> Int {
        let (pixels, overflow) = max(0, size.width).multipliedReportingOverflow(by: max(0, size.height))
        return overflow ? Int.max : pixels
    }

    private static func megapixels(_ pixels: Int) -> String {
        let value = Double(pixels) / 1_000_000
        return value == value.rounded() ? String(Int(value)) : String(format: "%.1f", value)
    }
}
