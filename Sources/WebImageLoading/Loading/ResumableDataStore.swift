import WebImageCodecs
import Foundation
import Synchronization

/// The bytes of downloads that ended part-way, kept so the next attempt (a retry, or the next load
/// of the URL with the same request) asks only for the rest with `Range` and `If-Range`. Bounded by a byte budget; the
/// least recently stored entries go first, and a body larger than the whole budget is not kept.
final class ResumableDataStore: Sendable {
    /// A partial body and what identifies the representation it belongs to.
    struct Entry: Sendable, Equatable {
        let data: Data
        /// The `If-Range` value: a strong ETag, else the Last-Modified date.
        let validator: String
        /// The full length, when the response said it.
        let totalLength: Int64?
    }

    /// What an entry is kept under: the request it was the answer to, so that only the same
    /// request (URL, header fields, credential, TLS verification, cookie handling) continues it.
    struct Key: Hashable, Sendable {
        let url: String
        /// `name:value` of every header field, names lowercased, sorted.
        let headers: [String]
        let credential: DownloadCredential?
        let allowsInvalidCertificates: Bool
        let handleCookies: Bool
    }

    private struct State {
        var entries: [Key: (entry: Entry, order: UInt64)] = [:]
        var bytes = 0
        var clock: UInt64 = 0
    }

    let budget: Int
    private let state = Mutex(State())

    /// A store holding at most `budget` bytes (0 keeps nothing).
    init(budget: Int) { self.budget = max(0, budget) }

    /// Removes and returns the entry for `key`.
    func take(for key: Key) -> Entry? {
        guard budget > 0 else { return nil }
        return state.withLock { state in
            guard let stored = state.entries.removeValue(forKey: key) else { return nil }
            state.bytes -= stored.entry.data.count
            return stored.entry
        }
    }

    /// Keeps `entry` for `key`, evicting the oldest entries to stay within the budget. False when
    /// the entry is larger than the whole budget (or empty) and was not kept.
    @discardableResult
    func store(_ entry: Entry, for key: Key) -> Bool {
        guard entry.data.count <= budget, !entry.data.isEmpty else { return false }
        return state.withLock { state in
            if let old = state.entries.removeValue(forKey: key) { state.bytes -= old.entry.data.count }
            while state.bytes + entry.data.count > budget,
                  let oldest = state.entries.min(by: { $0.value.order < $1.value.order }) {
                state.entries[oldest.key] = nil
                state.bytes -= oldest.value.entry.data.count
            }
            state.clock += 1
            state.entries[key] = (entry, state.clock)
            state.bytes += entry.data.count
            return true
        }
    }

    /// Bytes held now.
    var totalBytes: Int { state.withLock { $0.bytes } }

    /// Entries held now.
    var count: Int { state.withLock { $0.entries.count } }
}

extension ResumableDataStore.Entry {
    /// The entry for `data`, the first bytes of the body of `response`, or nil when the response
    /// cannot be resumed (see ``validator(of:)``) or nothing, or everything, was received.
    init?(data: Data, response: ImageResponseInfo, totalLength: Int64?) {
        guard !data.isEmpty, let validator = Self.validator(of: response) else { return nil }
        if let totalLength, Int64(data.count) >= totalLength { return nil }
        self.init(data: data, validator: validator, totalLength: totalLength)
    }

    /// The `If-Range` value that resumes `response`'s body: its strong ETag, else its
    /// Last-Modified. Nil when it cannot be resumed: not 200 or 206, no `Accept-Ranges: bytes` on
    /// a 200, or neither validator.
    static func validator(of response: ImageResponseInfo) -> String? {
        guard response.statusCode == 200 || response.statusCode == 206 else { return nil }
        if response.statusCode == 200 {
            let ranges = response.headers[header: "Accept-Ranges"]?.lowercased().split(separator: ",")
                .map { $0.trimmingCharacters(in: .whitespaces) } ?? []
            guard ranges.contains("bytes") else { return nil }
        }
        let etag = response.headers[header: "ETag"].flatMap { $0.hasPrefix("W/") ? nil : $0 }
        return etag ?? response.headers[header: "Last-Modified"]
    }
}

/// A `Content-Range: bytes first-last/total` header (RFC 9110 §14.4); `total` is nil for `*`.
struct ContentRange: Equatable {
    let first: Int64
    let last: Int64
    let total: Int64?

    init?(_ value: String) {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        guard trimmed.lowercased().hasPrefix("bytes ") else { return nil }
        let spec = trimmed.dropFirst(6).trimmingCharacters(in: .whitespaces)
        let halves = spec.split(separator: "/", omittingEmptySubsequences: false)
        guard halves.count == 2 else { return nil }
        let bounds = halves[0].split(separator: "-", omittingEmptySubsequences: false)
        guard bounds.count == 2, let first = Int64(bounds[0]), let last = Int64(bounds[1]),
              first >= 0, last >= first else { return nil }
        if halves[1] == "*" {
            total = nil
        } else {
            guard let total = Int64(halves[1]), total > last else { return nil }
            self.total = total
        }
        self.first = first
        self.last = last
    }

    init(first: Int64, last: Int64, total: Int64?) {
        self.first = first
        self.last = last
        self.total = total
    }

    /// True when this range is exactly the rest of `entry`'s body: it starts where the stored
    /// bytes end and runs to the end of the same total length.
    func continues(_ entry: ResumableDataStore.Entry) -> Bool {
        guard first == Int64(entry.data.count) else { return false }
        if let total, let known = entry.totalLength, total != known { return false }
        if let total { return last == total - 1 }
        return true
    }
}
