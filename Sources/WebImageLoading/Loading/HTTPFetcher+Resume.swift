import WebImageCodecs
import AsyncHTTPClient
import Foundation
import NIOHTTP1

/// Resuming a body that ended part-way: the ranged request, the check of the server's answer and
/// the bytes kept when a body is cut.
extension HTTPFetcher {
    /// What to do with the answer to a request for the rest of a stored body.
    enum ResumeAnswer: Equatable {
        /// A 206 for exactly the missing bytes: append them to the stored ones.
        case append
        /// A 416, or a 206 for other bytes, another representation or with a `Content-Length`
        /// that is not its range's: drop the stored bytes and ask again without a range.
        case startOver
        /// Any other answer (a 200 because `If-Range` no longer matched): a whole body follows.
        case wholeBody
    }

    /// The stored partial body `plan` can continue from, taken out of the store (used once).
    func takeResumableBody(for plan: DownloadPlan) -> ResumableDataStore.Entry? {
        guard plan.allowsResume else { return nil }
        return resumables.take(for: plan.resumeKey)
    }

    /// Judges `response` to a ranged request that continues `entry`.
    static func answer(_ response: HTTPResponseHead, resuming entry: ResumableDataStore.Entry) -> ResumeAnswer {
        switch response.status.code {
        case 206:
            guard let range = response.headers.first(name: "Content-Range").flatMap(ContentRange.init),
                  range.continues(entry) else { return .startOver }
            // A body whose declared length is not the range's would be spliced short or long.
            if let declared = response.headers.first(name: "Content-Length") {
                guard let length = Int64(declared.trimmingCharacters(in: .whitespaces)),
                      length == range.last - range.first + 1 else { return .startOver }
            }
            // The server's validator, when it sends the kind stored, must name the same representation.
            let strong = entry.validator.hasPrefix("\"")
            if let current = response.headers.first(name: strong ? "ETag" : "Last-Modified"), current != entry.validator {
                return .startOver
            }
            return .append
        case 416:
            return .startOver
        default:
            return .wholeBody
        }
    }

    /// Keeps the bytes of a body cut short, when its response allows resuming it (a resumed body
    /// keeps the stored validator when its 206 names none). The bytes are copied only then, so the
    /// block is not pinned and a body that cannot be resumed costs nothing.
    func keepForResume(_ body: ResponseBody, response: ImageResponseInfo, totalLength: Int64?,
                       resumed: ResumableDataStore.Entry?, plan: DownloadPlan) {
        guard plan.allowsResume, body.count > 0, body.count <= resumables.budget,
              totalLength.map({ Int64(body.count) < $0 }) ?? true,
              let validator = ResumableDataStore.Entry.validator(of: response) ?? resumed?.validator else { return }
        let bytes = body.snapshot().withUnsafeBytes { Data($0) }
        let entry = ResumableDataStore.Entry(data: bytes, validator: validator, totalLength: totalLength)
        guard resumables.store(entry, for: plan.resumeKey) else { return }
        logger.debug("kept a partial body to resume", metadata: [
            "url": "\(plan.request.url)", "bytes": "\(bytes.count)",
        ])
    }
}

extension DownloadPlan {
    /// What a partial body of this download is kept under: its URL and everything about the
    /// request that can change the body the server sends.
    var resumeKey: ResumableDataStore.Key {
        ResumableDataStore.Key(
            url: request.url.absoluteString,
            headers: request.headers.map { $0.name.lowercased() + ":" + $0.value }.sorted(),
            credential: credential, allowsInvalidCertificates: allowInvalidCertificates, handleCookies: handleCookies)
    }

    /// GET without conditional or range headers of its own: a stored partial body may be resumed.
    var allowsResume: Bool {
        guard request.method.uppercased() == "GET" else { return false }
        return !request.headers.contains { field in
            ["Range", "If-Range", "If-None-Match", "If-Modified-Since"].contains { HTTPHeaderName.matches(field.name, $0) }
        }
    }
}
