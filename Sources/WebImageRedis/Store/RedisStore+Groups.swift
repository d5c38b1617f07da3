import Foundation

/// Entries stored as members of a group (the image server's results, grouped by the source they
/// were made from), so that the whole group can be removed at once without scanning the keyspace.
extension RedisStore {
    /// Writes `data` for `key`, as ``store(_:metadata:forKey:ttl:done:)`` does, and names it in
    /// `group`'s set in the same script. The set lives as long as its newest member (its time-to-live
    /// is raised to the entry's, never lowered); a member whose entry expired first is skipped
    /// when the group is removed. `done` is told whether Redis took it.
    public func store(_ data: Data, forKey key: String, inGroup group: String, ttl: Int? = nil,
                      done: (@Sendable (Bool) -> Void)? = nil) {
        let name = keys.value(key)
        let set = keys.group(group)
        let seconds = ttl ?? defaultTTL
        let script = """
            if tonumber(ARGV[2]) > 0 then
              redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2])
            else
              redis.call('SET', KEYS[1], ARGV[1])
            end
            local new = redis.call('EXISTS', KEYS[2]) == 0
            redis.call('SADD', KEYS[2], KEYS[1])
            if tonumber(ARGV[2]) <= 0 then
              redis.call('PERSIST', KEYS[2])
            else
              local left = redis.call('TTL', KEYS[2])
              if new or (left >= 0 and left < tonumber(ARGV[2])) then redis.call('EXPIRE', KEYS[2], ARGV[2]) end
            end
            return 1
            """
        let arguments = [Data("EVAL".utf8), Data(script.utf8), Data("2".utf8), name, set,
                         RedisEnvelope(payload: data, metadata: Data()).encoded(), Data(String(max(0, seconds)).utf8)]
        let counters = client.counters
        client.send(arguments, routingKey: name) { reply in
            let stored = if case .integer(1) = reply { true } else { false }
            if stored { counters.count(.write) }
            done?(stored)
        }
    }

    /// Removes every entry stored in `group` and the group itself, a batch of ``groupBatch`` at a
    /// time (so a large group never blocks Redis for long); returns how many entries were
    /// removed, or nil when Redis did not answer. Entries added while it runs may outlive it.
    @discardableResult
    public func removeGroup(_ group: String) async -> Int? {
        let set = keys.group(group)
        var removed = 0
        while true {
            let reply = await client.command([Data("SPOP".utf8), set, Data(String(Self.groupBatch).utf8)],
                                             routingKey: set)
            guard case .success(let answer) = reply else { return nil }
            guard case .array(let members) = answer else { return removed }
            let names = members.compactMap(\.data)
            if names.isEmpty { return removed }
            if case .success(.integer(let count)) = await client.command([Data("UNLINK".utf8)] + names, routingKey: set) {
                removed += Int(count)
            }
        }
    }

    /// How many members ``removeGroup(_:)`` takes and unlinks per round trip.
    static let groupBatch = 256
}
