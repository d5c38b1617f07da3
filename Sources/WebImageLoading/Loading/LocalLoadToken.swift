import WebImageCodecs
import Foundation

/// Runs one local load (file or data URL) off the caller's thread and guarantees its completion
/// is called exactly once: with the result, or with ``WebImageError/Code/cancelled`` on cancel.
final class LocalLoadToken: ImageLoadCancellable {
    private let url: URL
    private let once: ExactlyOnce<ImageLoadCompletion, Task<Void, Never>>

    init(url: URL, completion: @escaping ImageLoadCompletion) {
        self.url = url
        once = ExactlyOnce(completion)
    }

    /// Starts `work` on a background task; its result is delivered unless cancelled first.
    func start(_ work: @escaping @Sendable () -> ImageLoadResult) {
        let task = Task.detached { [self] in
            let result = work()
            once.end()?(result)
        }
        if !once.setStage(task) { task.cancel() }
    }

    func cancel() {
        guard let (completion, task) = once.cancel() else { return }
        task?.cancel()
        completion?(.failure(WebImageError(.cancelled, "The load was cancelled.", url: url)))
    }
}
