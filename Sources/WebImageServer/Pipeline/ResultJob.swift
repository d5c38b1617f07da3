import Foundation
import WebImage

/// One result to find or make: the parsed URL, its checked source, the output format, the result
/// key without the source's identity (``baseKey``), the source's record when the request began,
/// and the source's bytes when they were fetched to learn that record.
struct ResultJob: Sendable {
    let parsed: ParsedImageURL
    let source: URL
    let format: ImageFormat?
    let negotiated: Bool
    /// The formats `format:best` may choose from, when the URL asks for it.
    let best: BestFormatCandidates?
    /// The URL's canonical options, the format and the server's recipe: the result key is this,
    /// `|` and the identity of the source bytes the result is made from.
    let baseKey: String
    let record: SourceRecord
    let prefetched: Data?

    /// The result key of this job's result made from source bytes of `identity`.
    func key(identity: String) -> String { baseKey + "|" + identity }
}
