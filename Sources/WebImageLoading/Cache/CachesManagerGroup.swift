import WebImageCodecs
import Synchronization

/// Runs one operation over several caches, one after another or all at once, and reports a
/// single answer exactly once.
final class CachesManagerGroup<Value: Sendable>: Sendable {
    private struct State {
        var remaining: Int
        var value: Value
        var completion: (@Sendable (Value) -> Void)?
    }

    private let state: Mutex<State>
    private let isDecisive: @Sendable (Value) -> Bool
    private let combine: @Sendable (Value, Value) -> Value

    private init(count: Int, initial: Value, isDecisive: @escaping @Sendable (Value) -> Bool,
                 combine: @escaping @Sendable (Value, Value) -> Value,
                 completion: @escaping @Sendable (Value) -> Void) {
        state = Mutex(State(remaining: count, value: initial, completion: completion))
        self.isDecisive = isDecisive
        self.combine = combine
    }

    /// Runs `operation` on `caches` (highest priority first) and calls `completion` once: with the
    /// first decisive value, else with every value folded by `combine` into `initial`. With no
    /// caches, `completion(initial)` runs synchronously.
    static func run(_ caches: [any ImageCaching], concurrently: Bool, initial: Value,
                    isDecisive: @escaping @Sendable (Value) -> Bool,
                    combine: @escaping @Sendable (Value, Value) -> Value,
                    operation: @escaping @Sendable (any ImageCaching, @escaping @Sendable (Value) -> Void) -> Void,
                    completion: @escaping @Sendable (Value) -> Void) {
        guard !caches.isEmpty else { return completion(initial) }
        let group = CachesManagerGroup(count: caches.count, initial: initial, isDecisive: isDecisive,
                                       combine: combine, completion: completion)
        if concurrently {
            for cache in caches { operation(cache) { group.receive($0) } }
        } else {
            group.runSerially(caches, from: 0, operation: operation)
        }
    }

    private func runSerially(_ caches: [any ImageCaching], from index: Int,
                             operation: @escaping @Sendable (any ImageCaching, @escaping @Sendable (Value) -> Void) -> Void) {
        operation(caches[index]) { value in
            let finished = self.receive(value)
            if !finished, index + 1 < caches.count {
                self.runSerially(caches, from: index + 1, operation: operation)
            }
        }
    }

    /// Records one cache's answer; returns true once the group has reported.
    @discardableResult
    private func receive(_ value: Value) -> Bool {
        let (completion, result): ((@Sendable (Value) -> Void)?, Value) = state.withLock { state in
            guard state.completion != nil else { return (nil, value) }
            state.remaining -= 1
            state.value = combine(state.value, value)
            guard isDecisive(value) || state.remaining == 0 else { return (nil, value) }
            defer { state.completion = nil }
            return (state.completion, isDecisive(value) ? value : state.value)
        }
        guard let completion else { return state.withLock { $0.completion == nil } }
        completion(result)
        return true
    }
}
