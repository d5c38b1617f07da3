import WebImageCodecs
import Foundation

/// Loads `file://` URLs: reads the file off the caller's thread and decodes it with the request's
/// coder and decode options. Reports progress (0, -1) then (size, size).
public struct FileImageLoader: ImageLoading {
    /// Files larger than this are refused with ``WebImageError/Code/responseTooLarge``.
    public var maximumFileSize: Int

    /// A loader that refuses files larger than `maximumFileSize` bytes before reading them.
    public init(maximumFileSize: Int = DownloaderConfig.defaultMaximumResponseSize) {
        self.maximumFileSize = maximumFileSize
    }

    /// True for `file:` URLs.
    public func canRequest(_ url: URL) -> Bool { url.isFileURL }

    /// Reads and decodes the file off the caller's thread; a missing or oversized file fails.
    @discardableResult
    public func requestImage(with url: URL, options: WebImageOptions, context: WebImageContext,
                             progress: ImageLoadProgress?,
                             completion: @escaping ImageLoadCompletion) -> (any ImageLoadCancellable)? {
        guard url.isFileURL, !url.path.isEmpty else {
            completion(.failure(WebImageError(.invalidURL, "Not a file URL.", url: url)))
            return nil
        }
        let token = LocalLoadToken(url: url, completion: completion)
        let decodeOptions = LoaderDecoding.decodeOptions(url: url, options: options, context: context)
        let coder = LoaderDecoding.coder(for: context, options: options)
        let limit = maximumFileSize
        token.start {
            progress?(0, -1, url)
            return LoaderDecoding.wholeFile(Self.read(url, limit: limit), url: url, statusCode: 0, coder: coder,
                                            options: decodeOptions, progress: progress)
        }
        return token
    }

    private static func read(_ url: URL, limit: Int) -> Result<Data, WebImageError> {
        let path = url.path
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path) else {
            return .failure(WebImageError(.invalidURL, "The file does not exist or cannot be read.", url: url))
        }
        if let size = fileSize(attributes[.size]), size > limit {
            return .failure(WebImageError(.responseTooLarge,
                "The file is \(size) bytes, over the limit of \(limit) bytes.", url: url))
        }
        // An empty regular file reads as empty without Foundation, whose Data(contentsOf:) leaks a
        // 4 KiB buffer per empty file on Linux (found by AddressSanitizer, docs/RELIABILITY.md).
        if attributes[.type] as? FileAttributeType == .typeRegular, fileSize(attributes[.size]) == 0 {
            return .success(Data())
        }
        do {
            return .success(try Data(contentsOf: url, options: .mappedIfSafe))
        } catch {
            return .failure(WebImageError(.invalidURL, "The file cannot be read: \(error.localizedDescription)",
                                          url: url, underlying: error))
        }
    }

    private static func fileSize(_ value: Any?) -> Int? {
        switch value {
        case let number as Int: number
        case let number as UInt64: Int(clamping: number)
        case let number as NSNumber: number.intValue
        default: nil
        }
    }
}
