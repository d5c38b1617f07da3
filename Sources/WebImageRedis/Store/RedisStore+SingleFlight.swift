import Foundation

/// A lease on one key's work, held in Redis by one instance (`SET … NX PX`).
public struct RedisLease: Sendable {
    let name: Data
    let routingKey: Data
    let token: Data
}

/// What ``RedisStore/valueOrLease(forKey:leaseMilliseconds:waitMilliseconds:)`` found.
public enum RedisSingleFlight: Sendable {
    /// The value is in Redis (stored before, or by the instance that held the lease meanwhile).
    case found(RedisEnvelope)
    /// This instance holds the lease: do the work, ``RedisStore/store(_:metadata:forKey:ttl:done:)``
    /// the value, then ``RedisStore/release(_:)``.
    case lead(RedisLease)
    /// Do the work without a lease: Redis is unavailable, or the holder did not deliver in time.
    case alone
}

/// Cross-instance single flight: before fetching or making something not cached anywhere, an
/// instance takes a short lease; the others wait (bounded) for the value to appear instead of
/// doing the same work, so a burst of one new key across N instances does the work about once.
extension RedisStore {
    /// The value for `key`, or the lease to make it, or the word to make it alone.
    /// - Parameters:
    ///   - leaseMilliseconds: how long the lease lives if its holder never releases it (a crash).
    ///   - waitMilliseconds: how long to wait for another holder's value before working alone.
    public func valueOrLease(forKey key: String, leaseMilliseconds: Int = 10_000,
                             waitMilliseconds: Int = 5_000) async -> RedisSingleFlight {
        if let envelope = await entry(forKey: key) { return .found(envelope) }
        return await leaseOrValue(forKey: key, leaseMilliseconds: leaseMilliseconds, waitMilliseconds: waitMilliseconds)
    }

    /// ``valueOrLease(forKey:leaseMilliseconds:waitMilliseconds:)`` after the caller read `key`
    /// and found nothing: asks for the value or else the lease in one step, so a value stored
    /// (and its lease released) since the caller's read is found rather than made again; waits
    /// for the holder's value when another instance has the lease.
    ///
    /// The wait polls the value and the lease together (one `MGET`), first after 2 ms, then at
    /// intervals doubling up to 50 ms, for at most `waitMilliseconds`. A poll dropped in this
    /// process's own queue (a local burst) is skipped, not taken for a Redis failure; any other
    /// failure ends the wait (work alone).
    public func leaseOrValue(forKey key: String, leaseMilliseconds: Int = 10_000,
                             waitMilliseconds: Int = 5_000) async -> RedisSingleFlight {
        let outcome: Result<RedisLease?, RedisError>
        switch await storedOrLease(forKey: key, leaseMilliseconds: leaseMilliseconds) {
        case .success(.stored(let envelope)): return .found(envelope)
        case .success(.leased(let lease)): outcome = .success(lease)
        case .success(.held): outcome = .success(nil)
        case .success(.damaged): outcome = await tryLease(forKey: key, leaseMilliseconds: leaseMilliseconds)
        case .failure(let error): outcome = .failure(error)
        }
        switch outcome {
        case .success(let lease?):
            return .lead(lease)
        case .success(nil):
            client.counters.count(.leaseWaited)
            if let envelope = await awaitValue(forKey: key, waitMilliseconds: waitMilliseconds) {
                client.counters.count(.leaseWaitHit)
                return .found(envelope)
            }
            return .alone
        case .failure:
            return .alone
        }
    }

    /// The lease on `key`'s work when no instance holds it (`SET … NX PX`), without waiting: nil
    /// inside while another instance holds it, a failure when Redis did not answer. For work
    /// nobody needs to wait for (a revalidation while the stale value is served): the other
    /// instances skip it while one does it.
    public func tryLease(forKey key: String, leaseMilliseconds: Int) async -> Result<RedisLease?, RedisError> {
        let lease = RedisLease(name: keys.lease(key), routingKey: keys.value(key), token: Self.makeToken())
        let reply = await client.command([Data("SET".utf8), lease.name, lease.token, Data("NX".utf8),
                                          Data("PX".utf8), Data(String(min(max(leaseMilliseconds, 1), Self.longestLease)).utf8)],
                                         routingKey: lease.routingKey)
        switch reply {
        case .success(.status):
            client.counters.count(.leaseTaken)
            return .success(lease)
        case .success(.null):
            return .success(nil)
        case .success(.error(let message)):
            return .failure(RedisError(.reply, message))
        case .success:
            return .failure(RedisError(.reply, "unexpected reply to SET NX"))
        case .failure(let error):
            return .failure(error)
        }
    }

