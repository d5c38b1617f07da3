import Foundation
import WebImage

/// `GET /info/SIGNATURE/OPTIONS/plain/SOURCE` (or the base64 source form): what the source is,
/// as JSON, signed and checked as a processing URL is.
extension ImagePipeline {
    /// The path every info request starts with.
    static let infoPrefix = "/info"

    /// The JSON body for an info request's `target` (the raw request target, `/info/…`). The
    /// signature covers the path after it, as for processing URLs; the source is checked, loaded
    /// and limited as for a result, within the request timeout, its decode in a worker slot.
    func info(target: String) async throws -> Data {
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
        return try await RequestDeadline.run(seconds: configuration.requestTimeout) {
            let known = try await self.knownSource(source, maxBytes: maxBytes)
            self.revalidateIfStale(source, known.record, now: self.parser.now())
            return try await self.limiter.admit {
                let data = try await self.infoBytes(source, known: known, maxBytes: maxBytes)
                return try await self.limiter.run {
                    try await CPUWork.run { [coders = self.coders] in
                        try SourceInfo.make(data, coders: coders, limits: jobLimits, options: options, source: source).json
                    }
                }
            }
        }
    }

    /// The source's bytes of `known`'s version: fetched with the record, else cached when they are
    /// that version, else fetched from the origin again.
    private func infoBytes(_ source: URL, known: KnownSource, maxBytes: Int?) async throws -> Data {
        if let prefetched = known.prefetched { return prefetched }
        let data = try await sourceData(source, maxBytes: maxBytes)
        let identity = try await CPUWork.run { SourceRecord.identity(of: data) }
        if identity == known.record.identity { return data }
        return try await refetch(source, maxBytes: maxBytes).1
    }
}
