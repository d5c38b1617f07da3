import Dispatch
import WebImage

/// Runs a request's decode, transform and encode (and its disk reads and writes) on a thread of
/// Dispatch's global pool: the event loops (Swift's global executor in `webimage serve`) stay free
/// to answer cache hits and move bytes while a worker slot's work takes milliseconds.
enum CPUWork {
    /// `work`'s result, computed on a global-pool thread. When the calling task is cancelled (its
    /// request timed out or its client left), the work is told through its ``WorkCancellation``,
    /// stops at its next row block or frame, and this throws `CancellationError`.
    static func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        let cancellation = WorkCancellation()
        let result: Result<T, any Error> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                DispatchQueue.global(qos: .userInitiated).async {
                    guard !cancellation.isCancelled else {
                        return continuation.resume(returning: .failure(CancellationError()))
                    }
                    continuation.resume(returning: Result { try cancellation.run(work) })
                }
            }
        } onCancel: {
            cancellation.cancel()
        }
        if cancellation.isCancelled { throw CancellationError() }
        return try result.get()
    }
}
