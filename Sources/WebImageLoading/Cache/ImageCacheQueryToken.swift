import WebImageCodecs

/// A query of an ``ImageCache`` whose disk step has not delivered yet (SDWebImage's
/// `SDImageCacheToken`). It owns the completion, so the result, a cancellation, or nothing at all
/// reaches the caller exactly once.
public final class ImageCacheQueryToken: ImageCacheOperation {
    /// The key being looked up.
    public let key: String
    private let callbackQueue: CallbackQueue
    private let once: ExactlyOnce<@Sendable (ImageCacheQueryResult) -> Void, Never>

    init(key: String, callbackQueue: CallbackQueue,
         completion: @escaping @Sendable (ImageCacheQueryResult) -> Void) {
        self.key = key
        self.callbackQueue = callbackQueue
        once = ExactlyOnce(completion)
    }

    /// Calls the completion with ``ImageCacheQueryResult/none`` through the callback queue (inline
    /// when already on it) and drops the result still to come. Does nothing once completed.
    public func cancel() {
        guard let completion = once.cancel()?.receiver else { return }
        callbackQueue.execute { completion(.none) }
    }

    /// True once ``cancel()`` took effect.
    public var isCancelled: Bool { once.isCancelled }

    /// True once the completion has been called or scheduled (result or cancellation).
    public var isFinished: Bool { once.isEnded }

    /// Delivers `result` unless already finished: inline when `synchronously`, else through the
    /// callback queue.
    func finish(_ result: ImageCacheQueryResult, synchronously: Bool) {
        guard let completion = once.end() else { return }
        if synchronously {
            completion(result)
        } else {
            callbackQueue.execute { completion(result) }
        }
    }
}
