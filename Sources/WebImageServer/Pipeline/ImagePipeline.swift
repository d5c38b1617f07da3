import Crypto
import Foundation
import Logging
import NIOCore
import Synchronization
import WebImage
import WebImageRedis

/// Request target in, encoded result out: parse and check the URL, answer from the result cache,
/// or fetch the source through the image manager, process and encode it in a worker slot.
/// Identical results in flight are made once.
final class ImagePipeline: Sendable {
    let configuration: ServerConfiguration
    let parser: ImageURLParser
    let limiter: WorkLimiter
    let downloader: ImageDownloader
    let manager: ImageManager
    let coders: CodersManager
    let results: ResultMemoryCache?
    let metrics: ServerMetrics
    let logger: Logger
    /// Encoded results on disk, under the result key (with a cache directory only).
    let storedResults: DiskCache?
    /// Which results on disk each source made (with a cache directory only).
    let resultIndex: ResultIndex?
    /// The shared tier on Redis (with `--shared-cache` only).
    let shared: SharedTier?
    /// The settings that change a result's bytes, as the tag ending every result key.
    let recipe: String
    /// Which sources may be fetched or served from the caches.
    let sources: SourceCheck
    /// Results (and `/info` answers) being made, one job per key.
    let jobs = SharedJobs<ServedImage>()
    /// Sources whose record is being looked up in the shared tier or fetched, one job per source.
    let sourceJobs: SharedJobs<KnownSource>
    /// Told each source job's number of waiting requests after one joins (tests wait on it).
    let sourceJobJoined = ObserverSlot<(key: String, waiters: Int)>()
    /// The private temporary directory for sources when no cache directory is set.
    let scratch: PrivateDirectory?
    /// The loader of `s3:` sources (with S3 settings only).
    let s3Loader: S3SourceLoader?
    /// Source bytes on this instance's disk, and the caches the manager reads them from (that disk,
    /// after the shared tier with one).
    let sourceCache: ImageCache
    let sourceCaches: any ImageCaching
    /// How long sources stay fresh and results may be kept by clients.
    let freshness: FreshnessPolicy
    /// What is known of each source's version and freshness.
    let states: SourceStates
    /// The answer to memory pressure (with ``ServerConfiguration/memoryPressure`` only).
    let pressure: ServerMemoryPressure?
    /// The server's watermark (`wm`), read once.
    let watermarks: WatermarkStore

