import WebImageCodecs
import Synchronization

/// Holds a token that may arrive after cancellation was requested; cancels it either way.
package final class CancellableBox: Sendable {
    private let state = Mutex<(token: (any ImageLoadCancellable)?, cancelled: Bool)>((nil, false))

    package init() {}

    package func set(_ token: (any ImageLoadCancellable)?) {
        let cancelNow = state.withLock { state -> Bool in
            state.token = token
            return state.cancelled
        }
        if cancelNow { token?.cancel() }
    }

    package func cancel() {
        let token = state.withLock { state -> (any ImageLoadCancellable)? in
            state.cancelled = true
            return state.token
        }
        token?.cancel()
    }
}

/// Connects a Swift task's cancellation to an operation that may not exist yet.
final class ImageCacheCancellationHandle: Sendable {
    private let state = Mutex<(operation: (any ImageCacheOperation)?, cancelled: Bool)>((nil, false))

    /// Remembers `operation`, cancelling it at once if the task was cancelled already.
    func attach(_ operation: (any ImageCacheOperation)?) {
        let cancelNow = state.withLock { state in
            state.operation = operation
            return state.cancelled
        }
        if cancelNow { operation?.cancel() }
    }

    /// Cancels the attached operation, or the one attached later.
    func cancel() {
        let operation = state.withLock { state in
            state.cancelled = true
            return state.operation
        }
        operation?.cancel()
    }
}
