import WebImageCodecs
import WebImageLoading
import Foundation

/// The shared queue of prefetch loads and the bookkeeping when one ends.
extension ImagePrefetcher {
    /// Starts queued items while fewer than ``maxConcurrentPrefetchCount`` loads are in flight.
    ///
    /// One caller at a time does the starting and loops until nothing more may start, so a load
    /// that ends inside `start` (a memory hit delivered inline) cannot recurse through the queue.
    func startQueuedLoads() {
        let claimed = state.withLock { state -> Bool in
            guard !state.isStarting else { return false }
            state.isStarting = true
            return true
        }
        guard claimed else { return }
        while true {
            let items = state.withLock { state -> [Item] in
                var taken: [Item] = []
                while state.inFlight < state.maxConcurrent, state.pendingHead < state.pending.count {
                    taken.append(state.pending[state.pendingHead])
                    state.pendingHead += 1
                    state.inFlight += 1
                }
                if state.pendingHead == state.pending.count {
                    state.pending.removeAll(keepingCapacity: true)
                    state.pendingHead = 0
                }
                if taken.isEmpty { state.isStarting = false }
                return taken
            }
            guard !items.isEmpty else { return }
            for item in items { start(item) }
        }
    }

    private func start(_ item: Item) {
        let token = item.token
        guard !token.isCancelled else {
            loadEnded()
            return
        }
        var context = token.context
        context.callbackQueue = token.callbackQueue
        let url = token.urls[item.index]
        // `start` rather than `loadImage`: a refreshCached load reports its cached image first, and the
        // URL counts once, when its load has ended.
        let receiver = ImageManagerOperation.Receiver.events { [self] event in
            switch event {
            case .endedSilently:
                itemFinished(item, url: url, failed: false)
            case .result(let result, let isLast):
                guard result.isFinished, isLast else { return }
                itemFinished(item, url: url, failed: result.error != nil || result.image == nil)
            }
        }
        let operation = manager.start(url, options: token.options, context: context, progress: nil,
                                      receiver: receiver)
        token.track(operation, at: item.index)
    }

    /// One load ended (on the request's callback queue): count it, tell the delegate, then the
    /// request's blocks, then start the next queued item.
    private func itemFinished(_ item: Item, url: URL, failed: Bool) {
        defer { loadEnded() }
        let token = item.token
        guard let counts = token.recordFinished(at: item.index, failed: failed) else { return }
        let done = counts.finished == token.urls.count
        let report = state.withLock { state in
            var total = (finished: 0, urls: 0, skipped: 0)
            for running in state.running {
                total.finished += running === token ? counts.finished : running.finishedCount
                total.urls += running.urls.count
                total.skipped += running === token ? counts.skipped : running.skippedCount
            }
            if done { state.running.removeAll { $0 === token } }
            return (total: total, isLast: done && state.running.isEmpty, delegate: state.delegate)
        }
        report.delegate?.imagePrefetcher(self, didPrefetch: url, finishedCount: report.total.finished,
                                         totalCount: report.total.urls)
        if report.isLast {
            report.delegate?.imagePrefetcher(self, didFinishWithTotalCount: report.total.urls,
                                             skippedCount: report.total.skipped)
        }
        counts.progress?(counts.finished, token.urls.count)
        counts.completed?(counts.finished, counts.skipped)
    }

    private func loadEnded() {
        state.withLock { $0.inFlight -= 1 }
        startQueuedLoads()
    }
}