    init(configuration: ServerConfiguration, logger: Logger, metrics: ServerMetrics) throws {
        self.configuration = configuration
        self.logger = logger
        self.metrics = metrics
        let joined = sourceJobJoined
        sourceJobs = SharedJobs { key, waiters in joined((key, waiters)) }
        try configuration.validate()
        recipe = ResultRecipe.tag(for: configuration)
        let signer = configuration.keys.isEmpty && configuration.salts.isEmpty ? nil
            : try URLSigner(keys: configuration.keys, salts: configuration.salts,
                            signatureSize: configuration.signatureSize)
        parser = try ImageURLParser(signer: signer, presets: configuration.presets, now: configuration.now)
        limiter = WorkLimiter(workers: configuration.workers, maxQueue: configuration.maxQueue)
        coders = CodersManager()
        watermarks = try WatermarkStore(configuration: configuration, coders: coders)

        var download = DownloaderConfig.default
        download.downloadTimeout = configuration.sourceTimeout
        download.maximumResponseSize = configuration.maxSourceBytes
        download.retryStrategy = configuration.sourceRetries > 0 ? RetryStrategy(maxRetries: configuration.sourceRetries) : nil
        download.addressPolicy = configuration.allowPrivateSources ? nil : AddressPolicy()
        sources = try SourceCheck(allowedSources: configuration.allowedSources, addressPolicy: download.addressPolicy,
                                  allowsLocalSources: configuration.localFilesystemRoot != nil, s3: configuration.s3)
        download.sourceAllowList = sources.allowList
        download.maxConcurrentDownloads = max(download.maxConcurrentDownloads, configuration.workers * 2)
        // Every setting that can be refused is checked before a downloader (whose HTTP client must
        // be shut down) exists.
        var local: LocalSourceLoader?
        if let root = configuration.localFilesystemRoot {
            do {
                local = try LocalSourceLoader(root: root, maximumFileSize: configuration.maxSourceBytes)
            } catch {
                throw URLConfigurationError("--local-filesystem-root: \(error.message)")
            }
        }
        do {
            try configuration.s3?.validate()
        } catch {
            throw URLConfigurationError("--s3-endpoint: \(error.message)")
        }
        downloader = ImageDownloader(config: download)
        // The same retries, limits and guard as http sources, on a downloader of its own.
        let s3Loader = configuration.s3.flatMap { try? S3SourceLoader(configuration: $0, downloaderConfig: download) }
        self.s3Loader = s3Loader
        var loaders: [any ImageLoading] = [downloader]
        if let local { loaders.append(local) }
        if let s3Loader { loaders.append(s3Loader) }
        let loader = LoadersManager(loaders: loaders)
        var cacheConfig = ImageCacheConfig()
        cacheConfig.maxMemoryCost = 0
        // A source cut short by a power loss must read as a miss, not as a broken image.
        cacheConfig.disk.durability = .durable
        cacheConfig.disk.layout = configuration.diskLayout
        let directory = configuration.noCache ? nil : configuration.cacheDirectory
        // Without a cache directory, sources go to a private temporary one, removed at shutdown.
        let scratch = directory == nil ? try PrivateDirectory(prefix: "webimage-serve-") : nil
        self.scratch = scratch
        let cache = ImageCache(namespace: "webimage-serve-sources", directory: directory ?? scratch!.url, config: cacheConfig)
        sourceCache = cache
        var tier: SharedTier?
        if let redis = configuration.sharedCache, !configuration.noCache {
            tier = SharedTier(configuration: redis, ttl: configuration.sharedCacheTTL,
                              leaseWait: configuration.sharedCacheLeaseWait, limiter: limiter, logger: logger)
        }
        shared = tier
        let caches: any ImageCaching = tier.map { $0.tiered(over: cache) } ?? cache
        sourceCaches = caches
        manager = ImageManager(cache: caches, loader: loader)
        freshness = FreshnessPolicy(configuration: configuration)
        let records = tier.map { SharedSourceRecords(client: $0.client, ttl: configuration.sharedCacheTTL) }
        let resultDisk: DiskCache?
        if let directory, !configuration.noCache {
            var diskConfig = DiskCacheConfig(directory: directory, namespace: "webimage-serve-results")
            diskConfig.maxDiskSize = configuration.resultDiskBytes
            // A result is served for as long as its max-age says: it must be whole or not at all.
            diskConfig.durability = .durable
            diskConfig.layout = configuration.diskLayout
            resultDisk = DiskCache(config: diskConfig)
        } else {
            resultDisk = nil
        }
        storedResults = resultDisk
        let index = resultDisk == nil ? nil : directory.map { ResultIndex(directory: $0) }
        resultIndex = index
        // Source records on disk, beside the results made from them (without the shared tier).
        let recordDisk = directory.flatMap { directory -> DiskCache? in
            guard records == nil, !configuration.noCache else { return nil }
            var diskConfig = DiskCacheConfig(directory: directory, namespace: "webimage-serve-source-records")
            diskConfig.maxDiskSize = 64 * 1024 * 1024
            diskConfig.durability = .durable
            return DiskCache(config: diskConfig)
        }
        let results = configuration.noCache ? nil : ResultMemoryCache(costLimit: configuration.resultMemoryBytes)
        self.results = results
        states = SourceStates(shared: records, disk: recordDisk,
                              checkInterval: configuration.sharedSourceCheckInterval, now: configuration.now) { source in
            cache.removeImage(forKey: source)
            results?.removeAll(madeFrom: source)
            Self.removeStoredResults(madeFrom: source, disk: resultDisk, index: index)
        }
        if let monitor = configuration.memoryPressure {
            pressure = ServerMemoryPressure(monitor: monitor, limiter: limiter, results: results,
                                            sourceCaches: caches, logger: logger)
        } else {
            pressure = nil
        }
    }

