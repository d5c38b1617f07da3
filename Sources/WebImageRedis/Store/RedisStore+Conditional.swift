import Crypto
import Foundation

/// Reads that tell a miss from a failure, and writes over an entry only while it is the one read.
extension RedisStore {
    /// The entry for `key`: `.success(nil)` on a miss (or a corrupt value), a failure when Redis
    /// did not answer (unavailable, timed out, an error reply).
    public func lookup(forKey key: String) async -> Result<RedisEnvelope?, RedisError> {
        let name = keys.value(key)
        switch await client.command([Data("GET".utf8), name], routingKey: name) {
        case .success(.data(let frame)):
            return .success(RedisEnvelope(decoding: frame))
        case .success(.error(let message)):
            return .failure(RedisError(.reply, message))
        case .success:
            return .success(nil)
        case .failure(let error):
            return .failure(error)
        }
    }

    /// Writes `data` for `key` only while the entry there is still `expected` (an entry
    /// ``lookup(forKey:)`` returned), restarting its time-to-live (`ttl` in seconds, nil for the
    /// default). One script compares and writes, so of several writers that read the same entry
    /// exactly one replaces it.
    /// - Returns: true when it replaced the entry; false when the entry is gone or another one
    ///   (a newer write stands); a failure when Redis did not answer.
    public func replace(_ data: Data, forKey key: String, ifStillIs expected: RedisEnvelope,
                        ttl: Int? = nil) async -> Result<Bool, RedisError> {
        let name = keys.value(key)
        let digest = Insecure.SHA1.hash(data: expected.encoded()).map { String(format: "%02x", $0) }.joined()
        let seconds = max(0, ttl ?? defaultTTL)
        let arguments = [Data("EVAL".utf8), Data(Self.compareAndSet.utf8), Data("1".utf8), name, Data(digest.utf8),
                         RedisEnvelope(payload: data).encoded(), Data(String(seconds).utf8)]
        switch await client.command(arguments, routingKey: name) {
        case .success(.integer(let replaced)):
            return .success(replaced == 1)
        case .success(.error(let message)):
            return .failure(RedisError(.reply, message))
        case .success:
            return .failure(RedisError(.reply, "unexpected reply to a conditional replace"))
        case .failure(let error):
            return .failure(error)
        }
    }

    /// Sets `KEYS[1]` to `ARGV[2]` (for `ARGV[3]` seconds, 0: no expiry) only while its value's
    /// SHA-1 is `ARGV[1]`; answers 1 when it did, 0 when not.
    static let compareAndSet = """
        local current = redis.call('GET', KEYS[1])
        if not current or redis.sha1hex(current) ~= ARGV[1] then return 0 end
        if tonumber(ARGV[3]) > 0 then redis.call('SET', KEYS[1], ARGV[2], 'EX', ARGV[3]) else redis.call('SET', KEYS[1], ARGV[2]) end
        return 1
        """
}
