import WebImageCodecs
import WebImageLoading
import Foundation
import Synchronization

/// One ``ImageManager`` load: the cache query and then the loader request behind it
/// (SDWebImage's `SDWebImageCombinedOperation`).
///
/// It owns the caller's completion, so a load reports exactly one final result however it ends;
/// ``cancel()`` reports ``WebImageError/Code/cancelled`` at once and drops anything later.
public final class ImageManagerOperation: ImageLoadCancellable {
    /// What the caller is told: a result (`isLast` false when more will follow: partial images, and
    /// the cached image of a `refreshCached` load), or that the load ended with nothing more to say.
    enum Event: Sendable {
        case result(ImageManagerResult, isLast: Bool)
        case endedSilently
    }
    typealias Delivery = @Sendable (Event) -> Void

    /// Who hears about the load: a completion (results only) or an event handler (everything).
    enum Receiver: Sendable {
        case completion(@Sendable (ImageManagerResult) -> Void)
        case events(Delivery)

        func receive(_ event: Event) {
            switch self {
            case .completion(let completion):
                if case .result(let result, _) = event { completion(result) }
            case .events(let delivery):
                delivery(event)
            }
        }
    }

    private struct State {
        var cancelled = false
        var ended = false
        var cacheOperation: (any ImageCacheOperation)?
        var loaderOperation: (any ImageLoadCancellable)?
        var delivery: Receiver?
        /// The manager whose running set holds this operation, told when it ends.
        weak var manager: ImageManager?
    }

    private let state: Mutex<State>
    /// The URL being loaded.
    public let url: URL?
    let callbackQueue: CallbackQueue

    init(url: URL?, callbackQueue: CallbackQueue, delivery: Receiver) {
        self.url = url
        self.callbackQueue = callbackQueue
        state = Mutex(State(delivery: delivery))
    }

    /// An operation that ended before it began: its one result is sent by the caller at once.
    init(finishedWith url: URL?, callbackQueue: CallbackQueue) {
        self.url = url
        self.callbackQueue = callbackQueue
        state = Mutex(State(ended: true))
    }

    /// True once ``cancel()`` took effect.
    public var isCancelled: Bool { state.withLock { $0.cancelled } }

    /// True once the final result has been delivered (or cancellation reported).
    public var isFinished: Bool { state.withLock { $0.ended } }

    /// The cache query in flight; nil once the load has moved on to the loader.
    public var cacheOperation: (any ImageCacheOperation)? { state.withLock { $0.cacheOperation } }

    /// The loader request in flight, once the load reached the loader.
    public var loaderOperation: (any ImageLoadCancellable)? { state.withLock { $0.loaderOperation } }

    /// Stops the load: the cache query and the loader request are cancelled, the caller gets one
    /// result with ``WebImageError/Code/cancelled``, and nothing after it. Idempotent; does nothing
    /// once the load has finished.
    public func cancel() {
        let taken = state.withLock { state -> (State, Bool) in
            guard !state.ended else { return (state, false) }
            let copy = state
            state.cancelled = true
            state.ended = true
            state.cacheOperation = nil
            state.loaderOperation = nil
            state.delivery = nil
            state.manager = nil
            return (copy, true)
        }
        guard taken.1 else { return }
        let old = taken.0
        old.cacheOperation?.cancel()
        old.loaderOperation?.cancel()
        old.manager?.unregister(self)
        if let delivery = old.delivery {
            let result = ImageManagerResult.failure(
                WebImageError(.cancelled, "The image load was cancelled."), url: url)
            send(result, isLast: true, to: delivery)
        }
    }

    /// Hands `event` to `delivery` on the callback queue, inline when the queue allows it.
    private func send(_ event: Event, to receiver: Receiver) {
        if callbackQueue.runsInline {
            receiver.receive(event)
        } else {
            callbackQueue.execute { receiver.receive(event) }
        }
    }

    /// Sends a result on the callback queue; a completion handler gets it without the event wrapper.
    func send(_ result: ImageManagerResult, isLast: Bool, to receiver: Receiver) {
        guard case .completion(let completion) = receiver else {
            return send(.result(result, isLast: isLast), to: receiver)
        }
        if callbackQueue.runsInline {
            completion(result)
        } else {
            callbackQueue.execute { completion(result) }
        }
    }

    // MARK: Pipeline side

    /// Joins `manager`'s running set; false when the load already ended (nothing to track).
    func attach(to manager: ImageManager) -> Bool {
        state.withLock { state in
            guard !state.ended else { return false }
            state.manager = manager
            return true
        }
    }

    /// Records the cache query; cancels it at once if the load was cancelled meanwhile.
    func setCacheOperation(_ operation: (any ImageCacheOperation)?) {
        let cancelled = state.withLock { state -> Bool in
            if !state.ended { state.cacheOperation = operation }
            return state.cancelled
        }
        if cancelled { operation?.cancel() }
    }

    /// Records the loader request (the cache step is over); cancels it at once if the load was
    /// cancelled meanwhile.
    func setLoaderOperation(_ operation: (any ImageLoadCancellable)?) {
        let cancelled = state.withLock { state -> Bool in
            state.cacheOperation = nil
            if !state.ended { state.loaderOperation = operation }
            return state.cancelled
        }
        if cancelled { operation?.cancel() }
    }

    /// Delivers a result more will follow (a partial image, or the cached image before a refresh),
    /// unless the load has ended.
    func deliverIntermediate(_ result: ImageManagerResult) {
        guard let delivery = state.withLock({ $0.ended ? nil : $0.delivery }) else { return }
        send(result, isLast: false, to: delivery)
    }

    /// Delivers the final result and ends the load, unless it has already ended.
    func deliverFinal(_ result: ImageManagerResult) {
        let taken = state.withLock { state -> (Receiver?, ImageManager?)? in
            guard !state.ended else { return nil }
            state.ended = true
            defer { state.delivery = nil; state.manager = nil; state.cacheOperation = nil }
            return (state.delivery, state.manager)
        }
        guard let taken else { return }
        taken.1?.unregister(self)
        if let delivery = taken.0 { send(result, isLast: true, to: delivery) }
    }

    /// Ends the load without another result (a `refreshCached` revalidation answered 304).
    func endSilently() {
        let taken = state.withLock { state -> (Receiver?, ImageManager?)? in
            guard !state.ended else { return nil }
            state.ended = true
            defer { state.delivery = nil; state.manager = nil }
            return (state.delivery, state.manager)
        }
        guard let taken else { return }
        taken.1?.unregister(self)
        if let delivery = taken.0 { send(.endedSilently, to: delivery) }
    }
}
