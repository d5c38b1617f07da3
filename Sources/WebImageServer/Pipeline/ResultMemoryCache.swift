import Foundation
import Synchronization

/// Encoded results kept in memory under their result key, least recently used evicted first
/// once their bytes pass the cost limit. A hit is a dictionary lookup and a list move.
final class ResultMemoryCache: Sendable {
    private final class Node: @unchecked Sendable {
        let key: String
        let value: ServedImage
        var older: Node?
        var newer: Node?

        init(key: String, value: ServedImage) {
            self.key = key
            self.value = value
        }
    }

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
        let cost = value.body.readableBytes
        guard costLimit > 0, cost <= costLimit / 4 else { return }
        state.withLock { state in
            if let old = state.nodes.removeValue(forKey: key) {
                state.unlink(old)
                state.bytes -= old.value.body.readableBytes
            }
            let node = Node(key: key, value: value)
            state.nodes[key] = node
            state.pushNewest(node)
            state.bytes += cost
            while state.bytes > costLimit, let oldest = state.oldest {
                state.unlink(oldest)
                state.nodes.removeValue(forKey: oldest.key)
                state.bytes -= oldest.value.body.readableBytes
            }
        }
    }
}
