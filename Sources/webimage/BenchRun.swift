import Foundation
import Synchronization
import WebImage

/// One pass of `webimage bench`: keeps `concurrency` manager loads in flight until every URL has
/// loaded, then resumes the caller with the instant the last completion ran (or the first failure).
final class BenchRun: Sendable {
    private struct State {
        var next = 0
        var inFlight = 0
        var finished = 0
        var pumping = false
        var failure: BenchFailure?
        var continuation: CheckedContinuation<ContinuousClock.Instant, any Error>?
    }

    private let urls: [URL]
    private let concurrency: Int
    private let expected: ImageCacheType
    private let manager: ImageManager
    private let context: WebImageContext
    private let state = Mutex(State())

    init(urls: [URL], concurrency: Int, expected: ImageCacheType, manager: ImageManager, context: WebImageContext) {
        self.urls = urls
        self.concurrency = concurrency
        self.expected = expected
        self.manager = manager
        self.context = context
    }

    func start(_ continuation: CheckedContinuation<ContinuousClock.Instant, any Error>) {
        state.withLock { state in
            state.continuation = continuation
            state.pumping = true
        }
        startLoads()
    }

    /// Starts loads while there is room; the caller holds the pump. Completions that run inline
    /// find the pump taken and leave the starting to this loop, so the stack never grows with the
    /// number of URLs.
    private func startLoads() {
        while let url = nextURL() {
            // Capturing only `self` keeps the completion allocation-free (the URL comes back in the result).
            manager.loadImage(with: url, context: context) { [self] result in finish(result) }
        }
    }

    /// The next URL to load, or nil (and the pump released) when there is no room or none left.
    private func nextURL() -> URL? {
        state.withLock { state in
            guard state.failure == nil, state.inFlight < concurrency, state.next < urls.count else {
                state.pumping = false
                return nil
            }
            state.inFlight += 1
            defer { state.next += 1 }
            return urls[state.next]
        }
    }

    private func finish(_ result: ImageManagerResult) {
        let url = result.url ?? URL(fileURLWithPath: "/")
        let failure: BenchFailure? = if let error = result.error {
            BenchFailure(url: url, reason: "\(error)")
        } else if result.image == nil || result.cacheType != expected {
            BenchFailure(url: url, reason: "came from \(result.cacheType), expected \(expected)")
        } else {
            nil
        }
        // One lock per completion: it settles the counts and, when no pump is running (the
        // completion came from another thread), claims it.
        enum Next { case end(CheckedContinuation<ContinuousClock.Instant, any Error>, BenchFailure?), startLoads, nothing }
        let next = state.withLock { state -> Next in
            state.inFlight -= 1
            state.finished += 1
            if state.failure == nil, let failure { state.failure = failure }
            let over = state.finished == urls.count || (state.failure != nil && state.inFlight == 0)
            if over, let continuation = state.continuation {
                state.continuation = nil
                return .end(continuation, state.failure)
            }
            if state.pumping { return .nothing }
            state.pumping = true
            return .startLoads
        }
        switch next {
        case .end(let continuation, let failure):
            // The clock stops here, when the last completion has run, not after the hop back to
            // the awaiting task: that hop is the bench's own plumbing.
            if let failure { continuation.resume(throwing: failure) } else { continuation.resume(returning: .now) }
        case .startLoads:
            startLoads()
        case .nothing:
            break
        }
    }
}
