import WebImageCodecs
import Foundation

/// A key → bytes store on disk, with SDWebImage's `SDDiskCache` surface.
///
/// Every method is synchronous and thread-safe. The image cache calls a custom store only from its
/// serial I/O queue; the built-in ``DiskCache`` is also read from other threads beside its writes.
/// Reads never throw: anything unreadable (missing, vanished, corrupt) is a miss.
public protocol DiskCaching: Sendable {
    /// Whether an entry exists for `key` (including one stored under the legacy extension-less name).
    func containsData(forKey key: String) -> Bool
    /// The stored bytes for `key`, or nil on a miss. A hit counts as an access for LRU trimming.
    func data(forKey key: String) -> Data?
    /// Stores `data` for `key` atomically: readers see the old bytes or the new ones, never a mix.
    /// - Throws: ``WebImageError/Code/cacheFailure`` when the directory cannot be written.
    func setData(_ data: Data, forKey key: String) throws
    /// Stores `data` for `key` as ``setData(_:forKey:)`` does, with `extendedData` alongside it.
    /// The bytes are the entry: extended data that cannot be written is left out, as a failed
    /// ``setExtendedData(_:forKey:)`` after the write would leave it. Default: those two calls.
    /// - Throws: ``WebImageError/Code/cacheFailure`` when the bytes cannot be written.
    func setData(_ data: Data, extendedData: Data?, forKey key: String) throws
    /// The extra bytes stored alongside the entry for `key` (e.g. HTTP validators), if any.
    func extendedData(forKey key: String) -> Data?
    /// Stores extra bytes alongside the existing entry for `key`; nil removes them.
    /// - Throws: ``WebImageError/Code/cacheFailure`` when there is no entry or the write fails.
    func setExtendedData(_ data: Data?, forKey key: String) throws
    /// Deletes the entry for `key` and its extended data; a missing entry is not an error.
    func removeData(forKey key: String)
    /// Deletes every entry, leaving an empty, usable directory.
    func removeAll()
    /// Applies the age limit and then the size limit, after rescanning the directory.
    func removeExpiredData()
    /// The sum of the entries' sizes in bytes.
    var totalSize: Int { get }
    /// The number of entries.
    var totalCount: Int { get }
    /// The file path an entry for `key` is (or would be) stored at.
    func cachePath(forKey key: String) -> String
}

extension DiskCaching {
    /// The bytes, then the extended data (a failure there leaves the entry without it).
    public func setData(_ data: Data, extendedData: Data?, forKey key: String) throws {
        try setData(data, forKey: key)
        if let extendedData { try? setExtendedData(extendedData, forKey: key) }
    }
}
