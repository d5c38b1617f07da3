import Dispatch
import Foundation
import Synchronization
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

/// An in-memory ``ImageLoading`` for the manager, prefetcher and binding suites: each load follows
/// the ``LoadScript`` set for its URL (or ``fallback``), decodes with the library's own codecs
/// through the path the real loaders use (the context's coder and decode options, so thumbnails,
/// scale and limits behave as they do over HTTP), and can stop at a hold point until the test
/// releases, fails or cancels it.
///
/// It records every request (URL, options, context), every cancellation and every final result,
/// and the test awaits those events (``waitForRequest(_:count:sourceLocation:)`` and the like):
/// continuations with a timeout that fails the test, never polling. Like the real loaders it
/// completes off the caller's thread, and a cancelled token delivers ``WebImageError/Code/cancelled``
/// exactly once, with nothing after it.
final class ScriptedLoader: ImageLoading {
    /// One request as the loader received it. The context itself is not kept (a test may watch
    /// for everything a load holds to be released), only what tests ask about.
    struct Request: Sendable {
        let url: URL
        let options: WebImageOptions
        /// The validators of a conditional request (a `refreshCached` revalidation).
        let validators: HTTPValidators?
        /// The decode options the request implies, as the real loaders compute them.
        let decodeOptions: DecodeOptions
        let setImageOperationKey: String?
    }

    /// A load stopped at a hold point.
    struct Held: Sendable {
        let url: URL
        let point: LoadScript.HoldPoint
        let load: ScriptedLoad
    }

    /// Everything the loader has seen, in order.
    struct Log: Sendable {
        var requests: [Request] = []
        /// URLs of the loads that were cancelled (by their token or ``cancelAll()``), once each.
        var cancels: [URL] = []
        /// Final results (cancellations included) per URL, recorded once the completion returned.
        var finals: [URL: [ImageLoadResult]] = [:]
        /// Partial results per URL, recorded once the completion returned.
        var partials: [URL: Int] = [:]
        var held: [Held] = []
        /// False after ``stopHolding()``: loads reaching a hold point go straight on.
        var holding = true
        /// Loads requested and not yet ended (an end is decided before its completion runs).
        var inFlight = 0
        var maxInFlight = 0

        func requestCount(_ url: URL) -> Int { requests.count { $0.url == url } }
        func finalCount(_ url: URL) -> Int { finals[url]?.count ?? 0 }
        var finalCount: Int { finals.values.reduce(0) { $0 + $1.count } }
    }

    /// The host of ``url(_:)``.
    static let host = "images.test"

    private let handles: @Sendable (URL) -> Bool
    private let scripts = Mutex<[URL: @Sendable (Request) -> LoadScript]>([:])
    private let fallbackScript = Mutex(LoadScript.status(404))
    private let active = Mutex<[ObjectIdentifier: ScriptedLoad]>([:])
    let log = Watched(Log())

    /// A loader of http(s) URLs with a host, as the downloader accepts, unless `handles` says otherwise.
    init(handles: @escaping @Sendable (URL) -> Bool = ScriptedLoader.isWebURL) {
        self.handles = handles
    }

    @Sendable static func isWebURL(_ url: URL) -> Bool {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else { return false }
        return url.host?.isEmpty == false
    }

    /// `https://images.test<path>`: a URL for a test to script.
    static func url(_ path: String) -> URL { URL(string: "https://\(host)\(path)")! }

    // MARK: Scripts

    /// What a URL without a script gets (default: HTTP 404).
    var fallback: LoadScript {
        get { fallbackScript.withLock { $0 } }
        set { fallbackScript.withLock { $0 = newValue } }
    }

    /// Every later load of `url` follows `script`.
    func setScript(_ script: LoadScript, for url: URL) {
        scripts.withLock { $0[url] = { _ in script } }
    }

    /// Loads of `url` follow `scripts` in turn, the last one from then on.
    func setScripts(_ sequence: [LoadScript], for url: URL) {
        precondition(!sequence.isEmpty)
        let served = Mutex(0)
        scripts.withLock {
            $0[url] = { _ in
                let index = served.withLock { count -> Int in
                    defer { count += 1 }
                    return count
                }
                return sequence[min(index, sequence.count - 1)]
            }
        }
    }

    /// Each later load of `url` follows the script `handler` returns for its request.
    func setHandler(for url: URL, _ handler: @escaping @Sendable (Request) -> LoadScript) {
        scripts.withLock { $0[url] = handler }
    }

