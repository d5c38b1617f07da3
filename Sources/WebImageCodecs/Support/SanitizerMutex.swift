#if WEBIMAGE_TSAN
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A pthread-backed stand-in for `Synchronization.Mutex`, compiled only with
/// `-Xswiftc -DWEBIMAGE_TSAN` (`make tsan`).
///
/// ThreadSanitizer on this toolchain does not see `Synchronization.Mutex` hand the lock over
/// (its futex path is not instrumented), so every access under it looks like a race. TSan
/// intercepts `pthread_mutex_lock`/`unlock`, so with this type in place a report means a real race.
/// Declared in this module, it shadows the imported `Mutex`; every other target that locks
/// declares `typealias Mutex<Value: ~Copyable> = WebImageCodecs.Mutex<Value>` under the same flag.
/// `@unchecked Sendable`: `value` is only touched with `lock` (the pthread mutex) held.
package final class Mutex<Value: ~Copyable>: @unchecked Sendable {
    private let lock: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value

    /// Creates a mutex that protects `initialValue`.
    package init(_ initialValue: consuming sending Value) {
        lock = .allocate(capacity: 1)
        let status = pthread_mutex_init(lock, nil)
        precondition(status == 0, "pthread_mutex_init failed: \(status)")
        value = initialValue
    }

    deinit {
        pthread_mutex_destroy(lock)
        lock.deallocate()
    }

    /// Runs `body` with exclusive access to the protected value, as `Synchronization.Mutex` does.
    package func withLock<Result: ~Copyable, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        let locked = pthread_mutex_lock(lock)
        precondition(locked == 0, "pthread_mutex_lock failed: \(locked)")
        defer { pthread_mutex_unlock(lock) }
        return try body(&value)
    }
}
#endif