    /// Bytes of encoded results held in memory.
    var resultCacheBytes: Int { results?.bytes ?? 0 }

    /// Bytes of encoded results held on disk.
    var resultDiskBytes: Int { storedResults?.totalSize ?? 0 }

    /// Distinct results being made now.
    var jobsInFlight: Int { jobs.count }

    /// Stops the downloader and removes the private temporary directory (after the server
    /// stopped serving).
    func shutdown() async {
        pressure?.stop()
        try? await downloader.shutdown()
        try? await s3Loader?.shutdown()
        shared?.client.close()
        scratch?.remove()
    }

    /// The result for `target` (the raw request target), its format negotiated with `accept`,
    /// whether it came from the memory cache without any work, and until when its source is fresh.
    func result(for target: String, accept: String?) async throws -> (ServedImage, cached: Bool, freshUntil: Int64?) {
        let offered = negotiatedFormat(accept: accept)
        let targetKey = Self.targetKey(target, offered: offered, best: bestCandidates(for: target, accept: accept))
        if let hit = memoryResult(forTargetKey: targetKey) { return (hit.0, true, hit.freshUntil) }
        let (served, key, cached, freshUntil) = try await RequestDeadline.run(seconds: configuration.requestTimeout) {
            try await self.parsedResult(for: target, offered: offered, accept: accept)
        }
        results?.addAlias(targetKey, for: key)
        return (served, cached, freshUntil)
    }

    /// The result kept in memory for `target` as asked for with `accept`, if any, and until when
    /// its source is fresh.
    func cachedResult(for target: String, accept: String?) -> (ServedImage, freshUntil: Int64?)? {
        guard results != nil else { return nil }
        return memoryResult(forTargetKey: Self.targetKey(target, offered: negotiatedFormat(accept: accept),
                                                         best: bestCandidates(for: target, accept: accept)))
    }

    /// The result in memory under a target key: a request target seen before is answered without
    /// parsing it again, since its signature was checked then and cannot have changed; only its
    /// expiry can have passed, or its source's version or freshness. A result of a source known
    /// here in another version, or due for a check against the shared tier, is left to the async
    /// path; one whose source is past its freshness is served once more and starts a revalidation.
    private func memoryResult(forTargetKey key: String) -> (ServedImage, freshUntil: Int64?)? {
        let now = parser.now()
        guard let hit = results?.get(key), hit.expires.map({ $0 <= 0 || $0 >= now }) ?? true,
              let source = hit.source, let record = states.local(source.absoluteString),
              record.identity == hit.sourceIdentity else {
            return nil
        }
        metrics.resultServed(from: .memory)
        revalidateIfStale(source, record, now: now)
        return (hit, record.freshUntil)
    }

    /// The memory cache's key for a request target, the format negotiated for it and, for a
    /// target that may ask for `format:best`, the candidates its `Accept` allows. The query is
    /// left out, as the parser leaves it out (it is not signed and changes nothing), so queries
    /// cannot make one result findable under ever more keys.
    static func targetKey(_ target: String, offered: ImageFormat?, best: BestFormatCandidates? = nil) -> String {
        let path = target.prefix { $0 != "?" }
        guard let best else { return "target " + (offered?.rawValue ?? "") + " " + path }
        return "target " + (offered?.rawValue ?? "") + " " + best.tag + " " + path
    }

    /// The candidates `accept` allows `format:best`, for a target that has `best` anywhere in it
    /// (where its options or extension can name it; a target that does not ask for it only gets a
    /// narrower key); nil for any other.
    func bestCandidates(for target: String, accept: String?) -> BestFormatCandidates? {
        guard target.range(of: "best", options: .caseInsensitive) != nil else { return nil }
        return BestFormatCandidates(accept: accept, canEncode: coders.canEncode(to:))
    }

