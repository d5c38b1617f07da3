import WebImageCodecs
import Foundation
import Synchronization

/// SDWebImage's disk cache for Linux: one file per key, atomic writes, LRU trimming to a size limit.
///
/// Files live in `<config.directory>/<config.namespace>/`, named by the MD5 of the key plus its
/// extension (see ``cachePath(forKey:)``). Writes go to a hidden temporary file that is renamed into
/// place, so a crash or a second process never exposes a partial entry. An in-memory index (built by
/// one scan, then kept current) tracks sizes and access order, and a debounced background trim keeps
/// the directory under ``DiskCacheConfig/maxDiskSize`` without any manual call.
///
/// Several processes may share a directory: each sees the others' entries on reads, and its index
/// (hence ``totalSize`` and ``totalCount``) catches up at the next rescan — every
/// ``removeExpiredData()``, and a background trim whose index is over a minute old.
public final class DiskCache: DiskCaching {
    /// The settings this cache was created with.
    public let config: DiskCacheConfig
    /// The directory holding the entries: `<config.directory>/<config.namespace>`.
    public let directoryPath: String

    struct State {
        /// nil until first needed, and after the directory was recreated.
        var index: DiskCacheIndex?
        /// When the index was last rebuilt from the directory (seconds since 1970).
        var indexScannedAt: Double = 0
        /// The last date handed out; dates are strictly increasing so LRU order has no ties.
        var lastDate: Double = 0
        var trimScheduled = false
        /// Learned on the first extended-data write in automatic mode.
        var extendedAttributesSupported: Bool?
    }

    let state = Mutex(State())

    /// A cache in `config`'s directory, which is created now if possible (and again on a later
    /// write if it is missing).
    public init(config: DiskCacheConfig = DiskCacheConfig()) {
        self.config = config
        var path = config.directory.appendingPathComponent(config.namespace, isDirectory: true).path
        while path.count > 1 && path.hasSuffix("/") { path.removeLast() }
        directoryPath = path
        try? DiskCacheFileSystem.createDirectory(atPath: path)
    }

    /// The file that holds (or would hold) `key`'s bytes.
    public func cachePath(forKey key: String) -> String {
        path(forName: DiskCacheFileName.name(forKey: key))
    }

    /// True when an entry for `key` exists on disk.
    public func containsData(forKey key: String) -> Bool {
        existingName(forKey: key) != nil
    }

    /// The bytes stored for `key`, or nil; a hit counts as an access for LRU trimming.
    public func data(forKey key: String) -> Data? {
        for name in candidateNames(forKey: key) {
            switch DiskCacheFileSystem.readFile(atPath: path(forName: name)) {
            case .success(let data):
                recordAccess(toName: name)
                return data
            case .failure:
                // Gone (perhaps removed by another process) or unreadable: a miss for this name. It
                // leaves the index only if still gone now, under the lock: a write may have landed
                // since the read (reads run beside writes), and an unreadable file still takes space.
                state.withLock { state in
                    guard state.index?[name] != nil, DiskCacheFileSystem.info(atPath: path(forName: name)) == nil else { return }
                    state.index?.remove(name)
                }
            }
        }
        return nil
    }

    /// Writes `data` for `key` atomically (temporary file, then rename); throws when the write fails.
    public func setData(_ data: Data, forKey key: String) throws {
        let name = DiskCacheFileName.name(forKey: key)
        let finalPath = path(forName: name)
        let date = state.withLock { nextDate(&$0) }
        let temporaryPath = try writeTemporaryFile(data, date: date, finalPath: finalPath)
        let trimDelay: TimeInterval? = try state.withLock { state in
            guard rename(temporaryPath, finalPath) == 0 else {
                let failure = DiskCacheFileSystem.Failure()
                DiskCacheFileSystem.removeFile(atPath: temporaryPath)
                throw writeError(finalPath, failure)
            }
            // The new file has no extended attributes; drop a sidecar left by the old one too.
            if config.extendedDataStorage != .extendedAttributes {
                DiskCacheFileSystem.removeFile(atPath: sidecarPath(forName: name))
            }
            let entry = DiskCacheIndex.Entry(size: data.count, date: date, recordedAccessDate: date)
            withIndex(&state) { $0.set(entry, for: name) }
            return claimTrim(&state)
        }
        if let trimDelay { scheduleTrim(after: trimDelay) }
    }

    /// Deletes `key`'s entry and its extended data, if any.
    public func removeData(forKey key: String) {
        state.withLock { state in
            for name in candidateNames(forKey: key) { removeEntry(named: name, state: &state) }
        }
    }

