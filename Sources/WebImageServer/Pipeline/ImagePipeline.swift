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
    /// The shared tier on Redis (with `--shared-cache` only).
    let shared: SharedTier?
    /// The settings that change a result's bytes, as the tag ending every result key.
    let recipe: String
    /// Which sources may be fetched or served from the caches.
    let sources: SourceCheck
    private let jobs = SharedJobs<ServedImage>()
    /// The private temporary directory for sources when no cache directory is set.
    let scratch: PrivateDirectory?
    /// The loader of `s3:` sources (with S3 settings only).
    let s3Loader: S3SourceLoader?

    init(configuration: ServerConfiguration, logger: Logger, metrics: ServerMetrics) throws {
        self.configuration = configuration
        self.logger = logger
        self.metrics = metrics
        try configuration.validate()
        recipe = ResultRecipe.tag(for: configuration)
        let signer = configuration.keys.isEmpty && configuration.salts.isEmpty ? nil
            : try URLSigner(keys: configuration.keys, salts: configuration.salts,
                            signatureSize: configuration.signatureSize)
        parser = try ImageURLParser(signer: signer, presets: configuration.presets, now: configuration.now)
        limiter = WorkLimiter(workers: configuration.workers, maxQueue: configuration.maxQueue)
        coders = CodersManager()

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
        let directory = configuration.noCache ? nil : configuration.cacheDirectory
        // Without a cache directory, sources go to a private temporary one, removed at shutdown.
        let scratch = directory == nil ? try PrivateDirectory(prefix: "webimage-serve-") : nil
        self.scratch = scratch
        let cache = ImageCache(namespace: "webimage-serve-sources", directory: directory ?? scratch!.url, config: cacheConfig)
        if let redis = configuration.sharedCache, !configuration.noCache {
            let tier = SharedTier(configuration: redis, ttl: configuration.sharedCacheTTL,
                                  leaseWait: configuration.sharedCacheLeaseWait, limiter: limiter, logger: logger)
            shared = tier
            manager = ImageManager(cache: tier.tiered(over: cache), loader: loader)
        } else {
            shared = nil
            manager = ImageManager(cache: cache, loader: loader)
        }
        results = configuration.noCache ? nil : ResultMemoryCache(costLimit: configuration.resultMemoryBytes)
        if let directory, !configuration.noCache {
            var diskConfig = DiskCacheConfig(directory: directory, namespace: "webimage-serve-results")
            diskConfig.maxDiskSize = configuration.resultDiskBytes
            // A result is served for as long as its max-age says: it must be whole or not at all.
            diskConfig.durability = .durable
            storedResults = DiskCache(config: diskConfig)
        } else {
            storedResults = nil
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
        try? await downloader.shutdown()
        try? await s3Loader?.shutdown()
        shared?.client.close()
        scratch?.remove()
    }

    /// The result for `target` (the raw request target), its format negotiated with `accept`, and
    /// whether it came from the memory cache without any work.
    func result(for target: String, accept: String?) async throws -> (ServedImage, cached: Bool) {
        let offered = negotiatedFormat(accept: accept)
        let targetKey = Self.targetKey(target, offered: offered)
        if let hit = memoryResult(forTargetKey: targetKey) { return (hit, true) }
        let (served, key, cached) = try await RequestDeadline.run(seconds: configuration.requestTimeout) {
            try await self.parsedResult(for: target, offered: offered)
        }
        results?.addAlias(targetKey, for: key)
        return (served, cached)
    }

    /// The result kept in memory for `target` as asked for with `accept`, if any.
    func cachedResult(for target: String, accept: String?) -> ServedImage? {
        guard results != nil else { return nil }
        return memoryResult(forTargetKey: Self.targetKey(target, offered: negotiatedFormat(accept: accept)))
    }

    /// The result in memory under a target key: a request target seen before is answered without
    /// parsing it again, since its signature was checked then and cannot have changed; only its
    /// expiry can have passed.
    private func memoryResult(forTargetKey key: String) -> ServedImage? {
        guard let hit = results?.get(key), hit.expires.map({ $0 <= 0 || $0 >= parser.now() }) ?? true else {
            return nil
        }
        metrics.resultServed(from: .memory)
        return hit
    }

    /// The memory cache's key for a request target and the format negotiated for it. The query is
    /// left out, as the parser leaves it out (it is not signed and changes nothing), so queries
    /// cannot make one result findable under ever more keys.
    static func targetKey(_ target: String, offered: ImageFormat?) -> String {
        "target " + (offered?.rawValue ?? "") + " " + target.prefix { $0 != "?" }
    }

    /// The result for a target not seen before (or expired), and the result key it is cached under.
    private func parsedResult(for target: String, offered: ImageFormat?) async throws
        -> (ServedImage, key: String, cached: Bool) {
        let parsed: ParsedImageURL
        do {
            parsed = try parser.parse(target)
        } catch {
            throw ServerError(status: error.status, name: error.name, message: error.message)
        }
        let source = try checkedSource(parsed.source)
        let negotiated = parsed.options.format == nil && offered != nil
        let format = parsed.options.format ?? (negotiated ? offered : nil)
        let key = parsed.canonicalKey + "|" + (format?.rawValue ?? "source") + "|" + recipe
        if let hit = results?.get(key) {
            metrics.resultServed(from: .memory)
            return (hit, key, true)
        }

        let served = try await jobs.value(for: key) {
            let served: ServedImage
            // The disk is read on a worker thread: a slow disk must not stall an event loop.
            let stored = self.storedResults == nil ? nil : try await CPUWork.run {
                self.storedResult(forKey: key, parsed, source: source, negotiated: negotiated)
            }
            if let stored {
                self.metrics.resultServed(from: .disk)
                served = stored
            } else if let shared = self.shared {
                served = try await self.sharedResult(shared, parsed, source: source, format: format,
                                                     negotiated: negotiated, key: key)
            } else {
                self.metrics.resultServed(from: .made)
                served = try await self.make(parsed, source: source, format: format, negotiated: negotiated, key: key)
            }
            self.results?.set(served, for: key)
            return served
        }
        return (served, key, false)
    }

    /// The result from the shared tier, or made here under its lease (or after waiting for another
    /// instance in vain); a result from Redis is kept on the local disk too.
    private func sharedResult(_ shared: SharedTier, _ parsed: ParsedImageURL, source: URL, format: ImageFormat?,
                              negotiated: Bool, key: String) async throws -> ServedImage {
        let made = Mutex<ServedImage?>(nil)
        let (data, fromShared) = try await shared.result(forKey: key) {
            let served = try await self.make(parsed, source: source, format: format, negotiated: negotiated, key: key)
            made.withLock { $0 = served }
            return Data(served.body.readableBytesView)
        }
        if let served = made.withLock({ $0 }) {
            metrics.resultServed(from: .made)
            return served
        }
        let storedFormat = ImageFormat.detect(data)
        guard fromShared, storedFormat != .undefined else {
            metrics.resultServed(from: .made)
            return try await make(parsed, source: source, format: format, negotiated: negotiated, key: key)
        }
        metrics.resultServed(from: .shared)
        return try await CPUWork.run { [self] in
            do {
                try storedResults?.setData(data, forKey: key)
            } catch {
                logger.warning("result not stored on disk", metadata: ["error": "\(error)"])
            }
            return served(data, format: storedFormat, parsed, source: source, negotiated: negotiated)
        }
    }

    /// The result kept on disk under `key`, if any.
    private func storedResult(forKey key: String, _ parsed: ParsedImageURL, source: URL,
                              negotiated: Bool) -> ServedImage? {
        guard let data = storedResults?.data(forKey: key) else { return nil }
        let format = ImageFormat.detect(data)
        guard format != .undefined else { return nil }
        return served(data, format: format, parsed, source: source, negotiated: negotiated)
    }

    private func served(_ data: Data, format: ImageFormat, _ parsed: ParsedImageURL, source: URL,
                        negotiated: Bool) -> ServedImage {
        ServedImage(body: ByteBuffer(bytes: data), format: format, etag: Self.etag(of: data),
                    filenameStem: parsed.options.filename ?? Self.stem(of: source),
                    returnAttachment: parsed.options.returnAttachment, expires: parsed.options.expires,
                    negotiated: negotiated, ttl: configuration.ttl, varyAccept: negotiated || configuration.autoWebP || configuration.autoAVIF)
    }

    /// The source URL if this server may fetch it, or serve it from a cache (see ``SourceCheck``).
    private func checkedSource(_ source: String) throws -> URL {
        try sources.checked(source)
    }

    private func make(_ parsed: ParsedImageURL, source: URL, format: ImageFormat?,
                      negotiated: Bool, key: String) async throws -> ServedImage {
        // Another instance downloading the same new source is waited for before taking a worker.
        // A local file is read where it is: no other instance's download to wait for.
        guard let shared, !Self.isLocal(source) else {
            return try await makeAdmitted(parsed, source: source, format: format, negotiated: negotiated, key: key)
        }
        return try await shared.withSource(source) {
            try await makeAdmitted(parsed, source: source, format: format, negotiated: negotiated, key: key)
        }
    }

    /// Fetches the source as an admitted request, then makes the result in a worker slot, on a
    /// worker thread (the event loops never wait for a decode or a disk write).
    private func makeAdmitted(_ parsed: ParsedImageURL, source: URL, format: ImageFormat?,
                              negotiated: Bool, key: String) async throws -> ServedImage {
        try await limiter.admit {
            let started = ContinuousClock.now
            let data = try await sourceData(source, maxBytes: parsed.options.maxSourceFileSize)
            let fetched = ContinuousClock.now
            metrics.record(.download, fetched - started)
            return try await limiter.run {
                metrics.record(.queue, ContinuousClock.now - fetched)
                return try await CPUWork.run { [self] in
                    let body = try encodedResult(of: data, parsed, source: source, format: format, negotiated: negotiated)
                    do {
                        try storedResults?.setData(body.data, forKey: key)
                    } catch {
                        logger.warning("result not stored on disk", metadata: ["error": "\(error)"])
                    }
                    return served(body.data, format: body.format, parsed, source: source, negotiated: negotiated)
                }
            }
        }
    }

    /// Decodes the source at the size the request plans, processes it and encodes the result
    /// (on a worker thread, in a slot).
    private func encodedResult(of data: Data, _ parsed: ParsedImageURL, source: URL, format: ImageFormat?,
                               negotiated: Bool) throws -> (data: Data, format: ImageFormat) {
        let started = ContinuousClock.now
        let decoder = PlannedSourceDecoder(coders: coders, options: parsed.options, limits: limits(for: parsed.options))
        let decoded: (image: Image, plan: JobPlan)
        do {
            decoded = try decoder.decode(data)
        } catch let error as WebImageError {
            throw ServerError(error, source: source.absoluteString)
        }
        let decodedAt = ContinuousClock.now
        metrics.record(.decode, decodedAt - started)
        try WorkCancellation.checkCurrent()
        let processed = try ImageProcessor.process(decoded.image, plan: decoded.plan)
        let transformed = ContinuousClock.now
        metrics.record(.transform, transformed - decodedAt)
        try WorkCancellation.checkCurrent()
        let output = outputFormat(format, for: processed, negotiated: negotiated)
        var encodeOptions = EncodeOptions(compressionQuality: Double(quality(for: output, options: parsed.options)) / 100)
        encodeOptions.firstFrameOnly = !processed.isAnimated || !output.isAnimatable
        encodeOptions.encoderProcess = configuration.encoderProcess
        if let background = parsed.options.background { encodeOptions.backgroundColor = background }
        let encoded: Data
        do {
            encoded = try coders.encode(processed, as: output, options: encodeOptions)
        } catch let error as WebImageError {
            throw ServerError(status: 422, name: "encoding_failed", message: error.message)
        }
        metrics.record(.encode, ContinuousClock.now - transformed)
        return (encoded, output)
    }

    /// The server's limits on one request's work, tightened by the URL's `msr`.
    func limits(for options: ProcessingOptions) -> JobLimits {
        JobLimits(maxSourcePixels: configuration.maxSourceResolution, maxResultDimension: configuration.maxResultDimension,
                  maxFrames: configuration.maxAnimationFrames, urlMegapixels: options.maxSourceResolution)
    }

    /// The source's bytes: from the source cache on disk, else downloaded (once for every request
    /// that wants them at the same time) and kept there. `maxBytes` (the URL's `max_src_file_size`;
    /// 0 or nil for none) tightens `--max-src-bytes`: the download stops there, and a cached
    /// source over it is refused too (413).
    private func sourceData(_ source: URL, maxBytes: Int?) async throws -> Data {
        let limit = maxBytes.flatMap { $0 > 0 ? $0 : nil }
        var context = WebImageContext()
        context.maximumResponseSize = limit
        context.imageCoder = SourceBytesCoder(coders: coders)
        // The source's own bytes are cached on disk under its URL (a local file is read where it
        // is, never copied); the stand-in for its image is never encoded (its coder refuses) nor
        // kept in memory.
        let sourceCache: ImageCacheType = configuration.noCache || Self.isLocal(source) ? .none : .disk
        context.queryCacheType = sourceCache
        context.storeCacheType = sourceCache
        var loadOptions: WebImageOptions = [.retryFailed]
        if configuration.noCache || Self.isLocal(source) { loadOptions.insert(.fromLoaderOnly) }
        let result: ImageManagerResult
        do {
            result = try await manager.image(for: source, options: loadOptions, context: context)
        } catch {
            throw ServerError(error, source: source.absoluteString)
        }
        guard let data = result.data, !data.isEmpty else {
            throw ServerError(WebImageError(.badImageData, "The source gave no image."), source: source.absoluteString)
        }
        if let limit, data.count > limit {
            throw ServerError(status: 413, name: "source_too_large",
                              message: "The source is \(data.count) bytes, over max_src_file_size (\(limit) bytes).")
        }
        return data
    }

    /// Whether `source` is a `local:` file.
    static func isLocal(_ source: URL) -> Bool { source.scheme?.lowercased() == "local" }

    /// The format picked from `Accept` when the URL names none (imgproxy's order: AVIF, then
    /// WebP), if the server was told to negotiate.
    private func negotiatedFormat(accept: String?) -> ImageFormat? {
        guard let accept, configuration.autoAVIF || configuration.autoWebP else { return nil }
        let accepted = AcceptHeader(accept)
        if configuration.autoAVIF, accepted.accepts("image/avif"), coders.canEncode(to: .avif) { return .avif }
        if configuration.autoWebP, accepted.accepts("image/webp") { return .webp }
        return nil
    }

    private func outputFormat(_ asked: ImageFormat?, for image: Image, negotiated: Bool) -> ImageFormat {
        // AVIF is offered for still results only; an animation keeps its own format.
        if negotiated, asked == .avif, image.isAnimated { return outputFormat(nil, for: image, negotiated: false) }
        if let asked, coders.canEncode(to: asked) { return asked == .apng ? .png : asked }
        if [.jpeg, .png, .webp, .gif].contains(image.format) { return image.format }
        // An animated PNG stays animated: the PNG encoder writes APNG for several frames. A
        // rasterised SVG has an alpha channel, as its drawing surface does.
        if image.format == .apng || image.format == .svg { return .png }
        return image.hasAlpha ? .png : .jpeg
    }

    private func quality(for format: ImageFormat, options: ProcessingOptions) -> Int {
        if options.quality > 0 { return options.quality }
        if let quality = options.formatQuality[format], quality > 0 { return quality }
        switch format {
        case .webp: return 79
        case .avif: return 63
        default: return configuration.defaultQuality
        }
    }

    static func etag(of data: Data) -> String {
        let digest = SHA256.hash(data: data)
        return "\"" + digest.prefix(16).map { String(format: "%02x", $0) }.joined() + "\""
    }

    /// The last path element of the source without its extension, or `image`.
    static func stem(of source: URL) -> String {
        let name = source.deletingPathExtension().lastPathComponent
        return name.isEmpty || name == "/" ? "image" : name
    }
}

extension ImageFormat {
    /// Whether the server's encoder for this format keeps several frames.
    var isAnimatable: Bool { self == .gif || self == .webp || self == .png || self == .apng }
}
