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

    /// What a loader that reads a whole file answers: `read`'s failure, or its bytes reported as
    /// complete progress and decoded, with a response of `statusCode`.
    static func wholeFile(_ read: Result<Data, WebImageError>, url: URL, statusCode: Int, coder: any ImageCoding,
                          options: DecodeOptions, progress: ImageLoadProgress?) -> ImageLoadResult {
        let data: Data
        switch read {
        case .success(let bytes): data = bytes
        case .failure(let error): return .failure(error)
        }
        progress?(Int64(data.count), Int64(data.count), url)
        let response = ImageResponseInfo(url: url, statusCode: statusCode, expectedContentLength: Int64(data.count))
        switch decode(data, url: url, coder: coder, options: options) {
        case .success(let image):
            return ImageLoadResult(image: image, data: data, error: nil, isFinished: true, response: response)
        case .failure(let error):
            return .failure(error, response: response)
        }
    }
}
