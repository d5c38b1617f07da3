import WebImageCodecs
import Foundation

/// The decode step every built-in loader shares: the context's coder or `CodersManager.shared`,
/// the caller's decode options, and SDWebImage's "empty data / zero pixels is bad data" rule.
enum LoaderDecoding {
    /// The coder a request decodes with.
    static func coder(for context: WebImageContext) -> any ImageCoding {
        context.imageCoder ?? CodersManager.shared
    }

    /// The decode options one caller's request implies (the URL string stands in for the cache key).
    static func decodeOptions(url: URL, options: WebImageOptions, context: WebImageContext) -> DecodeOptions {
        context.decodeOptions(for: options, cacheKey: url.absoluteString)
    }

    /// Decodes `data`, turning every failure into a ``WebImageError`` that names `url`.
    static func decode(_ data: Data, url: URL, coder: any ImageCoding,
                       options: DecodeOptions) -> Result<Image, WebImageError> {
        guard !data.isEmpty else {
            return .failure(WebImageError(.badImageData, "The downloaded data is empty.", url: url))
        }
        do {
            let image = try coder.decode(data, options: options)
            guard !image.pixelSize.isEmpty else {
                return .failure(WebImageError(.badImageData, "The decoded image has 0 pixels.", url: url))
            }
            return .success(image)
        } catch var error as WebImageError {
            if error.url == nil { error.url = url }
            return .failure(error)
        } catch {
            return .failure(WebImageError(.badImageData, "Decoding failed: \(error)", url: url,
                                          underlying: error))
        }
    }
}
