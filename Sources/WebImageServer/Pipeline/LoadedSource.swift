import Foundation
import WebImage

/// A source's bytes as the image manager gave them, with what they say of the source's version:
/// the response's headers when they were downloaded (nil when read from a cache), and the
/// validators stored with them in the cache.
struct LoadedSource: Sendable {
    let data: Data
    let headers: [HTTPHeaderField]?
    let cachedValidators: HTTPValidators?
}

/// A source's record, and its bytes when they were fetched to make it (the first result made
/// from them needs no second fetch).
struct KnownSource: Sendable {
    let record: SourceRecord
    let prefetched: Data?
}
