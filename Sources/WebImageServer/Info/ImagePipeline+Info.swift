import Foundation
import NIOCore
import WebImage

/// `GET /info/SIGNATURE/OPTIONS/plain/SOURCE` (or the base64 source form): what the source is,
/// as JSON, signed and checked as a processing URL is.
extension ImagePipeline {
    /// The path every info request starts with.
    static let infoPrefix = "/info"

    /// The JSON body for an info request's `target` (the raw request target, `/info/…`). The
    /// signature covers the path after it, as for processing URLs; the source is checked, loaded
    /// and limited as for a result, within the request timeout, its decode in a worker slot.
    ///
    /// Answers are cached as results are: in the memory result cache (its limits, its eviction,
    /// dropped with the source's other results when it changes or is purged), under a key of the
    /// options, the source, the server's recipe and the identity of the source bytes, so a source
    /// of a new version is read again; identical requests in flight are answered once.
    func info(target: String) async throws -> ByteBuffer {
        let parsed: ParsedImageURL
        let options: InfoOptions
        do {
            let split = try parser.parse(String(target.dropFirst(Self.infoPrefix.count)), settingAside: InfoOptions.names)
            parsed = split.parsed
            options = try InfoOptions(split.setAside)
        } catch {
            throw ServerError(status: error.status, name: error.name, message: error.message)
        }
        let source = try checkedSource(parsed.source)
        let maxBytes = parsed.options.maxSourceFileSize
        let jobLimits = limits(for: parsed.options)
        let baseKey = Self.infoKey(parsed, options) + "|" + recipe
        return try await RequestDeadline.run(seconds: configuration.requestTimeout) {
            let known = try await self.knownSource(source, maxBytes: maxBytes)
            self.revalidateIfStale(source, known.record, now: self.parser.now())
            let key = baseKey + "|" + known.record.identity
            if let hit = self.results?.get(key) {
                self.metrics.infoServed(from: .memory)
                return hit.body
            }
            let answer = try await self.jobs.value(for: key) {
                try await self.limiter.admit {
                    let (data, identity) = try await self.infoBytes(source, known: known, maxBytes: maxBytes)
                    let json = try await self.limiter.run {
                        try await CPUWork.run { [coders = self.coders] in
                            try SourceInfo.make(data, coders: coders, limits: jobLimits, options: options, source: source).json
                        }
                    }
                    let answer = ServedImage(json: ByteBuffer(bytes: json), source: source, sourceIdentity: identity)
                    self.results?.set(answer, for: baseKey + "|" + identity)
                    return answer
                }
            }
            self.metrics.infoServed(from: .made)
            return answer.body
        }
    }

    /// The part of an info answer's cache key before the recipe: `info`, the info options and the
    /// URL's canonical key (its processing options, whose limits apply, and the source).
    static func infoKey(_ parsed: ParsedImageURL, _ options: InfoOptions) -> String {
        let blurhash = options.blurhash.map { "bh:\($0.x):\($0.y)" } ?? "bh:0"
        return "info " + blurhash + (options.thumbhash ? "/th:1" : "") + " " + parsed.canonicalKey
    }

    /// The source's bytes of `known`'s version and their identity: fetched with the record, else
    /// cached when they are that version, else fetched from the origin again.
    private func infoBytes(_ source: URL, known: KnownSource, maxBytes: Int?) async throws -> (Data, String) {
        if let prefetched = known.prefetched { return (prefetched, known.record.identity) }
        let data = try await sourceData(source, maxBytes: maxBytes)
        let identity = try await CPUWork.run { SourceRecord.identity(of: data) }
        if identity == known.record.identity { return (data, identity) }
        let (record, fetched) = try await refetch(source, maxBytes: maxBytes)
        return (fetched, record.identity)
    }
}
