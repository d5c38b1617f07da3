import Foundation
import WebImage
import Synchronization

/// Encoded results kept in memory under their result key, least recently used evicted first
/// once their bytes pass the cost limit. A hit is a dictionary lookup and a list move.
///
/// An entry may also be found under aliases (the request targets that asked for it): at most
/// ``maxAliases`` each, the oldest dropped first, each counted in the cost by its key's bytes (so
/// aliases cannot grow the cache past its limit), and they leave with the entry.
final class ResultMemoryCache: Sendable {
    // Mutated only inside `state`'s mutex: the nodes are reachable from nowhere else.
    private final class Node: @unchecked Sendable {
        let value: ServedImage
        let key: String
        /// Oldest first.
        var aliases: [String] = []
        var older: Node?
        var newer: Node?
        /// The body's bytes and every key's.
        var cost: Int

        init(key: String, value: ServedImage) {
            self.key = key
            self.value = value
            cost = value.body.readableBytes + ResultMemoryCache.keyCost(key)
        }
    }

    // Only ever accessed inside `state`'s mutex (it holds the nodes, which are not Sendable).
    private struct State: @unchecked Sendable {
        var nodes: [String: Node] = [:]
        var newest: Node?
        var oldest: Node?
        var bytes = 0

        mutating func unlink(_ node: Node) {
            node.older?.newer = node.newer
            node.newer?.older = node.older
            if newest === node { newest = node.older }
            if oldest === node { oldest = node.newer }
            node.older = nil
            node.newer = nil
        }

        mutating func pushNewest(_ node: Node) {
            node.older = newest
            newest?.newer = node
            newest = node
            if oldest == nil { oldest = node }
        }

        /// Drops `node` and every key it is found under.
        mutating func remove(_ node: Node) {
            unlink(node)
            nodes.removeValue(forKey: node.key)
            for alias in node.aliases { nodes.removeValue(forKey: alias) }
            bytes -= node.cost
        }

        /// Drops `node`'s alias at `index`.
        mutating func removeAlias(at index: Int, of node: Node) {
            let alias = node.aliases.remove(at: index)
            nodes.removeValue(forKey: alias)
            node.cost -= ResultMemoryCache.keyCost(alias)
            bytes -= ResultMemoryCache.keyCost(alias)
        }

        mutating func evict(downTo limit: Int) {
            while bytes > limit, let oldest { remove(oldest) }
        }
    }

    let costLimit: Int
    private let state = Mutex(State())
    /// The most aliases one entry keeps.
    static let maxAliases = 8

    /// What a key costs beyond its entry: its bytes and a share for the table.
    static func keyCost(_ key: String) -> Int { key.utf8.count + 64 }

    init(costLimit: Int) {
        self.costLimit = costLimit
    }

    /// The list links both ways: its nodes would keep each other alive once the cache is gone.
    deinit {
        state.withLock { state in
            var next = state.oldest
            while let node = next {
                next = node.newer
                node.older = nil
                node.newer = nil
            }
        }
    }

    /// Bytes of results held.
    var bytes: Int { state.withLock { $0.bytes } }

    func get(_ key: String) -> ServedImage? {
        state.withLock { state in
            guard let node = state.nodes[key] else { return nil }
            if state.newest !== node {
                state.unlink(node)
                state.pushNewest(node)
            }
            return node.value
        }
    }

    /// Keeps `value` unless it alone takes more than a quarter of the limit.
    func set(_ value: ServedImage, for key: String) {
        let node = Node(key: key, value: value)
        guard costLimit > 0, node.cost <= costLimit / 4 else { return }
        state.withLock { state in
            if let old = state.nodes[key] {
                if old.key == key {
                    state.remove(old)
                } else if let index = old.aliases.firstIndex(of: key) {
                    state.removeAlias(at: index, of: old)
                }
            }
            state.nodes[key] = node
            state.pushNewest(node)
            state.bytes += node.cost
            state.evict(downTo: costLimit)
        }
    }

    /// Makes the entry under `key`, if there is one, findable under `alias` too, dropping its
    /// oldest alias past ``maxAliases``; the alias's bytes count in the cost.
    func addAlias(_ alias: String, for key: String) {
        state.withLock { state in
            guard alias != key, let node = state.nodes[key], node.key == key else { return }
            if let old = state.nodes[alias] {
                if old === node { return }
                // A result key is never taken over; an alias of another entry now names this one.
                guard old.key != alias, let index = old.aliases.firstIndex(of: alias) else { return }
                state.removeAlias(at: index, of: old)
            }
            if node.aliases.count >= Self.maxAliases { state.removeAlias(at: 0, of: node) }
            node.aliases.append(alias)
            state.nodes[alias] = node
            node.cost += Self.keyCost(alias)
            state.bytes += Self.keyCost(alias)
            state.evict(downTo: costLimit)
        }
    }

    /// Drops every result made from `source` (its URL's absolute string), with its aliases.
    func removeAll(madeFrom source: String) {
        state.withLock { state in
            let doomed = Set(state.nodes.values.lazy.filter { $0.value.source?.absoluteString == source }.map(\.key))
            for key in doomed {
                if let node = state.nodes[key] { state.remove(node) }
            }
        }
    }

    /// Drops the least recently used results until at most `1 - fraction` of the bytes held now
    /// remain (a memory-pressure signal's share); the limit stays.
    func shrink(by fraction: Double) {
        state.withLock { state in
            state.evict(downTo: ShrinkFraction.remaining(of: state.bytes, dropping: fraction))
        }
    }

    /// The keys an entry is found under (its result key first, then its aliases), for tests.
    func keys(of key: String) -> [String] {
        state.withLock { state in state.nodes[key].map { [$0.key] + $0.aliases } ?? [] }
    }
}