    /// Deletes every entry in this cache's directory.
    public func removeAll() {
        state.withLock { state in
            let now = Date().timeIntervalSince1970
            for name in DiskCacheFileSystem.contentsOfDirectory(atPath: directoryPath) ?? [] {
                let path = path(forName: name)
                // Leave other writers' fresh temporary files alone: their renames are still to come.
                if name.hasPrefix(DiskCacheFileSystem.temporaryPrefix),
                   let info = DiskCacheFileSystem.info(atPath: path),
                   now - info.modificationDate < DiskCacheConfig.staleTemporaryFileAge { continue }
                if !DiskCacheFileSystem.removeFile(atPath: path) {
                    try? FileManager.default.removeItem(atPath: path)  // a stray directory
                }
            }
            try? DiskCacheFileSystem.createDirectory(atPath: directoryPath)
            state.index = DiskCacheIndex()
        }
    }

    /// Bytes held by the entries, from the index (scanned on first use).
    public var totalSize: Int {
        state.withLock { state in withIndex(&state) { $0.totalSize } }
    }

    /// Number of entries, from the index (scanned on first use).
    public var totalCount: Int {
        state.withLock { state in withIndex(&state) { $0.count } }
    }

    // MARK: - Helpers shared by the extensions

    func path(forName name: String) -> String { directoryPath + "/" + name }

    /// The hidden file holding an entry's extended data in sidecar mode.
    func sidecarPath(forName name: String) -> String { directoryPath + "/." + name + ".meta" }

    /// The entry's current name, then the legacy extension-less one when different.
    func candidateNames(forKey key: String) -> [String] {
        let name = DiskCacheFileName.name(forKey: key)
        let legacy = DiskCacheFileName.legacyName(forKey: key)
        return name == legacy ? [name] : [name, legacy]
    }

    /// The name under which `key` is stored on disk right now, if any.
    func existingName(forKey key: String) -> String? {
        candidateNames(forKey: key).first { DiskCacheFileSystem.info(atPath: path(forName: $0))?.isRegularFile == true }
    }

    /// Runs `body` on the index, scanning the directory first if it is not loaded.
    func withIndex<Result>(_ state: inout State, _ body: (inout DiskCacheIndex) -> Result) -> Result {
        if state.index == nil { rescan(&state) }
        return body(&state.index!)
    }

    /// Now, but strictly after every date handed out before.
    func nextDate(_ state: inout State) -> Double {
        state.lastDate = max(Date().timeIntervalSince1970, state.lastDate + 0.000_001)
        return state.lastDate
    }

    /// Deletes an entry's file and its sidecar and forgets it.
    func removeEntry(named name: String, state: inout State) {
        DiskCacheFileSystem.removeFile(atPath: path(forName: name))
        DiskCacheFileSystem.removeFile(atPath: sidecarPath(forName: name))
        state.index?.remove(name)
    }

    func writeError(_ path: String, _ failure: DiskCacheFileSystem.Failure) -> WebImageError {
        WebImageError(.cacheFailure, "Could not write the disk cache file \(path): \(failure.text) (errno \(failure.code)). Check that the cache directory exists, is writable and its disk has space.")
    }

    // MARK: - Private

    /// Writes the temporary file, recreating the directory once if it vanished.
    private func writeTemporaryFile(_ data: Data, date: Double, finalPath: String) throws -> String {
        let failure: DiskCacheFileSystem.Failure
        do {
            return try DiskCacheFileSystem.writeTemporaryFile(data, inDirectory: directoryPath, date: date)
        } catch {
            failure = error
        }
        guard failure.code == ENOENT else { throw writeError(finalPath, failure) }
        do {
            try DiskCacheFileSystem.createDirectory(atPath: directoryPath)
        } catch {
            throw WebImageError(.cacheFailure, "Could not create the disk cache directory \(directoryPath): \(error.text) (errno \(error.code)).")
        }
        state.withLock { $0.index = nil }  // The directory is new: rescan it when next needed.
        do {
            return try DiskCacheFileSystem.writeTemporaryFile(data, inDirectory: directoryPath, date: date)
        } catch {
            throw writeError(finalPath, error)
        }
    }

    /// Notes a read: moves the entry to the front of the LRU order, and records the access date on
    /// disk (throttled) so the order survives a restart without relying on the mount's atime.
    private func recordAccess(toName name: String) {
        state.withLock { state in
            let date = nextDate(&state)
            withIndex(&state) { index in
                let path = path(forName: name)
                // Written by another process since the scan, or removed since the read: check the disk.
                guard var entry = index[name] ?? DiskCacheFileSystem.info(atPath: path).map({
                    DiskCacheIndex.Entry(size: $0.size, date: date, recordedAccessDate: 0)
                }) else { return }
                let records = date - entry.recordedAccessDate >= config.accessDateUpdateInterval
                if records, DiskCacheFileSystem.setAccessDate(date, atPath: path) {
                    entry.recordedAccessDate = date
                    if config.expireType == .changeDate { entry.date = date }
                }
                if config.expireType == .accessDate { entry.date = date }
                index.set(entry, for: name)
            }
        }
    }
}
