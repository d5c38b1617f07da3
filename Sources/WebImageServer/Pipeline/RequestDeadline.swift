/// A request's time limit: the work races a timer, and when the timer wins the work's task is
/// cancelled and the request answered with 504 (the shared job it waited for goes on for others).
enum RequestDeadline {
    /// `work`'s value, or ``ServerError/requestTimeout(_:)`` after `seconds` (0 or less: no limit).
    static func run<T: Sendable>(seconds: Double, _ work: @escaping @Sendable () async throws -> T) async throws -> T {
        guard seconds > 0 else { return try await work() }
        return try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await work() }
            group.addTask {
                try await Task.sleep(for: .milliseconds(Int64(seconds * 1000)))
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let value = first else {
                throw ServerError.requestTimeout(seconds)
            }
            return value
        }
    }
}
