import Foundation
import WebImage

/// The server's watermark for the requests that ask for one.
extension ImagePipeline {
    /// The watermark `options` ask for: nil when they ask for none or the server has none (`wm`
    /// then changes nothing, as in imgproxy). A URL watermark is fetched on first use through the
    /// sources' loader, its guard and limits.
    func watermark(for options: ProcessingOptions) async throws -> WatermarkImage? {
        guard options.watermark.isEnabled, !options.raw, watermarks.source != nil else { return nil }
        return try await watermarks.image { [self] url in
            try await checkedLoad(url, maxBytes: nil, fromOrigin: true).data
        }
    }

    /// Fetches and decodes a URL watermark now (a file or bytes were at start-up), so that a
    /// server that cannot have its watermark fails before it listens.
    func loadWatermark() async throws {
        var asking = ProcessingOptions()
        asking.watermark.opacity = 1
        _ = try await watermark(for: asking)
    }

    /// The part of a result key that names the watermark its result draws (empty for one that
    /// draws none), so that results of another watermark or base opacity are never served.
    func watermarkKey(for options: ProcessingOptions) -> String {
        options.watermark.isEnabled && !watermarks.tag.isEmpty ? "|wm " + watermarks.tag : ""
    }
}
