import WebImageCodecs
import WebImageLoading
import Foundation

extension ImagePrefetcher {
    /// Prefetches `urls` and returns when all have finished: how many, and how many were skipped
    /// (ended without an image, as in ``prefetchURLs(_:options:context:progress:completed:)``).
    /// Cancelling the calling task cancels the request and returns the counts reached so far.
    @discardableResult
    public func prefetch(_ urls: [URL], options: WebImageOptions? = nil,
                         context: WebImageContext? = nil) async -> (finished: Int, skipped: Int) {
        let counts: PrefetchCounts = await awaitCallback { deliver in
            let token = prefetchURLs(urls, options: options, context: context,
                                     completed: { finished, skipped in deliver(PrefetchCounts(finished, skipped)) })
            // No token: nothing to prefetch, and the completion has run.
            return token.map { PrefetchCancellation(token: $0, deliver: deliver) }
        }
        return (counts.finished, counts.skipped)
    }
}

/// A prefetch request's counts, as ``ImagePrefetcher/prefetch(_:options:context:)`` returns them.
private struct PrefetchCounts: Sendable {
    let finished: Int
    let skipped: Int
    init(_ finished: Int, _ skipped: Int) {
        self.finished = finished
        self.skipped = skipped
    }
}

/// Cancels a prefetch request for a cancelled task and answers with the counts reached so far
/// (the request's completion never runs after a cancel).
private struct PrefetchCancellation: WebImageOperation {
    let token: ImagePrefetchToken
    let deliver: @Sendable (PrefetchCounts) -> Void

    func cancel() {
        token.cancel()
        deliver(PrefetchCounts(token.finishedCount, token.skippedCount))
    }
}
