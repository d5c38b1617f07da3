import WebImageCodecs
import Foundation
import Synchronization

/// The downloads of one downloader: one per ``DownloadKey`` in flight (in practice one per URL),
/// started in priority order (then FIFO or LIFO) while fewer than the maximum are running, in all
/// and per host (a download waiting for its host does not hold back one for another host).
final class DownloadQueue: Sendable {
    struct State {
        var operations: [DownloadKey: DownloadOperation] = [:]
        var pending: [DownloadOperation] = []
        var running = 0
        var runningPerHost: [String: Int] = [:]
        var maxConcurrent: Int
        var maxPerHost: Int
        var order: DownloaderConfig.ExecutionOrder
        var suspended = false
        var sequence: UInt64 = 0
        /// Paces starts when a rate limit is set.
        var pacer: (any StartPacer)?
        /// True while a wake-up for the next token is scheduled.
        var awaitingToken = false
        /// That wake-up, cancelled when the queue is cancelled or the limit changes.
        var wake: Task<Void, Never>?
    }

    private let state: Mutex<State>

    init(maxConcurrent: Int, maxPerHost: Int, order: DownloaderConfig.ExecutionOrder) {
        state = Mutex(State(maxConcurrent: max(1, maxConcurrent), maxPerHost: max(1, maxPerHost), order: order))
    }

    /// Told a download's URL and its number of callers whenever a caller joins it in flight.
    let callerJoined = Mutex<(@Sendable (URL, Int) -> Void)?>(nil)

    /// Joins the download in flight for `key`, if there is one.
    func join(_ key: DownloadKey, _ handler: DownloadHandler) -> DownloadOperation? {
        let joined = state.withLock { state -> DownloadOperation? in
            guard let operation = state.operations[key], operation.join(handler) else { return nil }
            return operation
        }
        if let joined { tellJoined(key, joined) }
        return joined
    }

    /// Joins the download in flight for `key`, or queues the one `make` builds.
    func joinOrAdd(_ key: DownloadKey, _ handler: DownloadHandler,
                   make: (UInt64) -> DownloadOperation) -> (operation: DownloadOperation, created: Bool) {
        let result = state.withLock { state -> (DownloadOperation, Bool) in
            if let operation = state.operations[key], operation.join(handler) { return (operation, false) }
            state.sequence += 1
            let operation = make(state.sequence)
            state.operations[key] = operation
            state.pending.append(operation)
            return (operation, true)
        }
        if result.1 { pump() } else { tellJoined(key, result.0) }
        return result
    }

    private func tellJoined(_ key: DownloadKey, _ operation: DownloadOperation) {
        guard let callerJoined = callerJoined.withLock({ $0 }) else { return }
        callerJoined(key.url, operation.callerCount)
    }

    /// Starts queued downloads while there is room (and, with a rate limit, a token for each).
    func pump() {
        let (toStart, wake) = state.withLock { state -> ([DownloadOperation], (any StartPacer, Duration)?) in
            var picked: [DownloadOperation] = []
            var wake: (any StartPacer, Duration)?
            while !state.suspended, state.running < state.maxConcurrent, let index = nextIndex(state) {
                if let pacer = state.pacer, let wait = pacer.take() {
                    // No token: the next start waits; one wake-up serves every waiting download.
                    if !state.awaitingToken {
                        state.awaitingToken = true
                        wake = (pacer, wait)
                    }
                    break
                }
                let operation = state.pending.remove(at: index)
                picked.append(operation)
                state.running += 1
                state.runningPerHost[operation.host, default: 0] += 1
            }
            return (picked, wake)
        }
        if let wake { scheduleWake(wake.0, after: wake.1) }
        for operation in toStart
        where !operation.start(networkEnded: { [self] in networkEnded($0) }, finished: { [self] in finished($0) }) {
            networkEnded(operation)
            finished(operation)
        }
    }

