import WebImageCodecs
import Synchronization

/// A query of an ``ImageCache`` whose disk step has not delivered yet (SDWebImage's
/// `SDImageCacheToken`). It owns the completion, so the result, a cancellation, or nothing at all
/// reaches the caller exactly once.
public final class ImageCacheQueryToken: ImageCacheOperation {
    /// The key being looked up.
    public let key: String
    private let callbackQueue: CallbackQueue
    private let state: Mutex<State>

    private struct State {
        var completion: (@Sendable (ImageCacheQueryResult) -> Void)?
        var cancelled = false
    }

    init(key: String, callbackQueue: CallbackQueue,
         completion: @escaping @Sendable (ImageCacheQueryResult) -> Void) {
        self.key = key
        self.callbackQueue = callbackQueue
        state = Mutex(State(completion: completion))
    }

    /// Calls the completion with ``ImageCacheQueryResult/none`` through the callback queue (inline
    /// when already on it) and drops the result still to come. Does nothing once completed.
    public func cancel() {
        let completion: (@Sendable (ImageCacheQueryResult) -> Void)? = state.withLock { state in
            defer { state.completion = nil }
            if state.completion != nil { state.cancelled = true }
            return state.completion
        }
        guard let completion else { return }
        callbackQueue.execute { completion(.none) }
    }

    /// True once ``cancel()`` took effect.
    public var isCancelled: Bool { state.withLock { $0.cancelled } }

    /// True once the completion has been called or scheduled (result or cancellation).
    public var isFinished: Bool { state.withLock { $0.completion == nil } }

    /// Delivers `result` unless already finished: inline when `synchronously`, else through the
    /// callback queue.
    func finish(_ result: ImageCacheQueryResult, synchronously: Bool) {
        let completion = state.withLock { state in
            defer { state.completion = nil }
            return state.completion
        }
        guard let completion else { return }
        if synchronously {
            completion(result)
        } else {
            callbackQueue.execute { completion(result) }
        }
    }
}
