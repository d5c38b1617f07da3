import Dispatch
import Foundation
import Logging
import Synchronization

/// The shared cache's connection to Redis: a small pool of blocking hiredis connections
/// (``RedisConfiguration/connections`` lanes, each key always on the same one), every operation
/// within a deadline, and a ``RedisBreaker`` in front so a Redis that is down or slow costs a
/// request nothing but a miss. Failures and recoveries are logged once per breaker transition.
public final class RedisClient: Sendable {
    public let configuration: RedisConfiguration
    /// Whether operations go to Redis now.
    public let breaker: RedisBreaker
    private let lanes: [RedisLane]
    let counters: RedisCounters
    private let logger: Logger

    /// A client for `configuration`. Nothing connects until the first operation.
    /// - Parameters:
    ///   - breakerPolicy: when the breaker opens and for how long.
    ///   - now: the breaker's clock, in nanoseconds from any origin (tests inject a manual one).
    ///   - logger: told each breaker transition once (warning when it opens, notice when it closes);
    ///     silent by default, as the library is.
    ///   - transition: also told each transition (old, new), after the log line.
    public init(configuration: RedisConfiguration, breakerPolicy: RedisBreaker.Policy = .init(),
                now: @escaping @Sendable () -> UInt64 = { DispatchTime.now().uptimeNanoseconds },
                logger: Logger = Logger(label: "webimage.redis", factory: { _ in SwiftLogNoOpLogHandler() }),
                transition: (@Sendable (RedisBreaker.State, RedisBreaker.State) -> Void)? = nil) {
        self.configuration = configuration
        self.logger = logger
        let counters = RedisCounters(label: "redis")
        self.counters = counters
        lanes = (0..<max(1, configuration.connections)).map { RedisLane(configuration: configuration, index: $0) }
        let address = configuration.redactedDescription
        breaker = RedisBreaker(policy: breakerPolicy, now: now) { old, new in
            switch new {
            case .open:
                counters.count(.breakerOpened)
                logger.warning("shared cache unavailable: skipping it", metadata: ["redis": "\(address)", "from": "\(old.rawValue)"])
            case .closed:
                logger.notice("shared cache reachable again", metadata: ["redis": "\(address)"])
            case .probing:
                logger.debug("shared cache: probing", metadata: ["redis": "\(address)"])
            }
            transition?(old, new)
        }
    }

    /// What the tier did so far.
    public var statistics: RedisStatistics { counters.snapshot }

    /// Calls `body` with the new counts after each one changes (replacing an earlier observer), for
    /// dashboards and for tests that wait for the tier to have done something.
    public func observeStatistics(_ body: @escaping @Sendable (RedisStatistics) -> Void) {
        counters.observe(body)
    }

    /// Returns once every write queued so far, on every connection, has been answered (or failed).
    public func flush() async {
        for lane in lanes {
            _ = await lane.run(deadline: .max) { connection throws(RedisError) in () }
        }
    }

    /// Closes every connection (after the work already queued on it).
    public func close() {
        lanes.forEach { $0.close() }
    }

    /// Runs `arguments` as one command on the lane of `routingKey`, through the breaker.
    /// - Returns: the reply, or the reason there is none (``RedisError/Kind/unavailable`` when the
    ///   breaker skipped it). Error replies are returned as ``RedisReply/error(_:)`` and count as
    ///   failures for the breaker.
    public func command(_ arguments: [Data], routingKey: Data) async -> Result<RedisReply, RedisError> {
        switch breaker.admit() {
        case .proceed: break
        case .skip:
            counters.count(.skipped)
            return .failure(RedisError(.unavailable, "breaker open"))
        case .probe:
            counters.count(.skipped)
            startProbe()
            return .failure(RedisError(.unavailable, "breaker open (probing)"))
        }
        let result = await lane(for: routingKey).run(deadline: deadline()) { connection throws(RedisError) in
            try connection.command(arguments)
        }
        record(result)
        return result
    }

