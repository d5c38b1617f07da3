import Foundation
import WebImage

/// One result's work on a worker thread: decode at the planned size, process, encode.
extension ImagePipeline {
    /// Decodes the source at the size the request plans, processes it and encodes the result
    /// (on a worker thread, in a slot); with `best`, in the format `format:best` chooses; with
    /// `watermark`, drawn over the result when the URL asks for it.
    func encodedResult(of data: Data, _ parsed: ParsedImageURL, source: URL, format: ImageFormat?,
                       best: BestFormatCandidates? = nil,
                       watermark: WatermarkImage? = nil) throws -> (data: Data, format: ImageFormat) {
        let started = ContinuousClock.now
        let metadata = ResultMetadata(options: parsed.options, configuration: configuration, asked: format)
        var decoder = PlannedSourceDecoder(coders: coders, options: parsed.options, limits: limits(for: parsed.options),
                                           watermark: watermark)
        decoder.keepsColorProfile = { metadata.keepsColorProfile(forSource: $0) }
        let decoded: (image: Image, plan: JobPlan, profileKept: Bool)
        do {
            decoded = try decoder.decode(data)
        } catch let error as WebImageError {
            throw ServerError(error, source: source.absoluteString)
        }
        let decodedAt = ContinuousClock.now
        metrics.record(.decode, decodedAt - started)
        try WorkCancellation.checkCurrent()
        let processed = try ImageProcessor.process(decoded.image, plan: decoded.plan,
                                                   flattenOver: flattenColor(parsed.options, asked: format,
                                                                             source: decoded.image.format))
        let transformed = ContinuousClock.now
        metrics.record(.transform, transformed - decodedAt)
        try WorkCancellation.checkCurrent()
        if let best {
            let result = try bestServed(processed, plan: decoded.plan, candidates: best,
                                        metadata: metadata.copyright(source: data),
                                        maxBytes: parsed.options.maxBytes)
            metrics.record(.encode, ContinuousClock.now - transformed)
            return result
        }
        let output = outputFormat(format, for: processed)
        let embedded = metadata.embedded(for: processed, as: output, source: data, profileKept: decoded.profileKept)
        let encoded = try encode(processed, as: output, quality: quality(for: output, options: parsed.options),
                                 maxBytes: parsed.options.maxBytes, metadata: embedded, options: parsed.options)
        metrics.record(.encode, ContinuousClock.now - transformed)
        return (encoded, output)
    }

    /// `image` encoded as `format` at `quality` (1–100), or losslessly (WebP; PNG always is),
    /// with the request's background for formats without alpha; an encoder's refusal is a 422.
    func encode(_ image: Image, as format: ImageFormat, quality: Int, lossless: Bool = false,
                options: ProcessingOptions) throws -> Data {
        var encodeOptions = EncodeOptions(compressionQuality: Double(quality) / 100)
        encodeOptions.firstFrameOnly = !image.isAnimated || !format.isAnimatable
        encodeOptions.encoderProcess = configuration.encoderProcess
        encodeOptions.maxPixelSize = Self.encoderBox(for: format)
        encodeOptions.lossless = lossless
        if let background = options.background { encodeOptions.backgroundColor = background }
        do {
            return try coders.encode(image, as: format, options: encodeOptions)
        } catch let error as WebImageError {
            throw ServerError(status: 422, name: "encoding_failed", message: error.message)
        }
    }

    /// The colour a result's alpha is flattened over while it is processed: `bg` for every format
    /// (as imgproxy flattens), else the encoder's background when the result is known to be a
    /// JPEG, which keeps no alpha (so a transparent canvas is filled once, not copied to flatten).
    func flattenColor(_ options: ProcessingOptions, asked: ImageFormat?, source: ImageFormat) -> RGBA? {
        if let background = options.background { return background }
        return (asked ?? source) == .jpeg ? EncodeOptions().backgroundColor : nil
    }

    /// The server's limits on one request's work, tightened by the URL's `msr`.
    func limits(for options: ProcessingOptions) -> JobLimits {
        JobLimits(maxSourcePixels: configuration.maxSourceResolution, maxResultDimension: configuration.maxResultDimension,
                  maxFrames: configuration.maxAnimationFrames, urlMegapixels: options.maxSourceResolution,
                  maxQualitySearchPixels: configuration.bestFormatMaxResolution)
    }
}