    // MARK: ImageLoading

    func canRequest(_ url: URL) -> Bool { handles(url) }

    @discardableResult
    func requestImage(with url: URL, options: WebImageOptions, context: WebImageContext,
                      progress: ImageLoadProgress?,
                      completion: @escaping ImageLoadCompletion) -> (any ImageLoadCancellable)? {
        guard canRequest(url) else {
            completion(.failure(WebImageError(.invalidURL, "The scripted loader does not load this URL.", url: url)))
            return nil
        }
        let request = Request(url: url, options: options, validators: context.validators,
                              decodeOptions: LoaderDecoding.decodeOptions(url: url, options: options, context: context),
                              setImageOperationKey: context.setImageOperationKey)
        let handler = scripts.withLock { $0[url] }
        let script = handler?(request) ?? fallback
        let load = ScriptedLoad(loader: self, request: request, context: context, script: script,
                                progress: progress, completion: completion)
        active.withLock { $0[ObjectIdentifier(load)] = load }
        log.update { log in
            log.requests.append(request)
            log.inFlight += 1
            log.maxInFlight = max(log.maxInFlight, log.inFlight)
        }
        load.start()
        return load
    }

    // MARK: Driving held loads

    /// Lets every load of `url` held at `point` (any point when nil) go on; returns how many.
    @discardableResult
    func release(_ url: URL, at point: LoadScript.HoldPoint? = nil) -> Int {
        let taken = takeHeld { $0.url == url && (point == nil || $0.point == point) }
        for held in taken { held.load.resume(after: held.point) }
        return taken.count
    }

    /// Lets every held load go on; returns how many.
    @discardableResult
    func releaseAll() -> Int {
        let taken = takeHeld { _ in true }
        for held in taken { held.load.resume(after: held.point) }
        return taken.count
    }

    /// Lets every held load go on, and every later one pass its hold points without stopping.
    @discardableResult
    func stopHolding() -> Int {
        let taken = log.update { log -> [Held] in
            log.holding = false
            defer { log.held.removeAll() }
            return log.held
        }
        for held in taken { held.load.resume(after: held.point) }
        return taken.count
    }

    /// Ends every load of `url` held now with `error` (a connection reset while it waited).
    @discardableResult
    func fail(_ url: URL, with error: WebImageError) -> Int {
        let taken = takeHeld { $0.url == url }
        for held in taken { held.load.fail(with: error) }
        return taken.count
    }

    /// Cancels every load that has not ended, as ``ImageDownloader/cancelAllDownloads()`` does:
    /// each caller gets ``WebImageError/Code/cancelled`` once.
    func cancelAll() {
        let loads = active.withLock { Array($0.values) }
        for load in loads { load.cancel() }
    }

    private func takeHeld(_ matching: @escaping @Sendable (Held) -> Bool) -> [Held] {
        log.update { log -> [Held] in
            let taken = log.held.filter(matching)
            log.held.removeAll(where: matching)
            return taken
        }
    }

    // MARK: What happened

    var requests: [Request] { log.value.requests }
    func requests(for url: URL) -> [Request] { log.value.requests.filter { $0.url == url } }
    func requestCount(_ url: URL) -> Int { log.value.requestCount(url) }
    var requestCount: Int { log.value.requests.count }
    func cancelCount(_ url: URL) -> Int { log.value.cancels.count { $0 == url } }
    var cancelCount: Int { log.value.cancels.count }
    func finals(for url: URL) -> [ImageLoadResult] { log.value.finals[url] ?? [] }
    var inFlight: Int { log.value.inFlight }
    var maxInFlight: Int { log.value.maxInFlight }
    var heldCount: Int { log.value.held.count }

    // MARK: Waiting

    /// Waits until `url` has been requested `count` times in all.
    @discardableResult
    func waitForRequest(_ url: URL, count: Int = 1, sourceLocation: SourceLocation = #_sourceLocation) async -> Bool {
        await log.wait("\(count) request(s) of \(url.path)", sourceLocation: sourceLocation) { $0.requestCount(url) >= count }
    }

    /// Waits until the loader has received `count` requests in all.
    @discardableResult
    func waitForRequests(_ count: Int, sourceLocation: SourceLocation = #_sourceLocation) async -> Bool {
        await log.wait("\(count) requests", sourceLocation: sourceLocation) { $0.requests.count >= count }
    }

