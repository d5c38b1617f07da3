import Synchronization

/// Holds a token that may arrive after cancellation was requested; cancels it either way.
final class CancellableBox: Sendable {
    private let state = Mutex<(token: (any ImageLoadCancellable)?, cancelled: Bool)>((nil, false))

    func set(_ token: (any ImageLoadCancellable)?) {
        let cancelNow = state.withLock { state -> Bool in
            state.token = token
            return state.cancelled
        }
        if cancelNow { token?.cancel() }
    }

    func cancel() {
        let token = state.withLock { state -> (any ImageLoadCancellable)? in
            state.cancelled = true
            return state.token
        }
        token?.cancel()
    }
}