    /// ``command(_:routingKey:)`` for synchronous callers (the cache protocol's validator and
    /// stored-bytes getters): blocks the calling thread at most about the operation timeout for
    /// its turn on the connection, then for the command (which the operation timeout bounds too).
    /// Called from a ``send(_:routingKey:done:)`` callback for the same connection, it fails at
    /// once with ``RedisError/Kind/reentrant``.
    public func commandBlocking(_ arguments: [Data], routingKey: Data) -> Result<RedisReply, RedisError> {
        switch breaker.admit() {
        case .proceed: break
        case .skip:
            counters.count(.skipped)
            return .failure(RedisError(.unavailable, "breaker open"))
        case .probe:
            counters.count(.skipped)
            startProbe()
            return .failure(RedisError(.unavailable, "breaker open (probing)"))
        }
        let result = lane(for: routingKey).runBlocking(deadline: deadline()) { connection throws(RedisError) in
            try connection.command(arguments)
        }
        record(result)
        return result
    }

    /// Sends `arguments` without waiting for the reply (a write-through must not delay its caller).
    /// `done` is told the reply, or nil when it failed or was skipped; it runs on the connection's
    /// queue, where a blocking call for the same connection is refused.
    public func send(_ arguments: [Data], routingKey: Data, done: (@Sendable (RedisReply?) -> Void)? = nil) {
        switch breaker.admit() {
        case .proceed: break
        case .skip:
            counters.count(.skipped)
            done?(nil)
            return
        case .probe:
            counters.count(.skipped)
            startProbe()
            done?(nil)
            return
        }
        // Writes queue behind reads; they get a longer deadline than a read waits, since nobody waits.
        let budget = UInt64(max(configuration.operationTimeoutMilliseconds, 1)) * 4_000_000
        lane(for: routingKey).enqueue(deadline: DispatchTime.now().uptimeNanoseconds + budget) { connection in
            let result: Result<RedisReply, RedisError> = connection.flatMap { connection in
                do throws(RedisError) { return .success(try connection.command(arguments)) } catch { return .failure(error) }
            }
            self.record(result)
            done?(try? result.get())
        }
    }

    private func record(_ result: Result<RedisReply, RedisError>) {
        switch result {
        case .success(.error(let message)):
            counters.count(.error)
            logger.debug("shared cache error reply", metadata: ["reply": "\(message)"])
            breaker.failed()
        case .success:
            breaker.succeeded()
        case .failure(let error) where error.kind == .deadline:
            // Waited too long in this process's own queue (a burst of work here): Redis was never
            // asked, so this says nothing about it; the breaker counts only what Redis did.
            counters.count(.queueTimeout)
        case .failure(let error) where error.kind == .reentrant:
            counters.count(.error)
            logger.debug("shared cache operation refused", metadata: ["error": "\(error)"])
        case .failure(let error):
            counters.count(.error)
            logger.debug("shared cache operation failed", metadata: ["error": "\(error)"])
            breaker.failed()
        }
    }

    /// One PING in the background; its answer closes the breaker or opens it for longer.
    private func startProbe() {
        lanes[0].enqueue(deadline: DispatchTime.now().uptimeNanoseconds + 1_000_000_000) { connection in
            let reply = connection.flatMap { connection in
                do throws(RedisError) { return .success(try connection.command([Data("PING".utf8)])) } catch { return .failure(error) }
            }
            if case .success(.status) = reply { self.breaker.succeeded() } else { self.breaker.failed() }
        }
    }

    /// The connection lane `key`'s operations run on.
    func lane(for key: Data) -> RedisLane {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in key.suffix(8) { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return lanes[Int(hash % UInt64(lanes.count))]
    }

    private func deadline() -> UInt64 {
        DispatchTime.now().uptimeNanoseconds + UInt64(max(configuration.operationTimeoutMilliseconds, 1)) * 1_000_000
    }
}
