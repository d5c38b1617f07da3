import Foundation
import WebImage

/// What `webimage animate` plays: a file path, or a URL loaded as `get` loads it (http(s), file:,
/// data:) but without the caches.
enum AnimateInput {
    /// The schemes read as URLs; anything else is a file path.
    static let urlSchemes: Set<String> = ["http", "https", "file", "data"]

    /// The decoded image at `text`; throws a ``WebImageError`` a person can act on.
    static func load(_ text: String) async throws -> Image {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), urlSchemes.contains(scheme) else {
            return try CodersManager.shared.decode(try DecodeCommand.read(text), options: .default)
        }
        let downloader = ImageDownloader()
        let loaders = LoadersManager(loaders: [downloader, FileImageLoader(), DataURLImageLoader()])
        let result: ImageLoadResult
        do {
            result = try await loaders.loadImage(url)
        } catch {
            try? await downloader.shutdown()
            throw error
        }
        try? await downloader.shutdown()
        guard let image = result.image else {
            throw WebImageError(.badImageData, "No image was delivered for \(text).", url: url)
        }
        return image
    }
}
