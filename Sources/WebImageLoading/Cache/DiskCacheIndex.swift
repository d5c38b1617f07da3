import WebImageCodecs
import Foundation

/// The in-memory picture of a cache directory: each entry's size and ranking date, and the total.
///
/// Built once by a directory scan and kept current by the cache's own writes, reads and removes,
/// so the hot path never lists the directory.
struct DiskCacheIndex: Sendable {
    struct Entry: Sendable {
        /// Logical size in bytes.
        var size: Int
        /// The date that ranks the entry for expiry and trimming (per the expire type), seconds since 1970.
        var date: Double
        /// The access date last written to the file, for throttling those writes.
        var recordedAccessDate: Double
    }

    private(set) var entries: [String: Entry] = [:]
    private(set) var totalSize = 0

    var count: Int { entries.count }

    subscript(name: String) -> Entry? { entries[name] }

    mutating func set(_ entry: Entry, for name: String) {
        if let old = entries.updateValue(entry, forKey: name) { totalSize -= old.size }
        totalSize += entry.size
    }

    @discardableResult
    mutating func remove(_ name: String) -> Entry? {
        guard let old = entries.removeValue(forKey: name) else { return nil }
        totalSize -= old.size
        return old
    }

    /// Entry names from the oldest ranking date to the newest (ties broken by name, for stability).
    func namesOldestFirst() -> [String] {
        entries.sorted { $0.value.date != $1.value.date ? $0.value.date < $1.value.date : $0.key < $1.key }
            .map(\.key)
    }
}
