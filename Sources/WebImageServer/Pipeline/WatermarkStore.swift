import Crypto
import Foundation
import Synchronization
import WebImage

/// The server's watermark, read and decoded once: a file or bytes when the store is made, a URL
/// on the first call of ``image(download:)`` (once for every request waiting then; a failure is
/// tried again by a later request). It is at most `--max-src-bytes` long and within the source
/// resolution and ``WatermarkImage/maxPixels``.
final class WatermarkStore: Sendable {
    let source: WatermarkSource?
    /// What makes the watermark's results differ from another's (its bytes' digest or its URL, and
    /// the base opacity), for the keys of results that draw it; empty without a watermark.
    let tag: String
    private let opacity: Double
    private let maxBytes: Int
    private let maxPixels: Int
    private let coders: CodersManager
    private let loaded: Mutex<WatermarkImage?>
    private let loading = SharedJobs<WatermarkImage>()

    /// The store for `configuration`'s watermark; a file or bytes that cannot be read, are too
    /// large or do not decode throw a ``URLConfigurationError`` naming the setting.
    init(configuration: ServerConfiguration, coders: CodersManager) throws(URLConfigurationError) {
        source = configuration.watermark
        opacity = configuration.watermarkOpacity
        maxBytes = configuration.maxSourceBytes
        maxPixels = configuration.maxSourceResolution
        self.coders = coders
        var image: WatermarkImage?
        var identity = ""
        switch configuration.watermark {
        case .file(let url):
            let data = try Self.read(url, maxBytes: maxBytes)
            image = try WatermarkImage.decode(data, origin: "--watermark-path \(url.path)", opacity: opacity,
                                              maxPixels: maxPixels, coders: coders)
            identity = Self.digest(data)
        case .data(let data):
            guard data.count <= maxBytes else {
                throw URLConfigurationError("--watermark-data is \(data.count) bytes, over --max-src-bytes (\(maxBytes)).")
            }
            image = try WatermarkImage.decode(data, origin: "--watermark-data", opacity: opacity,
                                              maxPixels: maxPixels, coders: coders)
            identity = Self.digest(data)
        case .url(let url):
            identity = url.absoluteString
        case nil:
            break
        }
        loaded = Mutex(image)
        tag = configuration.watermark == nil ? "" : Self.digest(Data("\(identity) opacity \(opacity)".utf8))
    }

    /// The watermark, or nil when the server has none; a URL one is fetched with `download` the
    /// first time (a failure to fetch or decode it is a 502 `watermark_unavailable`).
    func image(download: @escaping @Sendable (URL) async throws -> Data) async throws -> WatermarkImage? {
        if let image = loaded.withLock({ $0 }) { return image }
        guard case .url(let url) = source else { return nil }
        return try await loading.value(for: "watermark") { [self] in
            if let image = loaded.withLock({ $0 }) { return image }
            let data: Data
            do {
                data = try await download(url)
            } catch let error as ServerError {
                throw ServerError(status: 502, name: "watermark_unavailable",
                                  message: "The watermark (\(url.absoluteString)) could not be fetched: \(error.message)")
            }
            do throws(URLConfigurationError) {
                let image = try WatermarkImage.decode(data, origin: url.absoluteString, opacity: opacity,
                                                      maxPixels: maxPixels, coders: coders)
                loaded.withLock { $0 = image }
                return image
            } catch {
                throw ServerError(status: 502, name: "watermark_unavailable", message: error.message)
            }
        }
    }

    private static func read(_ url: URL, maxBytes: Int) throws(URLConfigurationError) -> Data {
        let size: Int
        do {
            let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
            guard (attributes[.type] as? FileAttributeType) == .typeRegular else {
                throw URLConfigurationError("--watermark-path \(url.path) is not a regular file.")
            }
            size = (attributes[.size] as? NSNumber)?.intValue ?? 0
        } catch let error as URLConfigurationError {
            throw error
        } catch {
            throw URLConfigurationError("--watermark-path \(url.path) cannot be read: \(error.localizedDescription)")
        }
        guard size <= maxBytes else {
            throw URLConfigurationError("--watermark-path \(url.path) is \(size) bytes, over --max-src-bytes (\(maxBytes)).")
        }
        do {
            let data = try Data(contentsOf: url)
            guard data.count <= maxBytes else {
                throw URLConfigurationError("--watermark-path \(url.path) is \(data.count) bytes, over --max-src-bytes (\(maxBytes)).")
            }
            return data
        } catch let error as URLConfigurationError {
            throw error
        } catch {
            throw URLConfigurationError("--watermark-path \(url.path) cannot be read: \(error.localizedDescription)")
        }
    }

    /// 16 hex digits of the SHA-256 of `data`.
    private static func digest(_ data: Data) -> String {
        SHA256.hash(data: data).prefix(8).map { byte in
            let digits = Array("0123456789abcdef")
            return String([digits[Int(byte >> 4)], digits[Int(byte & 15)]])
        }.joined()
    }
}
