import Foundation
import Synchronization

/// Encoded results kept in memory under their result key, least recently used evicted first
/// once their bytes pass the cost limit. A hit is a dictionary lookup and a list move.
///
/// An entry may also be found under aliases (the request targets that asked for it): they share
/// the entry and its cost, and leave with it.
final class ResultMemoryCache: Sendable {
    // Mutated only inside `state`'s mutex: the nodes are reachable from nowhere else.
    private final class Node: @unchecked Sendable {
        let value: ServedImage
        /// The result key first, then the aliases.
        var keys: [String]
        var older: Node?
        var newer: Node?

        init(key: String, value: ServedImage) {
            self.keys = [key]
            self.value = value
        }

        var cost: Int { value.body.readableBytes }
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
            for key in node.keys { nodes.removeValue(forKey: key) }
            bytes -= node.cost
        }
    }

    let costLimit: Int
    private let state = Mutex(State())

    init(costLimit: Int) {
        self.costLimit = costLimit
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
            if let old = state.nodes[key] { state.remove(old) }
            state.nodes[key] = node
            state.pushNewest(node)
            state.bytes += node.cost
            while state.bytes > costLimit, let oldest = state.oldest {
                state.remove(oldest)
            }
        }
    }

    /// Makes the entry under `key`, if there is one, findable under `alias` too (no extra cost).
    func addAlias(_ alias: String, for key: String) {
        state.withLock { state in
            guard alias != key, let node = state.nodes[key] else { return }
            if let old = state.nodes[alias], old !== node {
                // The alias named another entry: it now names this one.
                old.keys.removeAll { $0 == alias }
            }
            if !node.keys.contains(alias) { node.keys.append(alias) }
            state.nodes[alias] = node
        }
    }
}
