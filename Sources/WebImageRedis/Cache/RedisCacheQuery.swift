import Synchronization
import WebImageLoading

/// One Redis cache query: completes exactly once, with its result or, when cancelled first, with
/// ``ImageCacheQueryResult/none`` on the callback queue.
final class RedisCacheQuery: ImageCacheOperation {
    private struct State {
        var completion: (@Sendable (ImageCacheQueryResult) -> Void)?
        var task: Task<Void, Never>?
    }

    private let state: Mutex<State>
    private let callbackQueue: CallbackQueue

    init(callbackQueue: CallbackQueue, completion: @escaping @Sendable (ImageCacheQueryResult) -> Void) {
        state = Mutex(State(completion: completion))
        self.callbackQueue = callbackQueue
    }

    var isFinished: Bool { state.withLock { $0.completion == nil } }

    func attach(_ task: Task<Void, Never>) {
        let finished = state.withLock { state -> Bool in
            if state.completion == nil { return true }
            state.task = task
            return false
        }
        if finished { task.cancel() }
    }

    func finish(_ result: ImageCacheQueryResult) {
        guard let completion = take() else { return }
        callbackQueue.execute { completion(result) }
    }

    func cancel() {
        let (completion, task) = state.withLock { state in
            defer { state.completion = nil; state.task = nil }
            return (state.completion, state.task)
        }
        task?.cancel()
        guard let completion else { return }
        callbackQueue.execute { completion(.none) }
    }

    private func take() -> (@Sendable (ImageCacheQueryResult) -> Void)? {
        state.withLock { state in
            defer { state.completion = nil; state.task = nil }
            return state.completion
        }
    }
}
