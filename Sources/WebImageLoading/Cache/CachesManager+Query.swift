import WebImageCodecs
import Foundation

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
            var fill: (@Sendable (ImageCacheQueryResult, Int) -> Void)?
            if fillsHigherPriorityCaches {
                fill = { (result: ImageCacheQueryResult, index: Int) in
                    // The caches asked before the one that hit missed: give them the image and its bytes.
                    for cache in caches.prefix(index) {
                        cache.storeImage(result.image, data: result.data, forKey: key, options: options,
                                         context: context, cacheType: cacheType, completion: nil)
                    }
                }
            }
            querySerially(from: 0, count: caches.count, operation: operation, query: query, fill: fill)
        }
        return operation
    }

    private func querySerially(from index: Int, count: Int, operation: CachesManagerQuery,
                               query: @escaping @Sendable (Int, @escaping @Sendable (ImageCacheQueryResult) -> Void) -> Void,
                               fill: (@Sendable (ImageCacheQueryResult, Int) -> Void)?) {
        query(index) { result in
            if index > 0, result.image != nil, let fill { fill(result, index) }
            let finished = operation.receive(result, index: index)
            if !finished, index + 1 < count {
                self.querySerially(from: index + 1, count: count, operation: operation, query: query, fill: fill)
            }
        }
    }
}

/// One query over several caches: the first image wins, a miss everywhere reports none, and a
/// cancel cancels every child and reports none once.
final class CachesManagerQuery: ImageCacheOperation {
    typealias Completion = @Sendable (ImageCacheQueryResult) -> Void

    /// The caches still to answer, and the queries of those asked so far.
    private struct Pending: Sendable {
        var children: [Int: any ImageCacheOperation] = [:]
        var remaining: Int
        /// Set by the answer that decides the result, so exactly one answer reports.
        var decided = false
    }

    private let once: ExactlyOnce<Completion, Pending>
    private let callbackQueue: CallbackQueue

    init(count: Int, callbackQueue: CallbackQueue, completion: @escaping Completion) {
        once = ExactlyOnce(completion)
        once.setStage(Pending(remaining: count))
        self.callbackQueue = callbackQueue
    }

    /// Keeps the child query of cache `index` so a cancel reaches it (a child that already
    /// answered has nothing left to cancel; one attached after the result is cancelled at once).
    func attach(_ child: (any ImageCacheOperation)?, index: Int) {
        guard let child else { return }
        if once.withRunningStage({ $0?.children[index] = child }) == nil { child.cancel() }
    }

    /// Records the answer of cache `index`; returns true once this query has reported.
    @discardableResult
    func receive(_ result: ImageCacheQueryResult, index: Int) -> Bool {
        let decides = once.withRunningStage { pending -> Bool in
            guard var current = pending else { return false }
            current.remaining -= 1
            current.children[index] = nil
            let decides = !current.decided && (result.image != nil || current.remaining == 0)
            current.decided = current.decided || decides
            pending = current
            return decides
        }
        guard decides == true else { return once.isEnded }
        guard let completion = once.end() else { return true }
        // The other caches' answers are no longer wanted.
        var others: [any ImageCacheOperation] = []
        once.updateStage { pending in
            others = pending.map { Array($0.children.values) } ?? []
            pending?.children = [:]
        }
        for child in others { child.cancel() }
        completion(result.image != nil ? result : .none)
        return true
    }

    func cancel() {
        guard let (completion, pending) = once.cancel() else { return }
        for child in pending.map({ Array($0.children.values) }) ?? [] { child.cancel() }
        guard let completion else { return }
        callbackQueue.execute { completion(.none) }
    }
}
