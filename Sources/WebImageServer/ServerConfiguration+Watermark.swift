import Foundation

/// Where the server's watermark comes from. It is read and decoded once: a file or bytes when the
/// server is made (a bad one stops it there), a URL before the server listens (or, embedded, on
/// the first request that asks for a watermark), through the same guarded loader and limits as
/// sources.
public enum WatermarkSource: Sendable, Equatable {
    /// A local file (`--watermark-path`).
    case file(URL)
    /// An http or https URL (`--watermark-url`).
    case url(URL)
    /// The image's bytes (`--watermark-data`, base64 on the command line).
    case data(Data)
}

extension ServerConfiguration {
    /// Throws a ``URLConfigurationError`` for a base opacity outside (0, 1] or a watermark URL
    /// that is not http or https.
    func checkWatermark() throws(URLConfigurationError) {
        guard watermarkOpacity.isFinite, watermarkOpacity > 0, watermarkOpacity <= 1 else {
            throw URLConfigurationError("watermarkOpacity takes a number above 0 and at most 1, got \(watermarkOpacity).")
        }
        if case .url(let url) = watermark, !["http", "https"].contains(url.scheme?.lowercased() ?? "") {
            throw URLConfigurationError("The watermark URL must be http or https, got \(url.absoluteString).")
        }
    }
}
