import Foundation
import WebImage

/// One result's work on a worker thread: decode at the planned size, process, encode.
extension ImagePipeline {
    /// Decodes the source at the size the request plans, processes it and encodes the result
    /// (on a worker thread, in a slot).
    func encodedResult(of data: Data, _ parsed: ParsedImageURL, source: URL, format: ImageFormat?,
                               negotiated: Bool) throws -> (data: Data, format: ImageFormat) {
        let started = ContinuousClock.now
        let decoder = PlannedSourceDecoder(coders: coders, options: parsed.options, limits: limits(for: parsed.options))
        let decoded: (image: Image, plan: JobPlan)
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
        let output = outputFormat(format, for: processed, negotiated: negotiated)
        var encodeOptions = EncodeOptions(compressionQuality: Double(quality(for: output, options: parsed.options)) / 100)
        encodeOptions.firstFrameOnly = !processed.isAnimated || !output.isAnimatable
        encodeOptions.encoderProcess = configuration.encoderProcess
        encodeOptions.maxPixelSize = Self.encoderBox(for: output)
        if let background = parsed.options.background { encodeOptions.backgroundColor = background }
        let encoded: Data
        do {
            encoded = try coders.encode(processed, as: output, options: encodeOptions)
        } catch let error as WebImageError {
            throw ServerError(status: 422, name: "encoding_failed", message: error.message)
        }
        metrics.record(.encode, ContinuousClock.now - transformed)
        return (encoded, output)
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
                  maxFrames: configuration.maxAnimationFrames, urlMegapixels: options.maxSourceResolution)
    }
}