    /// Pumps again once the next token is due.
    private func scheduleWake(_ pacer: any StartPacer, after wait: Duration) {
        DownloadInstrumentation.rateLimited(wait: wait)
        let wake = Task { [self] in
            try? await pacer.sleep(for: wait)
            state.withLock { $0.awaitingToken = false }
            pump()
        }
        state.withLock { $0.wake = wake }
    }

    /// The pending download to run next: highest priority, then oldest (FIFO) or newest (LIFO),
    /// among those whose host has room.
    private func nextIndex(_ state: State) -> Int? {
        var best: (index: Int, priority: DownloadPriority, sequence: UInt64)?
        for (index, operation) in state.pending.enumerated()
        where state.runningPerHost[operation.host, default: 0] < state.maxPerHost {
            let priority = operation.priority
            guard let current = best else {
                best = (index, priority, operation.sequence)
                continue
            }
            let newer = operation.sequence > current.sequence
            if priority > current.priority || (priority == current.priority && newer == (state.order == .lifo)) {
                best = (index, priority, operation.sequence)
            }
        }
        return best?.index
    }

    /// A running download's network part is over: free its slot and start the next. Callers may
    /// still join it while it decodes.
    private func networkEnded(_ operation: DownloadOperation) {
        state.withLock { state in
            state.running -= 1
            let host = state.runningPerHost[operation.host, default: 1] - 1
            state.runningPerHost[operation.host] = host > 0 ? host : nil
        }
        pump()
    }

    /// A download has delivered every result: a later caller starts a new one.
    private func finished(_ operation: DownloadOperation) {
        state.withLock { state in
            if state.operations[operation.key] === operation { state.operations[operation.key] = nil }
        }
    }

    /// The last caller of `operation` cancelled: forget it now (its slot frees when its task ends).
    func cancelled(_ operation: DownloadOperation) {
        state.withLock { state in
            if state.operations[operation.key] === operation { state.operations[operation.key] = nil }
            state.pending.removeAll { $0 === operation }
        }
    }

    /// Cancels every download, queued or running.
    func cancelAll() {
        let (all, wake) = state.withLock { state -> ([DownloadOperation], Task<Void, Never>?) in
            let all = Array(state.operations.values)
            state.operations.removeAll()
            state.pending.removeAll()
            defer { state.wake = nil }
            return (all, state.wake)
        }
        // A wake-up for a token has nothing left to start.
        wake?.cancel()
        for operation in all { operation.cancelAll() }
    }

    /// Downloads queued or running.
    var count: Int { state.withLock { $0.operations.count } }

    var maxConcurrent: Int {
        get { state.withLock { $0.maxConcurrent } }
        set {
            state.withLock { $0.maxConcurrent = max(1, newValue) }
            pump()
        }
    }

    var maxPerHost: Int {
        get { state.withLock { $0.maxPerHost } }
        set {
            state.withLock { $0.maxPerHost = max(1, newValue) }
            pump()
        }
    }

    /// The start rate limit (nil: none), paced on `clock`. Applies from the next start.
    func setRateLimit(_ limit: RequestRateLimit?, clock: any Clock<Duration>) {
        let pacer = limit.map { makeStartPacer(limit: $0, clock: clock) }
        let oldWake = state.withLock { state -> Task<Void, Never>? in
            state.pacer = pacer
            state.awaitingToken = false
            defer { state.wake = nil }
            return state.wake
        }
        oldWake?.cancel()
        pump()
    }

    /// Downloads running for `host` (``DownloadOperation/host``'s form).
    func runningCount(host: String) -> Int { state.withLock { $0.runningPerHost[host, default: 0] } }

    var order: DownloaderConfig.ExecutionOrder {
        get { state.withLock { $0.order } }
        set { state.withLock { $0.order = newValue } }
    }

    var isSuspended: Bool {
        get { state.withLock { $0.suspended } }
        set {
            state.withLock { $0.suspended = newValue }
            pump()
        }
    }
}
