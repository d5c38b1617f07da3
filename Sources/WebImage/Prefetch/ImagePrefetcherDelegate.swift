import WebImageCodecs
import WebImageLoading
import Foundation

/// Hears about every prefetched URL and about the end of all prefetching
/// (SDWebImage's `SDWebImagePrefetcherDelegate`). Both methods have empty defaults.
///
/// Called on the finishing request's callback queue, before that request's own progress and
/// completion blocks; the counts add up every request still running, not just one.
public protocol ImagePrefetcherDelegate: AnyObject, Sendable {
    /// A URL finished (loaded or failed): `finishedCount` of `totalCount` URLs across all running requests.
    func imagePrefetcher(_ prefetcher: ImagePrefetcher, didPrefetch url: URL, finishedCount: Int, totalCount: Int)

    /// The last running request finished: the totals of the requests that were running together.
    func imagePrefetcher(_ prefetcher: ImagePrefetcher, didFinishWithTotalCount totalCount: Int, skippedCount: Int)
}

extension ImagePrefetcherDelegate {
    /// Does nothing.
    public func imagePrefetcher(_ prefetcher: ImagePrefetcher, didPrefetch url: URL, finishedCount: Int,
                                totalCount: Int) {}

    /// Does nothing.
    public func imagePrefetcher(_ prefetcher: ImagePrefetcher, didFinishWithTotalCount totalCount: Int,
                                skippedCount: Int) {}
}
