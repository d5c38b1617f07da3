import Crypto
import Foundation

/// A namespaced key → bytes store in Redis, for anything that is not an image to decode (the
/// image server's encoded results) and under ``RedisCache``: values framed in a
/// ``RedisEnvelope``, a time-to-live per entry, and single-flight leases. Every operation goes
/// through the client's breaker, so when Redis is down or slow a read is a miss and a write is
/// dropped; nothing throws.
public final class RedisStore: Sendable {
    public let client: RedisClient
    /// The namespace of this store's keys (e.g. `sources`, `results`).
    public let namespace: String
    /// The time-to-live of an entry written without one, in seconds (0: none; Redis's
    /// `maxmemory-policy allkeys-lru` evicts then).
    public let defaultTTL: Int
    let keys: RedisKeys

    /// A store in `namespace` on `client`, entries living `defaultTTL` seconds unless told otherwise.
    public init(client: RedisClient, namespace: String, defaultTTL: Int = 7 * 24 * 3600) {
        self.client = client
        self.namespace = namespace
        self.defaultTTL = defaultTTL
        keys = RedisKeys(prefix: client.configuration.keyPrefix, namespace: namespace)
    }

    /// The entry for `key`: nil on a miss, when Redis is unavailable, or when the stored value is
    /// corrupt (counted as such; the next write replaces it).
    public func entry(forKey key: String) async -> RedisEnvelope? {
        await entry(forKey: key, counted: true)
    }

    /// ``entry(forKey:)``, counted as a hit or miss only when `counted` (not while polling).
    func entry(forKey key: String, counted: Bool) async -> RedisEnvelope? {
        let name = keys.value(key)
        return envelope(from: await client.command([Data("GET".utf8), name], routingKey: name), counted: counted)
    }

    /// ``entry(forKey:)`` for synchronous callers, blocking at most about the operation timeout.
    public func entryBlocking(forKey key: String) -> RedisEnvelope? {
        let name = keys.value(key)
        return envelope(from: client.commandBlocking([Data("GET".utf8), name], routingKey: name), counted: true)
    }

    private func envelope(from result: Result<RedisReply, RedisError>, counted: Bool) -> RedisEnvelope? {
        guard case .success(let reply) = result else { return nil }
        guard case .data(let frame) = reply else {
            if reply == .null, counted { client.counters.count(.miss) }
            return nil
        }
        guard let envelope = RedisEnvelope(decoding: frame) else {
            client.counters.count(.corrupt)
            return nil
        }
        if counted { client.counters.count(.hit) }
        return envelope
    }

    /// The bytes stored for `key`, if any (see ``entry(forKey:)``).
    public func data(forKey key: String) async -> Data? {
        await entry(forKey: key)?.payload
    }

    /// Writes `data` (with `metadata`) for `key` without waiting: the write is queued on the key's
    /// connection, after earlier writes to the same key. `ttl` in seconds, nil for the default.
    /// `done` is told whether Redis took it.
    public func store(_ data: Data, metadata: Data = Data(), forKey key: String, ttl: Int? = nil,
                      done: (@Sendable (Bool) -> Void)? = nil) {
        let name = keys.value(key)
        var arguments = [Data("SET".utf8), name, RedisEnvelope(payload: data, metadata: metadata).encoded()]
        let seconds = ttl ?? defaultTTL
        if seconds > 0 { arguments += [Data("EX".utf8), Data(String(seconds).utf8)] }
        let counters = client.counters
        client.send(arguments, routingKey: name) { reply in
            let stored = if case .status = reply { true } else { false }
            if stored { counters.count(.write) }
            done?(stored)
        }
    }

    /// Replaces the metadata of `key`'s entry, keeping its bytes and time-to-live; does nothing
    /// when there is no entry, or when the entry changed since it was read (a newer write's
    /// metadata stands). Atomic: one script compares and replaces the value, so it works on
    /// Redis 5 as well (no `SET … KEEPTTL`, which needs Redis 6).
    public func setMetadata(_ metadata: Data, forKey key: String, done: (@Sendable () -> Void)? = nil) {
        Task {
            let name = keys.value(key)
            guard case .success(.data(let frame)) = await client.command([Data("GET".utf8), name], routingKey: name),
                  var envelope = RedisEnvelope(decoding: frame) else {
                done?()
                return
            }
            envelope.metadata = metadata
            client.send(Self.replaceIfUnchanged(name, expected: frame, replacement: envelope.encoded()),
                        routingKey: name) { _ in done?() }
        }
    }

    /// Replaces the value at `name` with `replacement` only while it is still `expected` (compared
    /// by SHA-1, so the old bytes are not sent back), keeping its time-to-live; answers 1 when it
    /// replaced, 0 when not. Effects replication (`redis.replicate_commands`, which Redis 7 always
    /// does) lets the script write after reading the time-to-live on Redis 5.
    static func replaceIfUnchanged(_ name: Data, expected: Data, replacement: Data) -> [Data] {
        let script = """
            if redis.replicate_commands then redis.replicate_commands() end
            local current = redis.call('GET', KEYS[1])
            if not current or redis.sha1hex(current) ~= ARGV[1] then return 0 end
            local ttl = redis.call('PTTL', KEYS[1])
            if ttl > 0 then redis.call('SET', KEYS[1], ARGV[2], 'PX', ttl) else redis.call('SET', KEYS[1], ARGV[2]) end
            return 1
            """
        let digest = Insecure.SHA1.hash(data: expected).map { String(format: "%02x", $0) }.joined()
        return [Data("EVAL".utf8), Data(script.utf8), Data("1".utf8), name, Data(digest.utf8), replacement]
    }

    /// Returns once every write queued so far for `key` has been answered (writes to one key share
    /// one connection, in order), e.g. before another instance is expected to read it.
    public func flush(forKey key: String) async {
        let name = keys.value(key)
        _ = await client.command([Data("PING".utf8)], routingKey: name)
    }

    /// Removes `key`'s entry; returns once Redis answered (or was skipped).
    public func remove(forKey key: String) async {
        let name = keys.value(key)
        _ = await client.command([Data("DEL".utf8), name], routingKey: name)
    }

    /// Whether `key` has an entry (false when Redis is unavailable).
    public func contains(key: String) async -> Bool {
        let name = keys.value(key)
        if case .success(.integer(let count)) = await client.command([Data("EXISTS".utf8), name], routingKey: name) {
            return count > 0
        }
        return false
    }

    /// The remaining time-to-live of `key`'s entry in milliseconds: nil without an entry (or Redis),
    /// -1 for an entry without one.
    public func timeToLive(forKey key: String) async -> Int? {
        let name = keys.value(key)
        guard case .success(.integer(let ttl)) = await client.command([Data("PTTL".utf8), name], routingKey: name),
              ttl != -2 else { return nil }
        return Int(ttl)
    }

    /// Removes every entry and lease of this namespace (`SCAN` + `UNLINK`, a batch at a time).
    public func removeAll() async {
        var cursor = "0"
        repeat {
            let reply = await client.command([Data("SCAN".utf8), Data(cursor.utf8), Data("MATCH".utf8), keys.pattern,
                                              Data("COUNT".utf8), Data("500".utf8)], routingKey: keys.pattern)
            guard case .success(.array(let parts)) = reply, parts.count == 2,
                  case .data(let next) = parts[0], case .array(let found) = parts[1] else { return }
            let names = found.compactMap(\.data)
            if !names.isEmpty {
                _ = await client.command([Data("UNLINK".utf8)] + names, routingKey: keys.pattern)
            }
            cursor = String(decoding: next, as: UTF8.self)
        } while cursor != "0"
    }
}
