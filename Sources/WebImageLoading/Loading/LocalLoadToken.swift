import WebImageCodecs
import Foundation
import Synchronization

/// Runs one local load (file or data URL) off the caller's thread and guarantees its completion
/// is called exactly once: with the result, or with ``WebImageError/Code/cancelled`` on cancel.
final class LocalLoadToken: ImageLoadCancellable {
    private let url: URL
    private let completion: ImageLoadCompletion
    private let state = Mutex<(finished: Bool, task: Task<Void, Never>?)>((false, nil))

    init(url: URL, completion: @escaping ImageLoadCompletion) {
        self.url = url
        self.completion = completion
    }

    /// Starts `work` on a background task; its result is delivered unless cancelled first.
    func start(_ work: @escaping @Sendable () -> ImageLoadResult) {
        let task = Task.detached { [self] in
            let result = work()
            finish(result)
        }
        state.withLock { $0.task = task }
    }

    func cancel() {
        let task = state.withLock { $0.task }
        task?.cancel()
        finish(.failure(WebImageError(.cancelled, "The load was cancelled.", url: url)))
    }

    private func finish(_ result: ImageLoadResult) {
        let first = state.withLock { state -> Bool in
            guard !state.finished else { return false }
            state.finished = true
            return true
        }
        if first { completion(result) }
    }
}
