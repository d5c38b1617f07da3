import Foundation

/// Shows a JPEG while it downloads.
///
/// Progressive files re-decode only when another scan has fully arrived, and then only the bytes
/// up to the end of that scan, so each partial image is a clean, sharper pass. Baseline files
/// re-decode once an eighth more data has arrived, showing the rows received so far (the rest
/// gray). When the data is finished the complete image is decoded strictly, like ``JPEGCoder``.
final class JPEGIncrementalDecoder: IncrementalImageDecoding {
    /// Least growth, in bytes, before a baseline file is decoded again.
    private static let minimumBaselineGrowth = 2048

    private let options: DecodeOptions
    private var data = Data()
    private var finished = false
    private var tracker = JPEGScanTracker()
    private var headerIsBad = false
    private var shownScans = 0
    private var nextBaselineDecodeAt = 0
    private var partial: Image?
    private var complete: Result<Image, WebImageError>?

    init(options: DecodeOptions) {
        self.options = options
    }

    func update(_ data: Data, finished: Bool) {
        if data.count < self.data.count { reset() }
        self.data = data
        self.finished = finished
        guard !headerIsBad else { return }
        do {
            try data.withUnsafeBytes { raw in try tracker.advance(over: raw.bindMemory(to: UInt8.self)) }
        } catch {
            headerIsBad = true
        }
    }

    func currentImage() throws -> Image? {
        if finished { return try finalImage() }
        guard !headerIsBad, let header = tracker.header else { return nil }
        if header.isProgressive {
            guard tracker.completedScans > shownScans else { return partial }
            shownScans = tracker.completedScans
            decodePartial(byteCount: tracker.endOfCompletedScans)
        } else {
            guard data.count > header.firstScanDataOffset, data.count >= nextBaselineDecodeAt else { return partial }
            nextBaselineDecodeAt = data.count + max(Self.minimumBaselineGrowth, data.count / 8)
            decodePartial(byteCount: data.count)
        }
        return partial
    }

    private func finalImage() throws -> Image {
        if complete == nil {
            do {
                complete = .success(try JPEGDecoder.decode(data, options: options))
            } catch let error as WebImageError {
                complete = .failure(error)
            } catch {
                complete = .failure(WebImageError.badData("The JPEG data could not be decoded: \(error)."))
            }
        }
        return try complete!.get()
    }

    /// Decodes the first `byteCount` bytes; a failure keeps the previous partial image, since
    /// more data may still fix it (only the finished data is judged).
    private func decodePartial(byteCount: Int) {
        let prefix = data.prefix(byteCount)
        if let image = try? JPEGDecoder.decode(prefix, options: options, mode: .partial) {
            partial = image
        }
    }

    private func reset() {
        tracker = JPEGScanTracker()
        headerIsBad = false
        shownScans = 0
        nextBaselineDecodeAt = 0
        partial = nil
        complete = nil
    }
}
