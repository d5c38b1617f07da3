import WebImageCodecs
import Dispatch
import Foundation
import Synchronization

/// One network download shared by every caller of one URL (as SDWebImage's downloader shares one
/// operation per URL) whose ``DownloadKey`` matches: same validators, same certificate verification.
///
/// Callers join while it is queued, running or decoding. Each gets its own decode (one per
/// distinct decode options); cancelling one caller ends only that caller unless it is the last,
/// which cancels the HTTP request. Every callback goes through one ``SerialCallbacks`` per
/// download, queued under the state lock, so no caller sees anything after its final result.
final class DownloadOperation: Sendable {
    enum Phase: Sendable { case queued, running, decoding, finished }

    struct State: Sendable {
        var phase = Phase.queued
        var handlers: [DownloadHandler] = []
        var task: Task<Void, Never>?
        var metrics: DownloadMetrics
        var response: ImageResponseInfo?
        var lastReportedFraction = 0.0
        var partialDecodeInFlight = false
        /// The newest body received while a partial decode ran: decoded next, older ones skipped.
        var pendingPartial: Data?
    }

    let key: DownloadKey
    var url: URL { key.url }
    let plan: DownloadPlan
    /// Order of creation, for FIFO / LIFO.
    let sequence: UInt64
    /// The host and port the first request goes to, which the per-host limit counts by.
    let host: String
    let fetcher: HTTPFetcher
    let callbacks = SerialCallbacks()
    let partialDecoder: PartialImageDecoder?
    let state: Mutex<State>

    init(key: DownloadKey, plan: DownloadPlan, sequence: UInt64, fetcher: HTTPFetcher, first: DownloadHandler) {
        self.key = key
        self.plan = plan
        self.sequence = sequence
        self.host = Self.hostKey(of: plan.request.url)
        self.fetcher = fetcher
        let progressive = plan.progressiveLoad && plan.decryptor == nil
        self.partialDecoder = progressive
            ? PartialImageDecoder(coder: plan.coder, options: plan.partialDecodeOptions) : nil
        var initial = State(metrics: DownloadMetrics())
        initial.handlers = [first]
        self.state = Mutex(initial)
    }

    /// `host:port` in lowercase, with the scheme's default port when the URL names none.
    static func hostKey(of url: URL) -> String {
        let scheme = url.scheme?.lowercased()
        let port = url.port ?? (scheme == "https" ? 443 : 80)
        return "\(url.host?.lowercased() ?? ""):\(port)"
    }

    // MARK: - Callers

    /// Adds a caller unless the download has finished; false means "start a new download".
    func join(_ handler: DownloadHandler) -> Bool {
        state.withLock { state in
            guard state.phase != .finished else { return false }
            state.handlers.append(handler)
            state.metrics.callerCount += 1
            return true
        }
    }

    /// The highest priority among the callers.
    var priority: DownloadPriority {
        state.withLock { $0.handlers.map(\.priority).max() ?? .normal }
    }

    var isFinished: Bool { state.withLock { $0.phase == .finished } }

    /// Callers still waiting for this download.
    var callerCount: Int { state.withLock { $0.handlers.count } }

    /// Ends caller `id` with ``WebImageError/Code/cancelled``. Returns true when it was the last
    /// caller, in which case the download itself is cancelled and ends.
    func cancel(handler id: UInt64) -> Bool {
        let (task, wasLast) = state.withLock { state -> (Task<Void, Never>?, Bool) in
            guard state.phase != .finished, let index = state.handlers.firstIndex(where: { $0.id == id }) else {
                return (nil, false)
            }
            let handler = state.handlers.remove(at: index)
            let error = WebImageError(.cancelled, "The download was cancelled by its caller.", url: url)
            enqueueCompletion(handler, .failure(error, response: state.response))
            guard state.handlers.isEmpty else { return (nil, false) }
            state.phase = .finished
            state.metrics.endedAt = Date()
            return (state.task, true)
        }
        callbacks.drainElsewhere()
        task?.cancel()
        if wasLast { DownloadInstrumentation.cancelled(url: url, logger: fetcher.logger) }
        return wasLast
    }

