import WebImageCodecs
import WebImageLoading
import Foundation
import Synchronization

/// Called after each URL of a prefetch request finishes: URLs finished so far and in total.
public typealias ImagePrefetchProgress = @Sendable (_ finishedCount: Int, _ totalCount: Int) -> Void
/// Called once when every URL of a prefetch request has finished: how many, and how many were
/// skipped (ended without an image; see ``ImagePrefetcher/prefetchURLs(_:options:context:progress:completed:)``).
public typealias ImagePrefetchCompletion = @Sendable (_ finishedCount: Int, _ skippedCount: Int) -> Void

/// One ``ImagePrefetcher/prefetchURLs(_:options:context:progress:completed:)`` request
/// (SDWebImage's `SDWebImagePrefetchToken`): its URLs, its counts, and ``cancel()``.
public final class ImagePrefetchToken: Sendable {
    /// The URLs this request prefetches, duplicates included.
    public let urls: [URL]
    let options: WebImageOptions
    let context: WebImageContext
    let callbackQueue: CallbackQueue
    private let prefetcher: ImagePrefetcher

    /// The request's blocks, until its last URL finished or it was cancelled.
    private struct Blocks: Sendable {
        var progress: ImagePrefetchProgress?
        var completed: ImagePrefetchCompletion?
    }

    /// The blocks, and the loads in flight by their index in ``urls``.
    private let once: ExactlyOnce<Blocks, [Int: ImageManagerOperation]>
    private let counts = Mutex((finished: 0, skipped: 0))

    init(urls: [URL], options: WebImageOptions, context: WebImageContext, callbackQueue: CallbackQueue,
         prefetcher: ImagePrefetcher, progress: ImagePrefetchProgress?, completed: ImagePrefetchCompletion?) {
        self.urls = urls
        self.options = options
        self.context = context
        self.callbackQueue = callbackQueue
        self.prefetcher = prefetcher
        once = ExactlyOnce(Blocks(progress: progress, completed: completed))
    }

    /// URLs finished so far (loaded or failed).
    public var finishedCount: Int { counts.withLock { $0.finished } }

    /// URLs that ended without an image so far: failures, and loads that could not load
    /// (a `fromCacheOnly` miss, a download the delegate or the loader declined).
    public var skippedCount: Int { counts.withLock { $0.skipped } }

    /// True once ``cancel()`` ran.
    public var isCancelled: Bool { once.isCancelled }

    /// Stops this request: queued URLs are dropped, loads in flight are cancelled, and neither the
    /// progress nor the completion block runs again. The request stops counting as running at once.
    /// Does nothing once every URL has finished.
    public func cancel() {
        guard let (_, operations) = once.cancel() else { return }
        prefetcher.remove(self)
        for operation in (operations ?? [:]).values { operation.cancel() }
    }

    /// Keeps `operation` for ``cancel()`` unless it has already ended or the request was cancelled
    /// (then it is cancelled here).
    func track(_ operation: ImageManagerOperation, at index: Int) {
        let kept = once.updateStage { operations in
            guard !operation.isFinished else { return }
            var running = operations ?? [:]
            running[index] = operation
            operations = running
        }
        if !kept { operation.cancel() }
    }

    /// Counts one finished URL; returns the counts and blocks to report with, or nil once cancelled.
    func recordFinished(at index: Int, failed: Bool)
        -> (finished: Int, skipped: Int, progress: ImagePrefetchProgress?, completed: ImagePrefetchCompletion?)? {
        guard once.updateStage({ $0?[index] = nil }) else { return nil }
        let (finished, skipped) = counts.withLock { counts in
            counts.finished += 1
            if failed { counts.skipped += 1 }
            return counts
        }
        let last = finished == urls.count
        // The last URL ends the request (its blocks are taken once); a cancel that won gets nothing.
        guard let blocks = last ? once.end() : once.receiver else { return nil }
        return (finished, skipped, blocks.progress, last ? blocks.completed : nil)
    }
}