    /// The result for a target not seen before (or expired, or of a source to check), the result
    /// key it is cached under, and until when its source is fresh. The source's record comes
    /// first (from this instance, the shared tier, or a fetch of the source), since the result key
    /// ends with the identity of the source's bytes.
    private func parsedResult(for target: String, offered: ImageFormat?, accept: String?) async throws
        -> (ServedImage, key: String, cached: Bool, freshUntil: Int64?) {
        let parsed: ParsedImageURL
        do {
            parsed = try parser.parse(target)
        } catch {
            throw ServerError(status: error.status, name: error.name, message: error.message)
        }
        // A raw answer is the source's bytes: no output format is asked for or negotiated.
        let raw = parsed.options.raw
        if !raw { try checkEncodable(parsed.options.format) }
        let source = try checkedSource(parsed.source)
        let best = parsed.options.bestFormat && !raw
            ? BestFormatCandidates(accept: accept, canEncode: coders.canEncode(to:)) : nil
        let negotiated = !raw && parsed.options.format == nil && best == nil && offered != nil
        let format = raw ? nil : parsed.options.format ?? (negotiated ? offered : nil)
        let baseKey = parsed.canonicalKey + "|" + (best?.tag ?? format?.rawValue ?? "source") + "|" + recipe
            + watermarkKey(for: parsed.options)
        let sourceKey = source.absoluteString
        let known = try await knownSource(source, maxBytes: parsed.options.maxSourceFileSize)
        let (record, prefetched) = (known.record, known.prefetched)
        revalidateIfStale(source, record, now: parser.now())
        let job = ResultJob(parsed: parsed, source: source, format: format, negotiated: negotiated, best: best,
                            baseKey: baseKey, record: record, prefetched: prefetched)
        let key = job.key(identity: record.identity)
        if let hit = results?.get(key) {
            metrics.resultServed(from: .memory)
            return (hit, key, true, record.freshUntil)
        }

        let served = try await jobs.value(for: key) {
            let served: ServedImage
            // The disk is read on a worker thread: a slow disk must not stall an event loop.
            let stored = self.storedResults == nil ? nil : try await CPUWork.run {
                self.storedResult(forKey: key, job)
            }
            if let stored {
                self.metrics.resultServed(from: .disk)
                served = stored
            } else if let shared = self.shared {
                served = try await self.sharedResult(shared, job, key: key)
            } else {
                self.metrics.resultServed(from: .made)
                served = try await self.make(job)
            }
            self.results?.set(served, for: job.key(identity: served.sourceIdentity ?? record.identity))
            return served
        }
        let identity = served.sourceIdentity ?? record.identity
        return (served, job.key(identity: identity), false, freshUntil(of: identity, sourceKey, requested: record))
    }

    /// Until when a result made from source bytes of `identity` may be promised fresh: `requested`'s
    /// freshness when they are its version; else (the cached bytes were another version, and the
    /// source was fetched again) the freshness of the record this instance knows when it is of
    /// that version, whether or not it is due for a check; else none beyond the floor.
    private func freshUntil(of identity: String, _ sourceKey: String, requested: SourceRecord) -> Int64 {
        if identity == requested.identity { return requested.freshUntil }
        if let latest = states.known(sourceKey), latest.identity == identity { return latest.freshUntil }
        return parser.now()
    }

    /// The result from the shared tier, or made here under its lease (or after waiting for another
    /// instance in vain); a result from Redis is kept on the local disk too.
    private func sharedResult(_ shared: SharedTier, _ job: ResultJob, key: String) async throws -> ServedImage {
        let made = Mutex<ServedImage?>(nil)
        let (data, fromShared) = try await shared.result(forKey: key, madeFrom: job.source.absoluteString) {
            let served = try await self.make(job)
            made.withLock { $0 = served }
            return (Data(served.body.readableBytesView), job.key(identity: served.sourceIdentity ?? job.record.identity))
        }
        if let served = made.withLock({ $0 }) {
            metrics.resultServed(from: .made)
            return served
        }
        let storedFormat = ImageFormat.detect(data)
        guard fromShared, storedFormat != .undefined else {
            metrics.resultServed(from: .made)
            return try await make(job)
        }
        metrics.resultServed(from: .shared)
        return try await CPUWork.run { [self] in
            storeOnDisk(data, forKey: key, madeFrom: job.source)
            return served(data, format: storedFormat, job, record: job.record)
        }
    }