    /// Ends every caller with ``WebImageError/Code/cancelled`` and cancels the HTTP request.
    func cancelAll() {
        let task = state.withLock { state -> Task<Void, Never>? in
            guard state.phase != .finished else { return nil }
            let error = WebImageError(.cancelled, "All downloads were cancelled.", url: url)
            for handler in state.handlers { enqueueCompletion(handler, .failure(error, response: state.response)) }
            state.handlers.removeAll()
            state.phase = .finished
            state.metrics.endedAt = Date()
            return state.task
        }
        callbacks.drainElsewhere()
        task?.cancel()
    }

    // MARK: - Running

    /// Starts the download. `networkEnded` runs when the network part is over (its slot can go to
    /// another download), before any decode; `finished` once every caller has its result. False
    /// if it was cancelled first.
    func start(networkEnded: @escaping @Sendable (DownloadOperation) -> Void,
               finished: @escaping @Sendable (DownloadOperation) -> Void) -> Bool {
        defer { callbacks.drainElsewhere() }
        return state.withLock { state in
            guard state.phase == .queued else { return false }
            state.phase = .running
            state.metrics.startedAt = Date()
            for handler in state.handlers {
                if let progress = handler.progress { callbacks.enqueue { [url] in progress(0, -1, url) } }
            }
            state.task = Task { [self] in
                let outcome = await download()
                networkEnded(self)
                guard let outcome, beginDecoding() else {
                    finished(self)
                    // The final results, inline: no hop to another thread, and the slot is already free.
                    callbacks.drainHere()
                    return
                }
                // The decodes run on a dispatch thread, not on the cooperative pool.
                DispatchQueue.global().async { [self] in
                    decode(outcome)
                    finished(self)
                    callbacks.drainHere()
                }
            }
            return true
        }
    }

    /// The exchange, retried as the plan says; nil when the download failed or was cancelled
    /// (every caller has been told).
    private func download() async -> FetchOutcome? {
        DownloadInstrumentation.started(url: url, logger: fetcher.logger)
        var retries = 0
        while true {
            do {
                return try await fetcher.fetch(plan, observer: self)
            } catch {
                let failure = DownloadErrorMapping.map(error, url: url, timeout: plan.timeout,
                                                       connectTimeout: plan.connectTimeout)
                guard let delay = retryDelay(after: failure, retries: retries) else {
                    fail(failure)
                    return nil
                }
                retries += 1
                guard beginRetry(retries) else { return nil }
                DownloadInstrumentation.retrying(failure, retry: retries, delay: delay, url: url, logger: fetcher.logger)
                do {
                    try await plan.clock.sleep(for: .nanoseconds(Int64(delay * 1e9)))
                } catch {
                    fail(WebImageError(.cancelled, "The download was cancelled while waiting to retry.", url: url))
                    return nil
                }
            }
        }
    }

    /// Seconds to wait before trying again after `failure`, or nil when it is final: no strategy,
    /// no retries left, a failure a retry cannot fix, or a cancelled download. A 429 or 503 with
    /// `Retry-After` waits what the server asked (capped by the strategy).
    private func retryDelay(after failure: WebImageError, retries: Int) -> TimeInterval? {
        guard let strategy = plan.effectiveRetryStrategy, retries < strategy.maxRetries,
              RetryStrategy.isRetriable(failure), !Task.isCancelled else { return nil }
        var retryAfter: TimeInterval?
        if failure.httpStatus == 429 || failure.httpStatus == 503,
           let value = state.withLock({ $0.response?.headers[header: "Retry-After"] }) {
            retryAfter = RetryAfter.seconds(value)
        }
        return strategy.delay(beforeRetry: retries + 1, retryAfter: retryAfter)
    }

    /// Resets what one attempt leaves behind before the next. False when the download ended meanwhile.
    private func beginRetry(_ retry: Int) -> Bool {
        let running = state.withLock { state -> Bool in
            guard state.phase == .running else { return false }
            state.metrics.retryCount = retry
            state.response = nil
            state.lastReportedFraction = 0
            state.pendingPartial = nil
            return true
        }
        if running { partialDecoder?.reset() }
        return running
    }

