import Foundation
import WebImage

/// Sources past their freshness are revalidated in the background, one revalidation per source at
/// a time (across the instances sharing a Redis too), while their results go on being served.
extension ImagePipeline {
    /// Starts the revalidation of `source` when `record` is past its freshness at `now` and none
    /// is in flight. Without caches there is nothing to keep fresh.
    func revalidateIfStale(_ source: URL, _ record: SourceRecord, now: Int64) {
        guard !record.isFresh(at: now), !configuration.noCache else { return }
        let key = source.absoluteString
        guard states.beginRevalidation(key) else { return }
        Task {
            let outcome = await self.revalidateOnce(source, record)
            self.states.endRevalidation(key, outcome)
        }
    }

    /// ``revalidate(_:_:)`` under the shared tier's lease on revalidating `source`, so instances
    /// that find it stale at once ask its origin once; ``RevalidationOutcome/elsewhere`` while
    /// another instance holds the lease. A local file (read where it is, no origin to spare), a
    /// server without the tier, or a tier that does not answer: revalidated here.
    func revalidateOnce(_ source: URL, _ record: SourceRecord) async -> RevalidationOutcome {
        guard let records = states.shared, !Self.isLocal(source) else { return await revalidate(source, record) }
        switch await records.revalidationLease(of: source.absoluteString, milliseconds: revalidationLeaseMilliseconds) {
        case .success(let lease?):
            let outcome = await revalidate(source, record)
            records.release(lease)
            return outcome
        case .success(nil):
            return .elsewhere
        case .failure:
            return await revalidate(source, record)
        }
    }

    /// How long a revalidation lease lives unless released (its holder stopped): the longest a
    /// revalidation's download can take with its retries, and a second, within an hour.
    var revalidationLeaseMilliseconds: Int {
        let seconds = configuration.sourceTimeout * (Double(max(0, configuration.sourceRetries)) + 1) + 1
        guard seconds.isFinite else { return 3_600_000 }
        return Int(min(max(seconds, 1), 3600) * 1000)
    }

    /// Asks the origin whether `source` changed since `record` (a conditional request with its
    /// validators; a file is read again): unchanged (a 304, or the same bytes), its freshness is
    /// renewed; changed, the new bytes are kept and recorded, and the results made from the old
    /// version are dropped here and in the shared tier (other instances drop theirs on learning
    /// of the new version); gone (404), the source is dropped as a purge drops it; no answer,
    /// it is asked again after the freshness floor.
    func revalidate(_ source: URL, _ record: SourceRecord) async -> RevalidationOutcome {
        let key = source.absoluteString
        let validators = HTTPValidators(etag: record.etag, lastModified: record.lastModified).conditional
        let loaded: LoadedSource
        do {
            loaded = try await loadSource(source, maxBytes: nil, fromOrigin: true, validators: validators)
        } catch {
            let now = parser.now()
            if error.code == .cacheNotModified {
                await states.renew(renewed(record, by: error.underlying as? NotModifiedResponse, at: now), for: key)
                return .unchanged
            }
            if ServerError(error, source: key).status == 404 {
                await purgeSource(source)
                return .gone
            }
            logger.warning("source revalidation failed", metadata: ["source": "\(key)", "error": "\(error.message)"])
            var retry = record
            retry.freshUntil = now + Int64(freshness.floor)
            await states.renew(retry, for: key)
            return .failed
        }
        guard let fresh = try? await self.record(of: loaded, source: source) else { return .failed }
        if fresh.identity == record.identity {
            await states.renew(record.renewed(at: parser.now(), lifetime: fresh.lifetime, etag: fresh.etag,
                                              lastModified: fresh.lastModified), for: key)
            return .unchanged
        }
        await states.save(fresh, for: key)
        await dropResults(madeFrom: key)
        logger.info("source changed", metadata: ["source": "\(key)"])
        return .changed
    }

    /// `record` renewed at `now` by a 304: the headers it carries replace the stored ones (RFC 9111
    /// §4.3.4), so a new `Cache-Control` or `Expires` sets the new lifetime and new validators
    /// replace the old; without them the old lifetime and validators stand.
    func renewed(_ record: SourceRecord, by notModified: NotModifiedResponse?, at now: Int64) -> SourceRecord {
        guard let headers = notModified?.response.headers else { return record.renewed(at: now) }
        let saysFreshness = headers[header: "Cache-Control"] != nil || headers[header: "Expires"] != nil
        return record.renewed(at: now, lifetime: saysFreshness ? freshness.lifetime(headers: headers) : nil,
                              etag: headers[header: "ETag"], lastModified: headers[header: "Last-Modified"])
    }
}