    /// A result of `job` made from source bytes of `record`'s version.
    func served(_ data: Data, format: ImageFormat, _ job: ResultJob, record: SourceRecord) -> ServedImage {
        let options = job.parsed.options
        return ServedImage(body: ByteBuffer(bytes: data), format: format,
                           etag: ResultETag.make(identity: record.identity, resultKey: job.baseKey),
                           filenameStem: options.filename ?? Self.stem(of: job.source),
                           returnAttachment: options.returnAttachment, expires: options.expires,
                           negotiated: job.negotiated, varyAccept: job.negotiated || job.best != nil || configuration.autoWebP || configuration.autoAVIF,
                           source: job.source, sourceIdentity: record.identity, lastModified: record.lastModified)
    }

    /// The source URL if this server may fetch it, or serve it from a cache (see ``SourceCheck``).
    func checkedSource(_ source: String) throws -> URL {
        try sources.checked(source)
    }

    private func make(_ job: ResultJob) async throws -> ServedImage {
        // Another instance downloading the same new source is waited for before taking a worker.
        // A local file is read where it is, and bytes in hand need no download: no other
        // instance's download to wait for.
        guard let shared, !Self.isLocal(job.source), job.prefetched == nil else {
            return try await makeAdmitted(job)
        }
        return try await shared.withSource(job.source) {
            try await makeAdmitted(job)
        }
    }

    /// Fetches the source as an admitted request, then makes the result in a worker slot, on a
    /// worker thread (the event loops never wait for a decode or a disk write). Cached source
    /// bytes of another version than the job's record says are not trusted: the source is fetched
    /// from its origin again and recorded, and the result is made from, and kept under, that.
    private func makeAdmitted(_ job: ResultJob) async throws -> ServedImage {
        try await limiter.admit {
            let started = ContinuousClock.now
            let (record, data) = try await sourceForMaking(job)
            let watermark = try await watermark(for: job.parsed.options)
            let fetched = ContinuousClock.now
            metrics.record(.download, fetched - started)
            return try await limiter.run { [record, data, watermark] in
                metrics.record(.queue, ContinuousClock.now - fetched)
                return try await CPUWork.run { [self] in
                    let body = job.parsed.options.raw ? try rawBody(data, source: job.source)
                        : try encodedResult(of: data, job.parsed, source: job.source, format: job.format,
                                            best: job.best, watermark: watermark)
                    storeOnDisk(body.data, forKey: job.key(identity: record.identity), madeFrom: job.source)
                    return served(body.data, format: body.format, job, record: record)
                }
            }
        }
    }

    /// The source's bytes for `job` and the record of their version: the bytes fetched with the
    /// record, else the cached bytes when they are the record's version, else the origin's.
    private func sourceForMaking(_ job: ResultJob) async throws -> (SourceRecord, Data) {
        if let prefetched = job.prefetched { return (job.record, prefetched) }
        let maxBytes = job.parsed.options.maxSourceFileSize
        let data = try await sourceData(job.source, maxBytes: maxBytes)
        let identity = try await CPUWork.run { SourceRecord.identity(of: data) }
        if identity == job.record.identity { return (job.record, data) }
        return try await refetch(job.source, maxBytes: maxBytes)
    }

    /// Whether `source` is a `local:` file.
    static func isLocal(_ source: URL) -> Bool { source.scheme?.lowercased() == "local" }

    /// The last path element of the source without its extension, or `image`.
    static func stem(of source: URL) -> String {
        let name = source.deletingPathExtension().lastPathComponent
        return name.isEmpty || name == "/" ? "image" : name
    }
}
