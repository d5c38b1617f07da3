#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// A stop request for synchronous image work — a decode, a transform, an encode — running on one
/// thread. ``run(_:)`` makes it the thread's current cancellation; the long loops (the JPEG
/// decoder's scans and rows, the resampler's rows, an animation's frames) look at it between row
/// blocks and frames and end early once it is cancelled. Work that ended early is never handed
/// out: ``run(_:)`` throws ``WebImageError/Code/cancelled`` instead of its value.
///
/// A server cancels it from another thread when the request it works for times out or its client
/// goes away, so the thread is free for other work within a row block's time.
public final class WorkCancellation: Sendable {
    private let flag = Atomic<Bool>(false)

    /// A cancellation not yet cancelled.
    public init() {}

    /// Asks the work to stop; safe from any thread, any number of times.
    public func cancel() { flag.store(true, ordering: .relaxed) }

    /// Whether ``cancel()`` was called.
    public var isCancelled: Bool { flag.load(ordering: .relaxed) }

    /// Runs `body` on this thread with this cancellation current. Returns its value, or throws
    /// ``WebImageError/Code/cancelled`` when the cancellation was cancelled by the time `body`
    /// ended (its value, possibly incomplete, is dropped), whatever `body` returned or threw.
    public func run<T>(_ body: () throws -> T) throws -> T {
        let previous = pthread_getspecific(Self.key)
        pthread_setspecific(Self.key, Unmanaged.passUnretained(self).toOpaque())
        defer { pthread_setspecific(Self.key, previous) }
        let result = Result { try body() }
        if isCancelled { throw WebImageError(.cancelled, "The work was cancelled.") }
        return try result.get()
    }

    /// Whether the work running on this thread was asked to stop (false outside ``run(_:)``).
    public static var isCurrentCancelled: Bool { current?.isCancelled ?? false }

    /// Throws ``WebImageError/Code/cancelled`` when the work running on this thread was asked to stop.
    public static func checkCurrent() throws {
        if isCurrentCancelled { throw WebImageError(.cancelled, "The work was cancelled.") }
    }

    /// The cancellation current on this thread, if any.
    static var current: WorkCancellation? {
        guard let pointer = pthread_getspecific(key) else { return nil }
        return Unmanaged<WorkCancellation>.fromOpaque(pointer).takeUnretainedValue()
    }

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        let status = pthread_key_create(&key, nil)
        precondition(status == 0, "no thread-specific key for WorkCancellation")
        return key
    }()
}
