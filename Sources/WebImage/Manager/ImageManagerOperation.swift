import WebImageCodecs
import WebImageLoading
import Foundation

/// One ``ImageManager`` load: the cache query and then the loader request behind it
/// (SDWebImage's `SDWebImageCombinedOperation`).
///
/// It owns the caller's completion, so a load reports exactly one final result however it ends;
/// ``cancel()`` reports `WebImageError/Code/cancelled` at once and drops anything later.
public final class ImageManagerOperation: WebImageOperation {
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

    /// The stage in flight: the cache query, then the loader request.
    enum Stage: Sendable {
        case cacheQuery(any ImageCacheOperation)
        case loaderRequest(any ImageLoadCancellable)

        func cancel() {
            switch self {
            case .cacheQuery(let operation): operation.cancel()
            case .loaderRequest(let operation): operation.cancel()
            }
        }
    }

    /// The stage in flight with its number: a stage's handle is recorded after the call that
    /// started it returns, by which time the stage may have finished and a later one begun (a
    /// synchronous cache answer, or a fast one, runs the next step first). The number keeps such
    /// a late record from replacing the newer stage.
    struct StageRecord: Sendable {
        let number: Int
        let stage: Stage?
    }

    /// Who hears about the load, and the manager whose running set holds it (told when it ends).
    struct Listener: Sendable {
        let receiver: Receiver
        weak var manager: ImageManager?
    }

    private let once: ExactlyOnce<Listener, StageRecord>
    /// The state of every operation that ended before it began (a memory hit, an early failure):
    /// shared, since nothing records a stage or a receiver in it, so such a load allocates only
    /// the operation it returns.
    private static let endedBeforeItBegan = ExactlyOnce<Listener, StageRecord>(ended: ())
    /// The URL being loaded.
    public let url: URL?
    let callbackQueue: CallbackQueue

    init(url: URL?, callbackQueue: CallbackQueue, delivery: Receiver) {
        self.url = url
        self.callbackQueue = callbackQueue
        once = ExactlyOnce(Listener(receiver: delivery))
    }

    /// An operation that ended before it began: its one result is sent by the caller at once.
    init(finishedWith url: URL?, callbackQueue: CallbackQueue) {
        self.url = url
        self.callbackQueue = callbackQueue
        once = Self.endedBeforeItBegan
    }

    /// True once ``cancel()`` took effect.
    public var isCancelled: Bool { once.isCancelled }

    /// True once the final result has been delivered (or cancellation reported).
    public var isFinished: Bool { once.isEnded }

    /// The cache query in flight; nil once the load has moved on to the loader.
    public var cacheOperation: (any ImageCacheOperation)? {
        if !once.isEnded, case .cacheQuery(let operation) = once.stage?.stage { return operation }
        return nil
    }

    /// The loader request, once the load reached the loader (kept after it finished).
    public var loaderOperation: (any ImageLoadCancellable)? {
        if case .loaderRequest(let operation) = once.stage?.stage { return operation }
        return nil
    }

    /// Stops the load: the cache query and the loader request are cancelled, the caller gets one
    /// result with `WebImageError/Code/cancelled`, and nothing after it. Idempotent; does nothing
    /// once the load has finished.
    public func cancel() {
        guard let (listener, record) = once.cancel() else { return }
        record?.stage?.cancel()
        listener?.manager?.unregister(self)
        if let listener {
            let result = ImageManagerResult.failure(
                WebImageError(.cancelled, "The image load was cancelled."), url: url)
            send(result, isLast: true, to: listener.receiver)
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
        once.updateReceiver { $0.manager = manager }
    }

    /// Begins the next stage (a cache query or the loader request) and returns its number, to
    /// record its handle with once the call that starts it returns.
    func beginStage() -> Int {
        var number = 0
        once.updateStage { record in
            number = (record?.number ?? 0) + 1
            record = StageRecord(number: number, stage: nil)
        }
        return number
    }

    /// Records the cache query of stage `number`, unless a later stage began meanwhile; cancels it
    /// at once if the load was cancelled.
    func setCacheOperation(_ operation: (any ImageCacheOperation)?, stage number: Int) {
        record(operation.map(Stage.cacheQuery), number: number)
    }

    /// Records the loader request of stage `number`, unless a later stage began meanwhile; cancels
    /// it at once if the load was cancelled.
    func setLoaderOperation(_ operation: (any ImageLoadCancellable)?, stage number: Int) {
        record(operation.map(Stage.loaderRequest), number: number)
    }

    private func record(_ stage: Stage?, number: Int) {
        let kept = once.updateStage { record in
            if record?.number == number { record = StageRecord(number: number, stage: stage) }
        }
        if !kept { stage?.cancel() }
    }

    /// Delivers a result more will follow (a partial image, or the cached image before a refresh),
    /// unless the load has ended.
    func deliverIntermediate(_ result: ImageManagerResult) {
        guard let listener = once.receiver else { return }
        send(result, isLast: false, to: listener.receiver)
    }

    /// Delivers the final result and ends the load, unless it has already ended.
    func deliverFinal(_ result: ImageManagerResult) {
        guard let listener = once.end() else { return }
        listener.manager?.unregister(self)
        send(result, isLast: true, to: listener.receiver)
    }

    /// Ends the load without another result (a `refreshCached` revalidation answered 304).
    func endSilently() {
        guard let listener = once.end() else { return }
        listener.manager?.unregister(self)
        send(.endedSilently, to: listener.receiver)
    }
}
