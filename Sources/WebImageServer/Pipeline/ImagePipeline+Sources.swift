import Foundation
import WebImage

/// Source bytes through the image manager, and the records of their versions.
extension ImagePipeline {
    /// The source's bytes: from the source cache on disk, else downloaded (once for every request
    /// that wants them at the same time) and kept there. `maxBytes` (the URL's `max_src_file_size`;
    /// 0 or nil for none) tightens `--max-src-bytes`: the download stops there, and a cached
    /// source over it is refused too (413).
    func sourceData(_ source: URL, maxBytes: Int?) async throws -> Data {
        try await checkedLoad(source, maxBytes: maxBytes, fromOrigin: false).data
    }

    /// ``loadSource(_:maxBytes:fromOrigin:validators:)`` with its failures as the server's errors
    /// and `maxBytes` enforced on cached bytes too.
    func checkedLoad(_ source: URL, maxBytes: Int?, fromOrigin: Bool) async throws -> LoadedSource {
        let limit = maxBytes.flatMap { $0 > 0 ? $0 : nil }
        let loaded: LoadedSource
        do {
            loaded = try await loadSource(source, maxBytes: limit, fromOrigin: fromOrigin)
        } catch {
            throw ServerError(error, source: source.absoluteString)
        }
        if let limit, loaded.data.count > limit {
            throw ServerError(status: 413, name: "source_too_large",
                              message: "The source is \(loaded.data.count) bytes, over max_src_file_size (\(limit) bytes).")
        }
        return loaded
    }

    /// The source's bytes through the image manager: from its caches unless `fromOrigin`, else
    /// (or on a miss) from the loader, kept in the caches. With `validators` the request is
    /// conditional, and a 304 is thrown as ``WebImageError/Code/cacheNotModified``.
    func loadSource(_ source: URL, maxBytes: Int?, fromOrigin: Bool,
                    validators: HTTPValidators? = nil) async throws(WebImageError) -> LoadedSource {
        var context = WebImageContext()
        context.maximumResponseSize = maxBytes
        context.imageCoder = SourceBytesCoder(coders: coders)
        context.validators = validators
        // The source's own bytes are cached on disk under its URL (a local file is read where it
        // is, never copied); the stand-in for its image is never encoded (its coder refuses) nor
        // kept in memory.
        let uncached = configuration.noCache || Self.isLocal(source)
        let query: ImageCacheType = uncached || fromOrigin ? .none : .disk
        let store: ImageCacheType = uncached ? .none : .disk
        context.queryCacheType = query
        context.storeCacheType = store
        var options: WebImageOptions = [.retryFailed]
        if uncached || fromOrigin { options.insert(.fromLoaderOnly) }
        // Bytes fetched to replace cached ones are in the caches before they are used.
        if fromOrigin && !uncached { options.insert(.waitStoreCache) }
        let result = try await manager.image(for: source, options: options, context: context)
        guard let data = result.data, !data.isEmpty else {
            throw WebImageError(.badImageData, "The source gave no image.")
        }
        guard result.cacheType == .none else {
            let key = source.absoluteString
            let stored = try? await CPUWork.run { [sourceCaches] in sourceCaches.validators(forKey: key) }
            return LoadedSource(data: data, headers: nil, cachedValidators: stored ?? nil)
        }
        return LoadedSource(data: data, headers: result.response?.headers ?? [], cachedValidators: nil)
    }

    /// The record of `loaded`'s version of `source`, made now. Bytes read from a cache (not a
    /// file) count as stale: what the cache kept of their freshness is not trusted, and a
    /// revalidation with their validators begins at once.
    func record(of loaded: LoadedSource, source: URL) async throws -> SourceRecord {
        let now = parser.now()
        let stale = loaded.headers == nil && !Self.isLocal(source)
        return try await CPUWork.run { [freshness] in
            freshness.record(for: loaded.data, headers: loaded.headers, validators: loaded.cachedValidators,
                             now: now, stale: stale)
        }
    }

    /// The record of `source`: this instance's when it need not check it; else the shared tier's
    /// or, for a source known nowhere, a fetch of its bytes (``establish(_:maxBytes:)``), once for
    /// every request that wants it at the same time.
    /// Without caches every request fetches its source, and its record is made from that fetch.
    func knownSource(_ source: URL, maxBytes: Int?) async throws -> KnownSource {
        let key = source.absoluteString
        if configuration.noCache {
            let loaded = try await limiter.admit { try await checkedLoad(source, maxBytes: maxBytes, fromOrigin: true) }
            return KnownSource(record: try await record(of: loaded, source: source), prefetched: loaded.data)
        }
        if let record = states.local(key) { return KnownSource(record: record, prefetched: nil) }
        return try await sourceJobs.value(for: key + " " + String(maxBytes ?? 0)) {
            if let record = await self.states.current(key) { return KnownSource(record: record, prefetched: nil) }
            let (record, data) = try await self.establish(source, maxBytes: maxBytes)
            return KnownSource(record: record, prefetched: data)
        }
    }

    /// The record of a source this instance knows nothing of (nor the shared tier): its bytes are
    /// fetched (from the caches, else the origin), recorded here and in the shared tier, and
    /// returned, so the first result made from them needs no second fetch. With the shared tier,
    /// one instance records a new source under a lease while the others wait for its record, and
    /// its bytes are fetched under the source's lease; the waits are admitted requests.
    func establish(_ source: URL, maxBytes: Int?) async throws -> (SourceRecord, Data?) {
        let key = source.absoluteString
        let fetch = { () async throws -> (SourceRecord, Data?) in
            if let record = await self.states.current(key) { return (record, nil) }
            let loaded = try await self.checkedLoad(source, maxBytes: maxBytes, fromOrigin: false)
            let record = try await self.record(of: loaded, source: source)
            await self.states.save(record, for: key)
            return (record, loaded.data)
        }
        guard let shared, let records = states.shared, !Self.isLocal(source) else {
            return try await limiter.admit { try await fetch() }
        }
        return try await limiter.admit {
            let wait = shared.leaseWaitMilliseconds
            switch await records.recordOrLease(of: key, leaseMilliseconds: max(wait * 2, 1000), waitMilliseconds: wait) {
            case .found(let record):
                states.adopt(record, for: key)
                return (record, nil)
            case .lead(let lease):
                defer { records.release(lease) }
                return try await shared.withSource(source) { try await fetch() }
            case .alone:
                return try await shared.withSource(source) { try await fetch() }
            }
        }
    }

    /// The source fetched from its origin again (its cached bytes were another version than its
    /// record said), recorded here and in the shared tier.
    func refetch(_ source: URL, maxBytes: Int?) async throws -> (SourceRecord, Data) {
        let loaded = try await checkedLoad(source, maxBytes: maxBytes, fromOrigin: true)
        let record = try await record(of: loaded, source: source)
        await states.save(record, for: source.absoluteString)
        logger.debug("source bytes in the cache were another version: fetched again",
                     metadata: ["source": "\(source.absoluteString)"])
        return (record, loaded.data)
    }
}