    /// Waits until `count` loads of `url` are held (at `point`, or any point when nil).
    @discardableResult
    func waitUntilHeld(_ url: URL, at point: LoadScript.HoldPoint? = nil, count: Int = 1,
                       sourceLocation: SourceLocation = #_sourceLocation) async -> Bool {
        await log.wait("\(count) load(s) of \(url.path) held at \(point.map(String.init(describing:)) ?? "any point")",
                       sourceLocation: sourceLocation) { log in
            log.held.count { $0.url == url && (point == nil || $0.point == point) } >= count
        }
    }

    /// Waits until `count` loads are held in all.
    @discardableResult
    func waitForHeld(_ count: Int, sourceLocation: SourceLocation = #_sourceLocation) async -> Bool {
        await log.wait("\(count) held loads", sourceLocation: sourceLocation) { $0.held.count >= count }
    }

    /// Waits until `count` final results for `url` have been delivered (their completions returned).
    @discardableResult
    func waitForFinal(_ url: URL, count: Int = 1, sourceLocation: SourceLocation = #_sourceLocation) async -> Bool {
        await log.wait("\(count) final result(s) for \(url.path)", sourceLocation: sourceLocation) {
            $0.finalCount(url) >= count
        }
    }

    /// Waits until `count` final results have been delivered in all.
    @discardableResult
    func waitForFinals(_ count: Int, sourceLocation: SourceLocation = #_sourceLocation) async -> Bool {
        await log.wait("\(count) final results", sourceLocation: sourceLocation) { $0.finalCount >= count }
    }

    /// Waits until `count` loads of `url` have been cancelled.
    @discardableResult
    func waitForCancel(_ url: URL, count: Int = 1, sourceLocation: SourceLocation = #_sourceLocation) async -> Bool {
        await log.wait("\(count) cancellation(s) of \(url.path)", sourceLocation: sourceLocation) {
            $0.cancels.count { $0 == url } >= count
        }
    }

    // MARK: Called by loads

    /// Stops `load` at `point` unless holding is off; false when it should go straight on.
    fileprivate func hold(_ load: ScriptedLoad, at point: LoadScript.HoldPoint) -> Bool {
        log.update { log in
            guard log.holding else { return false }
            // Checked under the log's lock: a cancel that already ended the load has removed its entries.
            if !load.hasEnded { log.held.append(Held(url: load.request.url, point: point, load: load)) }
            return true
        }
    }

    fileprivate func ended(_ load: ScriptedLoad, cancelled: Bool) {
        active.withLock { _ = $0.removeValue(forKey: ObjectIdentifier(load)) }
        log.update { log in
            log.inFlight -= 1
            log.held.removeAll { $0.load === load }
            if cancelled { log.cancels.append(load.request.url) }
        }
    }

    fileprivate func delivered(_ result: ImageLoadResult, of load: ScriptedLoad) {
        log.update { log in
            if result.isFinished {
                log.finals[load.request.url, default: []].append(result)
            } else {
                log.partials[load.request.url, default: 0] += 1
            }
        }
    }
}

/// One ``ScriptedLoader`` load and its cancellation token. Its steps and callbacks run on its own
/// serial queue, so a cancellation's result comes after anything already delivered, and nothing
/// comes after it.
final class ScriptedLoad: ImageLoadCancellable {
    private enum Stage { case begin, afterStart, afterChunks }

    private struct Callbacks {
        let progress: ImageLoadProgress?
        let completion: ImageLoadCompletion
    }

    let request: ScriptedLoader.Request
    let script: LoadScript
    private let loader: ScriptedLoader
    /// The caller's blocks, dropped once the final result has been delivered (as the real loaders
    /// let go of their handlers), so nothing of the caller's stays alive through this token.
    private let callbacks: Mutex<Callbacks?>
    private let queue = DispatchQueue(label: "test.scripted-load")
    private let coder: any ImageCoding
    private let partialDecoder: PartialImageDecoder?
    private let isEnded = Mutex(false)

