import WebImageCodecs
import Foundation

/// The decode step every built-in loader shares: the context's coder or `CodersManager.shared`,
/// the caller's decode options, and SDWebImage's "empty data / zero pixels is bad data" rule.
enum LoaderDecoding {
    /// The coder a request decodes with: the context's (or the shared coders), behind the
    /// context's animated-image factory when it names one.
    static func coder(for context: WebImageContext, options: WebImageOptions) -> any ImageCoding {
        AnimatedImageFactoryCoder.coder(for: context, options: options)
    }

    /// The decode options one caller's request implies: the manager's resolved ones, else derived
    /// from the cache key the context's key filter gives `url` (as SDWebImage's loaders do), so a
    /// downloaded image and the same image read back from disk get the same scale.
    static func decodeOptions(url: URL, options: WebImageOptions, context: WebImageContext) -> DecodeOptions {
        context.resolvedDecodeOptions(for: options, cacheKey: context.cacheKey(for: url))
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
