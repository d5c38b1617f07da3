import Dispatch
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// One connection and the serial queue that uses it: blocking hiredis calls run there, one at a
/// time, so they never hold a thread of Swift's cooperative pool or a NIO event loop. The
/// connection is opened on first use and again after it broke.
final class RedisLane: Sendable {
    private let configuration: RedisConfiguration
    private let queue: DispatchQueue
    /// Touched only on `queue`; the Mutex makes that visible to the compiler.
    private let connection = Mutex<RedisConnection?>(nil)

    /// Marks `queue`, so a blocking call made on it is recognised.
    private static let laneKey = DispatchSpecificKey<ObjectIdentifier>()

    init(configuration: RedisConfiguration, index: Int) {
        self.configuration = configuration
        queue = DispatchQueue(label: "webimage.redis.lane\(index)")
        queue.setSpecific(key: Self.laneKey, value: ObjectIdentifier(self))
    }

    /// Whether the calling code runs on this lane's queue (in a `done` callback).
    var isCurrent: Bool { DispatchQueue.getSpecific(key: Self.laneKey) == ObjectIdentifier(self) }

    /// Runs `body` on this lane's connection (connecting first if needed), unless `deadline`
    /// (uptime nanoseconds) has passed before its turn came: then it fails with
    /// ``RedisError/Kind/deadline`` without touching Redis.
    func run<T: Sendable>(deadline: UInt64,
                          _ body: @escaping @Sendable (RedisConnection) throws(RedisError) -> T) async -> Result<T, RedisError> {
        await withCheckedContinuation { continuation in
            queue.async {
                continuation.resume(returning: self.runNow(deadline: deadline, body))
            }
        }
    }

    /// Like ``run(deadline:_:)``, blocking the calling thread: until `deadline` for `body`'s turn,
    /// then for `body` itself (which the connection's timeouts bound). When the turn has not come
    /// by `deadline`, it fails with ``RedisError/Kind/deadline`` and `body` never runs. Called on
    /// this lane's own queue (where its turn could never come), it fails at once with
    /// ``RedisError/Kind/reentrant``.
    func runBlocking<T: Sendable>(deadline: UInt64,
                                  _ body: @escaping @Sendable (RedisConnection) throws(RedisError) -> T) -> Result<T, RedisError> {
        guard !isCurrent else {
            return .failure(RedisError(.reentrant, "a blocking call on the connection's own queue (from a done callback) would never return"))
        }
        let turn = BlockingTurn<T>()
        queue.async {
            guard turn.start() else { return }
            turn.finish(self.runNow(deadline: deadline, body))
        }
        return turn.wait(until: deadline)
    }

    /// Like ``run(deadline:_:)``, but without waiting for the answer.
    func enqueue(deadline: UInt64, _ body: @escaping @Sendable (Result<RedisConnection, RedisError>) -> Void) {
        queue.async {
            let result = self.runNow(deadline: deadline) { connection throws(RedisError) in connection }
            body(result)
        }
    }

    /// Closes the connection (after the work already queued).
    func close() {
        queue.async { self.connection.withLock { $0?.close(); $0 = nil } }
    }

    private func runNow<T>(deadline: UInt64,
                           _ body: (RedisConnection) throws(RedisError) -> T) -> Result<T, RedisError> {
        guard DispatchTime.now().uptimeNanoseconds < deadline else {
            return .failure(RedisError(.deadline, "waited longer than the operation timeout for a connection"))
        }
        Self.ignoreSIGPIPEOnThisThread()
        defer { Self.discardPendingSIGPIPE() }
        return connection.withLock { current -> Result<T, RedisError> in
            do throws(RedisError) {
                if current == nil || current?.isOpen == false {
                    current = try RedisConnection(configuration)
                }
                let result = try body(current!)
                if current?.isOpen == false { current = nil }
                return .success(result)
            } catch {
                if error.kind != .reply { current?.close(); current = nil }
                return .failure(error)
            }
        }
    }

    /// hiredis writes with `write(2)`: on a connection Redis closed that raises SIGPIPE, which would
    /// end the process. Blocking it on the lane's thread turns it into EPIPE, a connection error.
    private static func ignoreSIGPIPEOnThisThread() {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGPIPE)
        pthread_sigmask(SIG_BLOCK, &set, nil)
    }

    /// Takes a SIGPIPE the last call raised off the pending set, so it never fires later on a
    /// thread that unblocks it.
    private static func discardPendingSIGPIPE() {
        var pending = sigset_t()
        sigpending(&pending)
        guard sigismember(&pending, SIGPIPE) == 1 else { return }
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGPIPE)
        var zero = timespec()
        _ = sigtimedwait(&set, nil, &zero)
    }
}
