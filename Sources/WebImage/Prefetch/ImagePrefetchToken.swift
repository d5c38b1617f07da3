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

    struct State {
        var finished = 0
        var skipped = 0
        var cancelled = false
        var progress: ImagePrefetchProgress?
        var completed: ImagePrefetchCompletion?
        /// Loads in flight, by their index in ``urls``.
        var operations: [Int: ImageManagerOperation] = [:]
    }

    let state: Mutex<State>

    init(urls: [URL], options: WebImageOptions, context: WebImageContext, callbackQueue: CallbackQueue,
         prefetcher: ImagePrefetcher, progress: ImagePrefetchProgress?, completed: ImagePrefetchCompletion?) {
        self.urls = urls
        self.options = options
        self.context = context
        self.callbackQueue = callbackQueue
        self.prefetcher = prefetcher
        state = Mutex(State(progress: progress, completed: completed))
    }

    /// URLs finished so far (loaded or failed).
    public var finishedCount: Int { state.withLock { $0.finished } }

    /// URLs that ended without an image so far: failures, and loads that could not load
    /// (a `fromCacheOnly` miss, a download the delegate or the loader declined).
    public var skippedCount: Int { state.withLock { $0.skipped } }

    /// True once ``cancel()`` ran.
    public var isCancelled: Bool { state.withLock { $0.cancelled } }

    /// Stops this request: queued URLs are dropped, loads in flight are cancelled, and neither the
    /// progress nor the completion block runs again. The request stops counting as running at once.
    public func cancel() {
        let operations = state.withLock { state -> [ImageManagerOperation] in
            guard !state.cancelled else { return [] }
            state.cancelled = true
            state.progress = nil
            state.completed = nil
            defer { state.operations.removeAll() }
            return Array(state.operations.values)
        }
        prefetcher.remove(self)
        for operation in operations { operation.cancel() }
    }

    /// Keeps `operation` for ``cancel()`` unless it has already ended or the request was cancelled
    /// (then it is cancelled here).
    func track(_ operation: ImageManagerOperation, at index: Int) {
        let cancelled = state.withLock { state -> Bool in
            guard !state.cancelled else { return true }
            if !operation.isFinished { state.operations[index] = operation }
            return false
        }
        if cancelled { operation.cancel() }
    }

    /// Counts one finished URL; returns the counts and blocks to report with, or nil once cancelled.
    func recordFinished(at index: Int, failed: Bool)
        -> (finished: Int, skipped: Int, progress: ImagePrefetchProgress?, completed: ImagePrefetchCompletion?)? {
        state.withLock { state in
            state.operations[index] = nil
            guard !state.cancelled else { return nil }
            state.finished += 1
            if failed { state.skipped += 1 }
            let reported = (state.progress, state.finished == urls.count ? state.completed : nil)
            if state.finished == urls.count {
                state.progress = nil
                state.completed = nil
            }
            return (state.finished, state.skipped, reported.0, reported.1)
        }
    }
}