    /// What ``storedOrLease(forKey:leaseMilliseconds:)`` found.
    private enum StoredOrLease {
        case stored(RedisEnvelope)
        case leased(RedisLease)
        /// Another instance holds the lease.
        case held
        /// A value that is not a whole envelope: the caller asks for the lease alone.
        case damaged
    }

    /// `key`'s value, or else the lease on its work when no instance holds it, in one script, so
    /// nothing is stored between the read and the `SET NX`.
    private func storedOrLease(forKey key: String, leaseMilliseconds: Int) async -> Result<StoredOrLease, RedisError> {
        let lease = RedisLease(name: keys.lease(key), routingKey: keys.value(key), token: Self.makeToken())
        let script = """
            local value = redis.call('get', KEYS[1])
            if value then return {1, value} end
            if redis.call('set', KEYS[2], ARGV[1], 'NX', 'PX', ARGV[2]) then return {2} end
            return {3}
            """
        let milliseconds = String(min(max(leaseMilliseconds, 1), Self.longestLease))
        let reply = await client.command([Data("EVAL".utf8), Data(script.utf8), Data("2".utf8), lease.routingKey, lease.name,
                                          lease.token, Data(milliseconds.utf8)], routingKey: lease.routingKey)
        switch reply {
        case .success(.array(let parts)):
            switch parts.first {
            case .integer(1):
                guard parts.count == 2, case .data(let frame) = parts[1], let envelope = RedisEnvelope(decoding: frame) else {
                    client.counters.count(.corrupt)
                    return .success(.damaged)
                }
                return .success(.stored(envelope))
            case .integer(2):
                client.counters.count(.leaseTaken)
                return .success(.leased(lease))
            case .integer(3):
                return .success(.held)
            default:
                return .failure(RedisError(.reply, "unexpected reply to the value-or-lease script"))
            }
        case .success(.error(let message)):
            return .failure(RedisError(.reply, message))
        case .success:
            return .failure(RedisError(.reply, "unexpected reply to the value-or-lease script"))
        case .failure(let error):
            return .failure(error)
        }
    }

    /// Gives `lease` up if this instance still holds it, after the writes already queued for its
    /// key (so a waiter that sees the lease gone finds the value).
    public func release(_ lease: RedisLease) {
        let script = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end"
        client.send([Data("EVAL".utf8), Data(script.utf8), Data("1".utf8), lease.name, lease.token],
                    routingKey: lease.routingKey)
    }

    /// The longest lease asked for, in milliseconds (a day): keeps the number Redis is sent sane.
    static let longestLease = 86_400_000

    /// Polls for the value while the other holder's lease lives, at most `waitMilliseconds`.
    private func awaitValue(forKey key: String, waitMilliseconds: Int) async -> RedisEnvelope? {
        let (value, lease) = (keys.value(key), keys.lease(key))
        let clock = ContinuousClock()
        let deadline = clock.now + .milliseconds(min(max(waitMilliseconds, 0), Self.longestLease))
        var interval = Duration.milliseconds(2)
        while clock.now < deadline {
            do { try await clock.sleep(for: min(interval, deadline - clock.now)) } catch { return nil }
            interval = min(interval * 2, .milliseconds(50))
            let reply = await client.command([Data("MGET".utf8), value, lease], routingKey: value)
            switch reply {
            case .success(.array(let parts)) where parts.count == 2:
                if case .data(let frame) = parts[0] {
                    if let envelope = RedisEnvelope(decoding: frame) { return envelope }
                    client.counters.count(.corrupt)
                }
                // The holder released (or its lease expired) without a value: its work failed.
                if parts[1] == .null { return nil }
            case .failure(let error) where error.kind == .deadline:
                continue
            default:
                return nil
            }
        }
        return nil
    }

    private static func makeToken() -> Data {
        var generator = SystemRandomNumberGenerator()
        return Data((0..<2).map { _ in String(generator.next(), radix: 16) }.joined(separator: "-").utf8)
    }
}
