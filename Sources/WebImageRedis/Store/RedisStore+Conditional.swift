import Foundation

/// Reads that tell a miss from a failure, and writes over an entry only while it exists.
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

    /// Writes `data` for `key` only over an entry still there (`SET … XX`), restarting its
    /// time-to-live (`ttl` in seconds, nil for the default); returns once Redis answered.
    public func replace(_ data: Data, forKey key: String, ttl: Int? = nil) async {
        let name = keys.value(key)
        var arguments = [Data("SET".utf8), name, RedisEnvelope(payload: data).encoded()]
        let seconds = ttl ?? defaultTTL
        if seconds > 0 { arguments += [Data("EX".utf8), Data(String(seconds).utf8)] }
        arguments.append(Data("XX".utf8))
        _ = await client.command(arguments, routingKey: name)
    }
}
