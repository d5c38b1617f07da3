import Foundation

/// The colour facts in a JPEG's markers before the first scan: the embedded ICC profile and
/// whether an Adobe APP14 marker is present (Adobe's CMYK files store inverted inks).
///
/// A profile too large for one marker is split over several APP2 `ICC_PROFILE` markers, each
/// with its sequence number (1…n) and the count n; they are joined in sequence order. A set
/// with a chunk missing, repeated, numbered out of range or disagreeing on n is ignored whole
/// (the image then decodes untagged), as a truncated profile cannot be trusted.
struct JPEGColorMarkers {
    /// The reassembled ICC profile; nil without one or when its chunks are inconsistent.
    var icc: Data?
    /// True when an APP14 marker starts with `Adobe`.
    var hasAdobeMarker = false

    static let app2: UInt8 = 0xE2
    static let app14: UInt8 = 0xEE
    private static let iccSignature = Array("ICC_PROFILE\0".utf8)
    private static let adobeSignature = Array("Adobe".utf8)

    /// Walks the markers of `b` up to the first scan (or the end of the bytes).
    static func read(_ b: UnsafeBufferPointer<UInt8>) -> JPEGColorMarkers {
        var result = JPEGColorMarkers()
        var chunks: [Int: Range<Int>] = [:]
        var declaredCount: Int?
        var consistent = true
        var offset = 2
        while case .segment(let segment) = JPEGMarkers.segment(in: b, at: offset) {
            if segment.marker == JPEGMarkers.startOfScan || segment.marker == JPEGMarkers.endOfImage { break }
            let payload = segment.payload
            switch segment.marker {
            case app2 where starts(b, payload, with: iccSignature):
                guard payload.count >= iccSignature.count + 2 else {
                    consistent = false
                    break
                }
                let sequence = Int(b[payload.lowerBound + 12]), count = Int(b[payload.lowerBound + 13])
                if sequence == 0 || sequence > count || chunks[sequence] != nil
                    || (declaredCount.map { $0 != count } ?? false) {
                    consistent = false
                } else {
                    declaredCount = count
                    chunks[sequence] = payload.lowerBound + 14..<payload.upperBound
                }
            case app14 where starts(b, payload, with: adobeSignature):
                result.hasAdobeMarker = true
            default:
                break
            }
            offset = segment.end
        }
        if consistent, let declaredCount, chunks.count == declaredCount {
            var icc = Data(capacity: chunks.values.reduce(0) { $0 + $1.count })
            for sequence in 1...declaredCount {
                icc.append(UnsafeBufferPointer(rebasing: b[chunks[sequence]!]))
            }
            result.icc = icc
        }
        return result
    }

    private static func starts(_ b: UnsafeBufferPointer<UInt8>, _ payload: Range<Int>, with prefix: [UInt8]) -> Bool {
        payload.count >= prefix.count && prefix.indices.allSatisfy { b[payload.lowerBound + $0] == prefix[$0] }
    }
}
