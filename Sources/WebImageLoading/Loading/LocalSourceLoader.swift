import WebImageCodecs
import Foundation

/// Loads `local:///path` URLs from files under one root directory, as imgproxy's `local://`
/// sources: `local:///photos/a.jpg` is `ROOT/photos/a.jpg`.
///
/// Nothing outside the root is read, however the path is spelled: a `..` segment (also as
/// `%2e%2e`, or after `%2F`) and a path whose real location, symbolic links followed, is outside
/// the root fail with ``WebImageError/Code/sourceNotAllowed``. A missing file, or one that is not
/// a regular file (a directory, a FIFO, a device), fails with
/// ``WebImageError/Code/invalidDownloadStatusCode`` and ``WebImageError/httpStatus`` 404, as an
/// origin's 404 does; a file over the size limit (the loader's, tightened by
/// ``WebImageContext/maximumResponseSize``) with ``WebImageError/Code/responseTooLarge``, before
/// it is read. Add it to a ``LoadersManager`` (or pass it to an image manager) to load such URLs.
public struct LocalSourceLoader: ImageLoading {
    private let paths: LocalSourcePath
    /// Files larger than this are refused with ``WebImageError/Code/responseTooLarge``.
    public var maximumFileSize: Int

    /// A loader for files under `root`, which must be an existing directory (else
    /// ``WebImageError/Code/invalidURL``); its real path (links followed) is what files must lie
    /// under. Files over `maximumFileSize` bytes are refused.
    public init(root: URL, maximumFileSize: Int = DownloaderConfig.defaultMaximumResponseSize) throws(WebImageError) {
        paths = try LocalSourcePath(root: root)
        self.maximumFileSize = maximumFileSize
    }

    /// The root's real path.
    public var root: URL { URL(fileURLWithPath: paths.root, isDirectory: true) }

    /// True for `local:` URLs.
    public func canRequest(_ url: URL) -> Bool { url.scheme?.lowercased() == "local" }

    /// The checks of a `local:` URL that need no file system: ``WebImageError/Code/invalidURL``
    /// for one that is not `local:///path`, ``WebImageError/Code/sourceNotAllowed`` for a `..`
    /// segment in any spelling.
    public static func check(_ url: URL) throws(WebImageError) {
        if case .failure(let error) = LocalSourcePath.relativePath(of: url) { throw error }
    }

    /// Resolves, reads and decodes the file off the caller's thread. Reports progress (0, -1),
    /// then (size, size).
    @discardableResult
    public func requestImage(with url: URL, options: WebImageOptions, context: WebImageContext,
                             progress: ImageLoadProgress?,
                             completion: @escaping ImageLoadCompletion) -> (any ImageLoadCancellable)? {
        if case .failure(let error) = LocalSourcePath.relativePath(of: url) {
            completion(.failure(error))
            return nil
        }
        let token = LocalLoadToken(url: url, completion: completion)
        let decodeOptions = LoaderDecoding.decodeOptions(url: url, options: options, context: context)
        let coder = LoaderDecoding.coder(for: context, options: options)
        let limit = min(maximumFileSize, context.maximumResponseSize ?? .max)
        let paths = paths
        token.start {
            progress?(0, -1, url)
            return LoaderDecoding.wholeFile(Self.read(url, paths: paths, limit: limit), url: url, statusCode: 200, coder: coder,
                                            options: decodeOptions, progress: progress)
        }
        return token
    }

    private static func read(_ url: URL, paths: LocalSourcePath, limit: Int) -> Result<Data, WebImageError> {
        let relative: String
        switch LocalSourcePath.relativePath(of: url) {
        case .success(let path): relative = path
        case .failure(let error): return .failure(error)
        }
        switch paths.resolve(url) {
        case .success(let real): return LocalFileReader.read(real, limit: limit, shownAs: relative, url: url)
        case .failure(let error): return .failure(error)
        }
    }
}
