/// Follows a JPEG download marker by marker, remembering where it stopped, to tell how many
/// scans have fully arrived. Each update only looks at the new bytes.
struct JPEGScanTracker {
    /// The header, once every marker up to the first SOS has arrived.
    private(set) var header: JPEGHeader?
    /// Scans whose entropy-coded data is complete (a marker follows it).
    private(set) var completedScans = 0
    /// Offset of the marker just after the last completed scan: decoding the bytes before it
    /// shows exactly the completed scans.
    private(set) var endOfCompletedScans = 0
    /// True once EOI has been seen.
    private(set) var reachedEnd = false

    private var position = 0
    private var insideScan = false

    /// Advances over `b`, the whole buffer so far (its earlier bytes must be unchanged).
    /// Throws ``WebImageError/Code/badImageData`` when the header is not a JPEG header.
    mutating func advance(over b: UnsafeBufferPointer<UInt8>) throws {
        if header == nil {
            guard let parsed = try JPEGHeader.parse(b) else { return }
            header = parsed
            position = parsed.firstScanDataOffset
            insideScan = true
        }
        while !reachedEnd && position < b.count {
            if insideScan {
                let (end, resume) = JPEGMarkers.endOfEntropyData(in: b, from: position)
                guard let end else {
                    position = resume
                    return
                }
                completedScans += 1
                endOfCompletedScans = end
                position = end
                insideScan = false
            } else {
                guard case .segment(let segment) = JPEGMarkers.segment(in: b, at: position) else { return }
                switch segment.marker {
                case JPEGMarkers.startOfScan: insideScan = true
                case JPEGMarkers.endOfImage: reachedEnd = true
                default: break
                }
                position = segment.end
            }
        }
    }
}
