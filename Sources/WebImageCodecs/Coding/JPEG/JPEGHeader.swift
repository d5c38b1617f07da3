/// What the markers before the first scan say about a JPEG file: the frame geometry, the coding
/// process, the EXIF orientation, and where the first scan starts.
struct JPEGHeader {
    /// Size declared by the SOF marker.
    var size: PixelSize
    /// SOF2/SOF6/SOF10/SOF14: the image arrives in several scans of increasing quality.
    var isProgressive: Bool
    /// SOF9 and up use arithmetic coding, which can compress far below one bit per block.
    var isArithmetic: Bool
    /// SOF3/SOF7/SOF11/SOF15: lossless (predictive) coding.
    var isLossless: Bool
    /// Bits per sample (8 for baseline; 12 or 16 in extended and lossless files).
    var precision: Int
    /// Largest horizontal and vertical sampling factors of the components (the MCU is 8× these).
    var maxSampling: (h: Int, v: Int)
    /// From the first APP1 "Exif" segment; `.up` when there is none.
    var orientation: EXIFOrientation
    /// Offset of the first SOS marker's `FF`.
    var firstScanOffset: Int
    /// Offset of the first byte of entropy-coded data (just after the first SOS segment).
    var firstScanDataOffset: Int

    /// Number of MCUs (minimum coded units) in the frame.
    var mcuCount: Int {
        let mcuW = 8 * max(maxSampling.h, 1), mcuH = 8 * max(maxSampling.v, 1)
        return ((size.width + mcuW - 1) / mcuW) * ((size.height + mcuH - 1) / mcuH)
    }

    /// Parses the markers up to the first SOS.
    ///
    /// Returns `nil` when `b` ends before the first scan starts (more data may complete it);
    /// throws ``WebImageError/Code/badImageData`` when the bytes cannot be a JPEG header.
    static func parse(_ b: UnsafeBufferPointer<UInt8>) throws -> JPEGHeader? {
        guard b.count >= 2 else {
            if b.isEmpty { throw WebImageError.badData("The JPEG data is empty.") }
            return nil
        }
        guard b[0] == 0xFF, b[1] == JPEGMarkers.startOfImage else {
            throw WebImageError.badData("The data does not start with a JPEG SOI marker (FF D8).")
        }
        var frame: (size: PixelSize, marker: UInt8, precision: Int, sampling: (h: Int, v: Int))?
        var orientation: EXIFOrientation?
        var offset = 2
        while true {
            guard case .segment(let segment) = JPEGMarkers.segment(in: b, at: offset) else { return nil }
            let payload = UnsafeBufferPointer(rebasing: b[segment.payload])
            switch segment.marker {
            case JPEGMarkers.startOfScan:
                guard let frame else {
                    throw WebImageError.badData("The JPEG data has a scan before any frame header (SOF).")
                }
                return JPEGHeader(size: frame.size, isProgressive: [0xC2, 0xC6, 0xCA, 0xCE].contains(frame.marker),
                                  isArithmetic: frame.marker >= 0xC9,
                                  isLossless: [0xC3, 0xC7, 0xCB, 0xCF].contains(frame.marker),
                                  precision: frame.precision, maxSampling: frame.sampling,
                                  orientation: orientation ?? .up, firstScanOffset: segment.offset,
                                  firstScanDataOffset: segment.end)
            case JPEGMarkers.endOfImage:
                throw WebImageError.badData("The JPEG data ends (EOI) before any image scan.")
            case JPEGMarkers.app1 where orientation == nil && isExif(payload):
                orientation = EXIFOrientation.parse(exif: payload) ?? .up
            case let marker where JPEGMarkers.isStartOfFrame(marker) && frame == nil:
                frame = try parseFrame(payload, marker: marker)
            default:
                break
            }
            offset = segment.end
        }
    }

    private static func isExif(_ payload: UnsafeBufferPointer<UInt8>) -> Bool {
        payload.count >= 6 && payload[0] == 0x45 && payload[1] == 0x78 && payload[2] == 0x69
            && payload[3] == 0x66 && payload[4] == 0 && payload[5] == 0
    }

    /// SOF payload: precision, height, width, component count, then (id, sampling, table) each.
    private static func parseFrame(_ p: UnsafeBufferPointer<UInt8>, marker: UInt8) throws
        -> (size: PixelSize, marker: UInt8, precision: Int, sampling: (h: Int, v: Int)) {
        guard p.count >= 6 else { throw WebImageError.badData("The JPEG frame header (SOF) is too short.") }
        let height = Int(p[1]) << 8 | Int(p[2])
        let width = Int(p[3]) << 8 | Int(p[4])
        let components = Int(p[5])
        guard components >= 1, p.count >= 6 + components * 3 else {
            throw WebImageError.badData("The JPEG frame header (SOF) lists \(components) components but is \(p.count) bytes long.")
        }
        guard width > 0, height > 0 else {
            throw WebImageError.badData("The JPEG frame header declares an empty or deferred (DNL) size \(width)x\(height), which is not supported.")
        }
        var maxH = 1, maxV = 1
        for c in 0..<components {
            let sampling = p[6 + c * 3 + 1]
            maxH = max(maxH, Int(sampling >> 4))
            maxV = max(maxV, Int(sampling & 0x0F))
        }
        return (PixelSize(width: width, height: height), marker, Int(p[0]), (maxH, maxV))
    }

    /// Throws ``WebImageError/Code/unsupportedFormat`` for a coding the decoder does not take:
    /// lossless JPEG, or samples of other than 8 bits (libjpeg-turbo 2.1 decodes neither; its
    /// 8-bit interface is the one this library uses).
    func checkSupported() throws {
        if isLossless {
            throw WebImageError(.unsupportedFormat,
                "The JPEG is lossless (\(precision)-bit samples), which is not supported: libjpeg-turbo 2.1, the JPEG decoder, decodes lossy 8-bit JPEG only.")
        }
        if precision != 8 {
            throw WebImageError(.unsupportedFormat,
                "The JPEG has \(precision)-bit samples, which are not supported: libjpeg-turbo 2.1, the JPEG decoder, decodes 8-bit samples only.")
        }
    }
}