    init(loader: ScriptedLoader, request: ScriptedLoader.Request, context: WebImageContext, script: LoadScript,
         progress: ImageLoadProgress?, completion: @escaping ImageLoadCompletion) {
        self.loader = loader
        self.request = request
        self.script = script
        callbacks = Mutex(Callbacks(progress: progress, completion: completion))
        // The real loaders' decode step: the context's coder and the caller's decode options.
        coder = LoaderDecoding.coder(for: context, options: request.options)
        let progressive = request.options.contains(.progressiveLoad) && context.decryptor == nil
        partialDecoder = progressive ? PartialImageDecoder(coder: coder, options: request.decodeOptions) : nil
    }

    private var decodeOptions: DecodeOptions { request.decodeOptions }

    var url: URL { request.url }

    /// True once the load has decided its end (a final result or a cancellation).
    var hasEnded: Bool { isEnded.withLock { $0 } }

    func start() {
        queue.async { self.run(from: .begin) }
    }

    func resume(after point: LoadScript.HoldPoint) {
        queue.async { self.run(from: point == .started ? .afterStart : .afterChunks) }
    }

    func fail(with error: WebImageError) {
        queue.async { self.finish(.failure(self.named(error), response: self.script.response(for: self.url))) }
    }

    /// Ends the load with ``WebImageError/Code/cancelled``, once; a later call, or one after the
    /// final result, does nothing.
    func cancel() {
        guard claimEnd() else { return }
        loader.ended(self, cancelled: true)
        let result = ImageLoadResult.failure(WebImageError(.cancelled, "The scripted load was cancelled.", url: url))
        queue.async { self.deliver(result) }
    }

    // MARK: Steps (on `queue`)

    private func run(from stage: Stage) {
        guard !hasEnded else { return }
        let total = Int64(script.totalBytes)
        if stage == .begin {
            report(0, -1)
            if script.holds.contains(.started), loader.hold(self, at: .started) { return }
        }
        if stage != .afterChunks {
            if script.answersNotModified(to: request.validators) {
                let error = WebImageError(.cacheNotModified, "The server answered 304: the cached copy is current.",
                                          url: url, httpStatus: 304, contentType: script.contentType)
                return finish(.failure(error, response: script.response(for: url, statusCode: 304)))
            }
            report(0, total)
            for count in script.chunks where count < script.body.count {
                report(Int64(count), total)
                deliverPartial(upTo: count)
            }
            if script.holds.contains(.beforeCompletion), loader.hold(self, at: .beforeCompletion) { return }
        }
        let response = script.response(for: url)
        if let failure = script.failure {
            return finish(.failure(named(failure), response: response))
        }
        if script.chunks.last != script.body.count { report(total, total) }
        let data = Data(script.body)
        switch LoaderDecoding.decode(data, url: url, coder: coder, options: decodeOptions) {
        case .success(let image):
            finish(ImageLoadResult(image: image, data: data, error: nil, isFinished: true, response: response))
        case .failure(var error):
            error.httpStatus = error.httpStatus ?? script.statusCode
            error.contentType = error.contentType ?? script.contentType
            finish(.failure(error, response: response))
        }
    }

    private func report(_ received: Int64, _ expected: Int64) {
        guard !hasEnded, let progress = callbacks.withLock({ $0?.progress }) else { return }
        progress(received, expected, url)
    }

    private func deliverPartial(upTo count: Int) {
        guard let partialDecoder, !hasEnded,
              let image = partialDecoder.partialImage(from: Data(script.body.prefix(count))) else { return }
        deliver(ImageLoadResult(image: image, data: nil, error: nil, isFinished: false,
                                response: script.response(for: url)))
    }

    private func finish(_ result: ImageLoadResult) {
        guard claimEnd() else { return }
        loader.ended(self, cancelled: false)
        deliver(result)
    }

    /// Hands `result` to the caller and records it once the caller's block returned.
    private func deliver(_ result: ImageLoadResult) {
        let completion = callbacks.withLock { callbacks -> ImageLoadCompletion? in
            defer { if result.isFinished { callbacks = nil } }
            return callbacks?.completion
        }
        completion?(result)
        loader.delivered(result, of: self)
    }

    private func claimEnd() -> Bool {
        isEnded.withLock { ended in
            defer { ended = true }
            return !ended
        }
    }

    /// `error` naming this load's URL and the script's status, as the downloader's errors do.
    private func named(_ error: WebImageError) -> WebImageError {
        var error = error
        if error.url == nil { error.url = url }
        if error.httpStatus == nil, script.statusCode != 200 { error.httpStatus = script.statusCode }
        if error.contentType == nil { error.contentType = script.contentType }
        return error
    }
}
