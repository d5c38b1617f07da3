import WebImageCodecs
import Foundation
import Synchronization

/// Queries over several caches, cancellable as one.
extension CachesManager {
    /// Queries the caches ``queryPolicy`` names: serially from the highest priority down until one
    /// has an image, or all at once with the first image winning. When all miss the result is
    /// ``ImageCacheQueryResult/none``. A nil key or no caches complete synchronously with it.
    @discardableResult
    public func queryImage(forKey key: String?, options: WebImageOptions, context: WebImageContext,
                           cacheType: ImageCacheType,
                           completion: @escaping @Sendable (ImageCacheQueryResult) -> Void) -> (any ImageCacheOperation)? {
        let policy = queryPolicy
        let caches = targets(for: policy)
        guard key != nil, !caches.isEmpty else {
            completion(.none)
            return nil
        }
        if caches.count == 1 {
            return caches[0].queryImage(forKey: key, options: options, context: context,
                                        cacheType: cacheType, completion: completion)
        }
        let operation = CachesManagerQuery(count: caches.count,
                                           callbackQueue: context.callbackQueue ?? .shared,
                                           completion: completion)
        let query: @Sendable (Int, @escaping @Sendable (ImageCacheQueryResult) -> Void) -> Void = { index, done in
            let child = caches[index].queryImage(forKey: key, options: options, context: context,
                                                 cacheType: cacheType, completion: done)
            operation.attach(child, index: index)
        }
        if policy == .concurrent {
            for index in caches.indices {
                query(index) { operation.receive($0, index: index) }
            }
        } else {
            querySerially(from: 0, count: caches.count, operation: operation, query: query)
        }
        return operation
    }

    private func querySerially(from index: Int, count: Int, operation: CachesManagerQuery,
                               query: @escaping @Sendable (Int, @escaping @Sendable (ImageCacheQueryResult) -> Void) -> Void) {
        query(index) { result in
            let finished = operation.receive(result, index: index)
            if !finished, index + 1 < count {
                self.querySerially(from: index + 1, count: count, operation: operation, query: query)
            }
        }
    }
}

/// One query over several caches: the first image wins, a miss everywhere reports none, and a
/// cancel cancels every child and reports none once.
final class CachesManagerQuery: ImageCacheOperation {
    private struct State {
        var completion: (@Sendable (ImageCacheQueryResult) -> Void)?
        var children: [Int: any ImageCacheOperation] = [:]
        var remaining: Int
    }

    private let state: Mutex<State>
    private let callbackQueue: CallbackQueue

    init(count: Int, callbackQueue: CallbackQueue,
         completion: @escaping @Sendable (ImageCacheQueryResult) -> Void) {
        state = Mutex(State(completion: completion, remaining: count))
        self.callbackQueue = callbackQueue
    }

    /// Keeps the child query of cache `index` so a cancel reaches it (a child that already
    /// answered has nothing left to cancel).
    func attach(_ child: (any ImageCacheOperation)?, index: Int) {
        guard let child else { return }
        let cancelNow = state.withLock { state in
            guard state.completion != nil else { return true }
            state.children[index] = child
            return false
        }
        if cancelNow { child.cancel() }
    }

    /// Records the answer of cache `index`; returns true once this query has reported.
    @discardableResult
    func receive(_ result: ImageCacheQueryResult, index: Int) -> Bool {
        let (completion, report, others): ((@Sendable (ImageCacheQueryResult) -> Void)?, ImageCacheQueryResult,
                                           [any ImageCacheOperation]) = state.withLock { state in
            guard let completion = state.completion else { return (nil, result, []) }
            state.remaining -= 1
            state.children[index] = nil
            guard result.image != nil || state.remaining == 0 else { return (nil, result, []) }
            state.completion = nil
            let others = Array(state.children.values)
            state.children = [:]
            return (completion, result.image != nil ? result : .none, others)
        }
        guard let completion else { return state.withLock { $0.completion == nil } }
        // The other caches' answers are no longer wanted.
        for child in others { child.cancel() }
        completion(report)
        return true
    }

    func cancel() {
        let (completion, children) = state.withLock { state in
            defer {
                state.completion = nil
                state.children = [:]
            }
            return (state.completion, Array(state.children.values))
        }
        guard let completion else { return }
        for child in children { child.cancel() }
        callbackQueue.execute { completion(.none) }
    }
}
