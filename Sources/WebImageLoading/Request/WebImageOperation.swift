/// Something that can be cancelled: a manager load, a loader request, a cache query (SDWebImage's
/// `SDWebImageOperation`). Every handle the library returns conforms, so one call cancels any stage.
public protocol WebImageOperation: Sendable {
    /// Stops the work. Its completion, if it has not run yet, runs once with a cancellation (or a
    /// miss, for a cache query) and nothing later is delivered. Calling it again does nothing.
    func cancel()
}

/// A cache query in flight; the same protocol as every other cancellable stage.
public typealias ImageCacheOperation = WebImageOperation

/// A loader request in flight; the same protocol as every other cancellable stage.
public typealias ImageLoadCancellable = WebImageOperation
