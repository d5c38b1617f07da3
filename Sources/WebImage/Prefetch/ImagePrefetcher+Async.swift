import WebImageCodecs
import WebImageLoading
import Foundation
import Synchronization

extension ImagePrefetcher {
    /// Prefetches `urls` and returns when all have finished: how many, and how many were skipped
    /// (ended without an image, as in ``prefetchURLs(_:options:context:progress:completed:)``).
    /// Cancelling the calling task cancels the request and returns the counts reached so far.
    @discardableResult
    public func prefetch(_ urls: [URL], options: WebImageOptions? = nil,
                         context: WebImageContext? = nil) async -> (finished: Int, skipped: Int) {
        let waiter = PrefetchWaiter()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                waiter.setContinuation(continuation)
                let token = prefetchURLs(urls, options: options, context: context,
                                         completed: { finished, skipped in waiter.resume(finished, skipped) })
                waiter.setToken(token)
                if Task.isCancelled { waiter.cancel() }
            }
        } onCancel: {
            waiter.cancel()
        }
    }
}

/// Resumes one ``ImagePrefetcher/prefetch(_:options:context:)`` call exactly once: on completion,
/// or on task cancellation with the counts reached so far.
private final class PrefetchWaiter: Sendable {
    private struct State {
        var continuation: CheckedContinuation<(finished: Int, skipped: Int), Never>?
        var token: ImagePrefetchToken?
        var cancelled = false
    }

    private let state = Mutex(State())

    func setContinuation(_ continuation: CheckedContinuation<(finished: Int, skipped: Int), Never>) {
        state.withLock { $0.continuation = continuation }
    }

    func setToken(_ token: ImagePrefetchToken?) {
        let cancelled = state.withLock { state -> Bool in
            state.token = token
            return state.cancelled
        }
        if cancelled { cancel() }
    }

    func resume(_ finished: Int, _ skipped: Int) {
        state.withLock { $0.continuation.take() }?.resume(returning: (finished, skipped))
    }

    func cancel() {
        let token = state.withLock { state -> ImagePrefetchToken? in
            state.cancelled = true
            return state.token
        }
        guard let token else { return }
        token.cancel()
        resume(token.finishedCount, token.skippedCount)
    }
}
