import Dispatch

/// Runs a request's decode, transform and encode (and its disk reads and writes) on a thread of
/// Dispatch's global pool: the event loops (Swift's global executor in `webimage serve`) stay free
/// to answer cache hits and move bytes while a worker slot's work takes milliseconds.
enum CPUWork {
    /// `work`'s result, computed on a global-pool thread.
    static func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global(qos: .userInitiated).async {
                continuation.resume(with: Result { try work() })
            }
        }
    }
}
