import CTurboJPEG
import Foundation

/// Decodes JPEG bytes into an ``Image``: header and limit checks first, then a DCT-scaled
/// libjpeg-turbo decode straight into the bitmap's memory (with any colour conversion beside
/// it), then resampling and EXIF orientation.
enum JPEGDecoder {
    /// How strictly missing or damaged data is treated.
    enum Mode {
        /// The file must be whole: truncated or damaged data throws.
        case complete
        /// Data still arriving: whatever decodes is shown, missing parts come out gray.
        case partial
    }

    static func decode(_ data: Data, options: DecodeOptions, mode: Mode = .complete) throws -> Image {
        try data.withUnsafeBytes { raw in
            try decode(raw.bindMemory(to: UInt8.self), options: options, mode: mode)
        }
    }

    static func decode(_ b: UnsafeBufferPointer<UInt8>, options: DecodeOptions, mode: Mode) throws -> Image {
        guard let header = try JPEGHeader.parse(b) else {
            throw WebImageError.badData("The JPEG data (\(b.count) bytes) ends inside its header: the file is truncated.")
        }
        try header.checkSupported()
        if mode == .complete, !JPEGMarkers.hasEndOfImage(in: b, after: header.firstScanDataOffset - 2) {
            throw WebImageError.badData("The JPEG data (\(b.count) bytes) has no end-of-image marker: the file is truncated.")
        }
        let decompressor = try TurboJPEGDecompressor()
        let info = try decompressor.readHeader(b)
        let plan = try JPEGDecodePlan(source: info.size, orientation: header.orientation, options: options)
        if mode == .complete { try checkPlausibleLength(b.count, header: header) }

        let color = colorPlan(JPEGColorMarkers.read(b), info: info, options: options)
        // Shrinking by 1.5x or more after the decode hides the fast DCT's and upsampling's error.
        let fast = plan.decodeSize.width * 2 >= plan.outputSize.width * 3
            && plan.decodeSize.height * 2 >= plan.outputSize.height * 3
        let decoded = try Bitmap(width: plan.decodeSize.width, height: plan.decodeSize.height) { buffer in
            try OverlappedColorConversion.counting {
                try decodePixels(b, into: buffer, info: info, plan: plan, color: color, fast: fast, mode: mode)
            }
        }
        // Every decoded pixel is opaque; rows a partial decode has not reached yet may not be.
        let upright = Resampler.resize(decoded, to: plan.outputSize, opaque: mode != .partial,
                                       filter: options.resamplingFilter).applying(header.orientation)
        return Image(bitmap: upright, format: .jpeg, scale: options.scaleFactor, decodeOptions: options,
                     isPartial: mode == .partial, colorProfile: color.plan.profile)
    }

    /// Decodes the pixels into `buffer` and converts their colours: beside the decode when a
    /// core is free, else after it.
    private static func decodePixels(_ b: UnsafeBufferPointer<UInt8>, into buffer: UnsafeMutableBufferPointer<UInt8>,
                                     info: TurboJPEGDecompressor.Info, plan: JPEGDecodePlan,
                                     color: (source: ColorSource, plan: ColorManagement.Plan), fast: Bool,
                                     mode: Mode) throws {
        let overlapped = color.plan.conversion.flatMap {
            OverlappedColorConversion.start($0, pixels: buffer, width: plan.decodeSize.width,
                                            height: plan.decodeSize.height)
        }
        let outcome: JPEGRowDecoder.Outcome
        do {
            outcome = try JPEGRowDecoder.decode(b, into: buffer, size: plan.decodeSize, factor: plan.factor,
                                                cmyk: info.isCMYK, fast: fast, overlapped: overlapped)
        } catch {
            overlapped?.finish(convertingRest: false)
            throw error
        }
        overlapped?.finish(convertingRest: true)
        if mode == .complete, case .warning(let message) = outcome, isDamage(message) {
            throw WebImageError.badData("The JPEG data is truncated or corrupt: \(message).")
        }
        if overlapped != nil { return }
        if case .cmyk(let inverted) = color.source, color.plan.conversion == nil {
            JPEGCMYK.convertToRGBA(buffer, inverted: inverted)
        } else {
            color.plan.apply(buffer)
        }
    }

    /// The colour handling for the decoded pixels. CMYK pixels are always converted, with their
    /// profile when lcms2 takes it, since an RGBA bitmap cannot hold CMYK.
    private static func colorPlan(_ markers: JPEGColorMarkers, info: TurboJPEGDecompressor.Info,
                                  options: DecodeOptions) -> (source: ColorSource, plan: ColorManagement.Plan) {
        let source: ColorSource = info.isCMYK ? .cmyk(inverted: markers.hasAdobeMarker)
            : info.colorspace == Int32(TJCS_GRAY.rawValue) ? .gray : .rgb
        var colorOptions = options
        if info.isCMYK { colorOptions.convertsToSRGB = true }
        return (source, ColorManagement.plan(icc: markers.icc, source: source, options: colorOptions))
    }

    /// Huffman coding spends at least one bit on every block of a full scan, so a file much
    /// shorter than one bit per MCU cannot hold its declared size: refuse it before decoding
    /// (a small file claiming a huge canvas would otherwise decode megapixels of gray).
    private static func checkPlausibleLength(_ byteCount: Int, header: JPEGHeader) throws {
        guard !header.isArithmetic else { return }
        let bits = (byteCount - header.firstScanDataOffset).multipliedReportingOverflow(by: 16)
        if !bits.overflow, bits.partialValue < header.mcuCount {
            throw WebImageError.badData("The JPEG data (\(byteCount) bytes) is far too short for its declared size \(header.size): the file is truncated or corrupt.")
        }
    }

    /// libjpeg warnings that mean pixels are missing or wrong, as opposed to benign oddities
    /// such as extraneous bytes between markers or an unknown JFIF version.
    private static func isDamage(_ message: String) -> Bool {
        let text = message.lowercased()
        return text.contains("premature end") || text.contains("bad huffman code")
            || text.contains("bad arithmetic code") || text.contains("instead of rst")
    }
}
