import WebImageCodecs
import Foundation

/// Several loaders behind one: the **last** added has the highest priority, and a request goes to
/// the first loader (from the highest down) that can request the URL (SDWebImage's rule).
public final class LoadersManager: ImageLoading {
    private let state: PriorityList<any ImageLoading>

    /// The default set: `file:` and `data:` URLs, then HTTP(S) through ``ImageDownloader/shared``.
    public static let shared = LoadersManager(loaders: [
        ImageDownloader.shared, FileImageLoader(), DataURLImageLoader(),
    ])

    /// A manager over `loaders`, lowest priority first.
    public init(loaders: [any ImageLoading] = []) {
        state = PriorityList(loaders)
    }

    /// The loaders, lowest priority first.
    public var loaders: [any ImageLoading] {
        get { state.elements }
        set { state.elements = newValue }
    }

    /// Adds `loader` with the highest priority.
    public func addLoader(_ loader: any ImageLoading) {
        state.add(loader)
    }

    /// Removes every loader of the same type as `loader`.
    public func removeLoader(_ loader: any ImageLoading) {
        let type = ObjectIdentifier(Swift.type(of: loader))
        state.removeAll { ObjectIdentifier(Swift.type(of: $0)) == type }
    }

    /// The loader that would handle `url`, if any.
    public func loader(for url: URL) -> (any ImageLoading)? {
        state.highest { $0.canRequest(url) }
    }

    /// True when some loader accepts `url`.
    public func canRequest(_ url: URL) -> Bool { loader(for: url) != nil }

    /// Hands the request to the chosen loader. With none, completes with
    /// ``WebImageError/Code/invalidURL`` and returns nil.
    @discardableResult
    public func requestImage(with url: URL, options: WebImageOptions, context: WebImageContext,
                             progress: ImageLoadProgress?,
                             completion: @escaping ImageLoadCompletion) -> (any ImageLoadCancellable)? {
        guard let loader = loader(for: url) else {
            completion(.failure(WebImageError(.invalidURL, "No loader can load this URL; add one that handles its scheme.", url: url)))
            return nil
        }
        return loader.requestImage(with: url, options: options, context: context, progress: progress,
                                   completion: completion)
    }

    /// The chosen loader's answer; false when no loader handles `url`.
    public func shouldBlockFailedURL(_ url: URL, error: any Error) -> Bool {
        loader(for: url)?.shouldBlockFailedURL(url, error: error) ?? false
    }
}