    /// The network part succeeded: moves on to decoding unless every caller has left.
    private func beginDecoding() -> Bool {
        let proceed = state.withLock { state -> Bool in
            state.metrics.endedAt = Date()
            guard state.phase == .running else { return false }
            state.phase = .decoding
            return true
        }
        if proceed { DownloadInstrumentation.completed(metrics: metrics, url: url, logger: fetcher.logger) }
        return proceed
    }

    /// Decodes the body once per distinct decode options of the callers still waiting.
    private func decode(_ outcome: FetchOutcome) {
        if outcome.notModified {
            fail(WebImageError(.cacheNotModified, "The server answered 304: the cached copy is current.",
                               url: url, httpStatus: 304, contentType: outcome.response.contentType,
                               underlying: NotModifiedResponse(response: outcome.response)),
                 response: outcome.response)
            return
        }
        var data = outcome.data
        if let decryptor = plan.decryptor {
            guard let decrypted = decryptor.decrypt(data, outcome.response) else {
                fail(WebImageError(.badImageData, "The decryptor returned no data.", url: url,
                                   httpStatus: outcome.response.statusCode, contentType: outcome.response.contentType),
                     response: outcome.response)
                return
            }
            data = decrypted
        }
        var decoded: [DecodeOptions: Result<Image, WebImageError>] = [:]
        while let options = nextDecodeOptions() {
            callbacks.drainElsewhere() // earlier results go out while this decode runs
            let result = decoded[options]
                ?? LoaderDecoding.decode(data, url: url, coder: plan.coder, options: options).mapError { error in
                    var error = error
                    error.httpStatus = error.httpStatus ?? outcome.response.statusCode
                    error.contentType = error.contentType ?? outcome.response.contentType
                    return error
                }
            decoded[options] = result
            deliver(result, to: options, data: data, response: outcome.response)
        }
    }

    /// The decode options of a caller still waiting, or nil (and the download is finished).
    private func nextDecodeOptions() -> DecodeOptions? {
        state.withLock { state in
            guard state.phase == .decoding, let first = state.handlers.first else {
                state.phase = .finished
                return nil
            }
            return first.decodeOptions
        }
    }

    private func deliver(_ result: Result<Image, WebImageError>, to options: DecodeOptions, data: Data,
                         response: ImageResponseInfo) {
        state.withLock { state in
            let matching = state.handlers.filter { $0.decodeOptions == options }
            state.handlers.removeAll { $0.decodeOptions == options }
            let value: ImageLoadResult = switch result {
            case .success(let image):
                ImageLoadResult(image: image, data: data, error: nil, isFinished: true, response: response)
            case .failure(let error):
                .failure(error, response: response)
            }
            for handler in matching { enqueueCompletion(handler, value) }
            // Everyone served: a caller arriving from now on starts a fresh download.
            if state.handlers.isEmpty { state.phase = .finished }
        }
    }

    private func fail(_ error: WebImageError, response: ImageResponseInfo? = nil) {
        state.withLock { state in
            state.metrics.endedAt = state.metrics.endedAt ?? Date()
            if state.phase != .finished, !state.handlers.isEmpty {
                DownloadInstrumentation.failed(error, logger: fetcher.logger)
            }
            for handler in state.handlers {
                enqueueCompletion(handler, .failure(error, response: response ?? state.response))
            }
            state.handlers.removeAll()
            state.phase = .finished
        }
    }

    /// Queues a result for the caller: a partial image while it waits, then its one final result.
    /// Call with the state lock held.
    func enqueueCompletion(_ handler: DownloadHandler, _ result: ImageLoadResult) {
        let completion = result.isFinished ? handler.completion.end() : handler.completion.receiver
        guard let completion else { return }
        callbacks.enqueue { completion(result) }
    }

    // MARK: - Observing

    /// A snapshot of this download's timings.
    var metrics: DownloadMetrics { state.withLock { $0.metrics } }

    /// The response head, once it arrived.
    var response: ImageResponseInfo? { state.withLock { $0.response } }
}
