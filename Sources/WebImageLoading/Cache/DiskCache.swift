import WebImageCodecs
import Foundation
import Synchronization

/// SDWebImage's disk cache for Linux: one file per key, atomic writes, LRU trimming to a size limit.
///
/// Files live in `<config.directory>/<config.namespace>/`, named by the MD5 of the key plus its
/// extension (see ``cachePath(forKey:)``). Writes go to a hidden temporary file that is renamed into
/// place, so a crash or a second process never exposes a partial entry; in
/// ``DiskCacheDurability/durable`` mode they are also flushed to disk and checked on every read, so
/// not even a power loss does. An in-memory index (built by one scan, then kept current) tracks
/// sizes and access order, and a debounced background trim keeps the directory under
/// ``DiskCacheConfig/maxDiskSize`` without any manual call. The index's lock is never held over
/// file system I/O: a rescan of a large directory does not hold up reads and writes.
///
/// Several processes may share a directory: each sees the others' entries on reads, and its index
/// (hence ``totalSize`` and ``totalCount``) catches up at the next rescan — every
/// ``removeExpiredData()``, and a background trim whose index is over a minute old.
public final class DiskCache: DiskCaching {
    /// The settings this cache was created with.
    public let config: DiskCacheConfig
    /// The directory holding the entries: `<config.directory>/<config.namespace>`.
    public let directoryPath: String

    /// The index and what keeps it current; every field is read and changed under ``state``'s
    /// lock, which is never held over file system I/O.
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
        /// The scans running now and the index changes made since the oldest began.
        var scans = DiskCacheScans()

        /// Records `entry` for `name`, in the index and for the scans running.
        mutating func set(_ entry: DiskCacheIndex.Entry, for name: String) {
            index?.set(entry, for: name)
            scans.note(.set(name, entry))
        }

        /// Forgets `name`, in the index and for the scans running.
        mutating func remove(_ name: String) {
            index?.remove(name)
            scans.note(.remove(name))
        }

        /// Empties the index, and the results of the scans running.
        mutating func clear() {
            index = DiskCacheIndex()
            scans.note(.clear)
        }

        /// Drops the index (the directory was recreated) and the results of the scans running.
        mutating func invalidate() {
            index = nil
            scans.discardRunning()
        }
    }

    let state = Mutex(State())
    /// The store behind every call in the ``DiskCacheLayout/packed`` layout; nil in the files layout.
    let packed: PackedStore?
    /// Called with each name a directory scan lists, before it looks at the file (tests pause scans with it).
    let scanObserver: (@Sendable (String) -> Void)?

    /// A cache in `config`'s directory, which is created now if possible (and again on a later
    /// write if it is missing).
    public convenience init(config: DiskCacheConfig = DiskCacheConfig()) {
        self.init(config: config, scanObserver: nil)
    }

    init(config: DiskCacheConfig, scanObserver: (@Sendable (String) -> Void)?,
         packedTrimObserver: (@Sendable () -> Void)? = nil) {
        self.config = config
        self.scanObserver = scanObserver
        var path = config.directory.appendingPathComponent(config.namespace, isDirectory: true).path
        while path.count > 1 && path.hasSuffix("/") { path.removeLast() }
        directoryPath = path
        try? DiskCacheFileSystem.createDirectory(atPath: path)
        packed = config.layout == .packed ? PackedStore(config: config, namespaceDirectory: path, trimObserver: packedTrimObserver) : nil
    }

    /// The file that holds (or would hold) `key`'s bytes in the files layout. In the packed layout
    /// the bytes live in a segment; this is still the name the files layout would give them.
    public func cachePath(forKey key: String) -> String {
        path(forName: DiskCacheFileName.name(forKey: key))
    }

    /// True when an entry for `key` exists on disk.
    public func containsData(forKey key: String) -> Bool {
        if let packed {
            let bytes = Array(key.utf8)
            return packed.record(forKey: bytes, hash: PackedKeyHash.hash(bytes)) != nil
        }
        return existingName(forKey: key) != nil
    }

    /// The bytes stored for `key`, or nil; a hit counts as an access for LRU trimming.
    public func data(forKey key: String) -> Data? {
        if let packed {
            let bytes = Array(key.utf8)
            let hash = PackedKeyHash.hash(bytes)
            guard let record = packed.record(forKey: bytes, hash: hash) else { return nil }
            packed.touch(hash)
            return record.data
        }
        for name in candidateNames(forKey: key) {
            let path = path(forName: name)
            switch DiskCacheFileSystem.readFileAndIdentity(atPath: path) {
            case .success(let file):
                if let data = checkedPayload(of: file.data) {
                    recordAccess(toName: name)
                    return data
                }
                // Cut short, changed, or written without the trailer: a miss, and gone for good.
                DiskCacheFileSystem.removeFile(atPath: path, ifStill: file.identity)
                forgetIfGone(name)
            case .failure:
                // Gone (perhaps removed by another process) or unreadable: a miss for this name.
                forgetIfGone(name)
            }
        }
        return nil
    }

    /// Stores `data` and `extendedData` for `key`: one record in the packed layout; in the files
    /// layout the file, then its extended data (left out if that write fails).
    public func setData(_ data: Data, extendedData: Data?, forKey key: String) throws {
        if let packed {
            let bytes = Array(key.utf8)
            return try packed.store(key: bytes, hash: PackedKeyHash.hash(bytes), extendedData: extendedData, data: data)
        }
        try setData(data, forKey: key)
        if let extendedData { try? setExtendedData(extendedData, forKey: key) }
    }

    /// Writes `data` for `key` atomically (temporary file, then rename) and, in
    /// ``DiskCacheDurability/durable`` mode, flushed to disk; throws when the write fails.
    public func setData(_ data: Data, forKey key: String) throws {
        if let packed {
            let bytes = Array(key.utf8)
            return try packed.store(key: bytes, hash: PackedKeyHash.hash(bytes), extendedData: nil, data: data)
        }
        let name = DiskCacheFileName.name(forKey: key)
        let finalPath = path(forName: name)
        let date = state.withLock { nextDate(&$0) }
        let durable = config.durability == .durable
        let trailer = durable ? DiskCacheTrailer.make(for: data) : nil
        let temporaryPath = try writeTemporaryFile(data, trailer: trailer, date: date, finalPath: finalPath)
        guard rename(temporaryPath, finalPath) == 0 else {
            let failure = DiskCacheFileSystem.Failure()
            DiskCacheFileSystem.removeFile(atPath: temporaryPath)
            throw writeError(finalPath, failure)
        }
        if durable { DiskCacheFileSystem.syncDirectory(atPath: directoryPath) }
        // The new file has no extended attributes; drop a sidecar left by the old one too.
        if config.extendedDataStorage != .extendedAttributes {
            DiskCacheFileSystem.removeFile(atPath: sidecarPath(forName: name))
        }
        loadIndexIfNeeded()
        // Two writers of one key may record their sizes in the other order than they renamed:
        // the index is then off by the difference until the next rescan.
        let entry = DiskCacheIndex.Entry(size: data.count + (trailer?.count ?? 0), date: date, recordedAccessDate: date)
        let trimDelay: TimeInterval? = state.withLock { state in
            state.set(entry, for: name)
            return claimTrim(&state)
        }
        if let trimDelay { scheduleTrim(after: trimDelay) }
    }

    /// Deletes `key`'s entry and its extended data, if any.
    public func removeData(forKey key: String) {
        if let packed { return packed.remove(hash: PackedKeyHash.hash(Array(key.utf8))) }
        let names = candidateNames(forKey: key)
        deleteFiles(ofEntries: names)
        state.withLock { state in
            for name in names { state.remove(name) }
        }
    }

    /// Deletes every entry in this cache's directory.
    public func removeAll() {
        if let packed { return packed.removeAll() }
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
        state.withLock { $0.clear() }
    }

    /// Bytes held by the entries, from the index (scanned on first use).
    public var totalSize: Int {
        if let packed { return packed.totalSize }
        loadIndexIfNeeded()
        return state.withLock { $0.index?.totalSize ?? 0 }
    }

    /// Number of entries, from the index (scanned on first use).
    public var totalCount: Int {
        if let packed { return packed.totalCount }
        loadIndexIfNeeded()
        return state.withLock { $0.index?.count ?? 0 }
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

    /// Now, but strictly after every date handed out before.
    func nextDate(_ state: inout State) -> Double {
        state.lastDate = max(Date().timeIntervalSince1970, state.lastDate + 0.000_001)
        return state.lastDate
    }

    /// Deletes the files (entry and sidecar) of entries already taken out of the index.
    ///
    /// Runs outside the lock: a write of one of these names landing meanwhile may be deleted too,
    /// which leaves a miss and an index entry that the next failed read or rescan drops.
    func deleteFiles(ofEntries names: [String]) {
        for name in names {
            DiskCacheFileSystem.removeFile(atPath: path(forName: name))
            DiskCacheFileSystem.removeFile(atPath: sidecarPath(forName: name))
        }
    }

    func writeError(_ path: String, _ failure: DiskCacheFileSystem.Failure) -> WebImageError {
        WebImageError(.cacheFailure, "Could not write the disk cache file \(path): \(failure.text) (errno \(failure.code)). Check that the cache directory exists, is writable and its disk has space.")
    }

    // MARK: - Private

    /// The stored bytes in an entry file: all of it in ``DiskCacheDurability/atomic`` mode; the
    /// bytes before a matching trailer in ``DiskCacheDurability/durable`` mode, else nil.
    private func checkedPayload(of file: Data) -> Data? {
        switch config.durability {
        case .atomic: file
        case .durable: DiskCacheTrailer.payload(of: file)
        }
    }

    /// Writes the temporary file, recreating the directory once if it vanished.
    private func writeTemporaryFile(_ data: Data, trailer: Data?, date: Double, finalPath: String) throws -> String {
        let sync = config.durability == .durable
        let failure: DiskCacheFileSystem.Failure
        do {
            return try DiskCacheFileSystem.writeTemporaryFile(data, trailer: trailer, inDirectory: directoryPath,
                                                              date: date, sync: sync)
        } catch {
            failure = error
        }
        guard failure.code == ENOENT else { throw writeError(finalPath, failure) }
        do {
            try DiskCacheFileSystem.createDirectory(atPath: directoryPath)
        } catch {
            throw WebImageError(.cacheFailure, "Could not create the disk cache directory \(directoryPath): \(error.text) (errno \(error.code)).")
        }
        state.withLock { $0.invalidate() }  // The directory is new: rescan it when next needed.
        do {
            return try DiskCacheFileSystem.writeTemporaryFile(data, trailer: trailer, inDirectory: directoryPath,
                                                              date: date, sync: sync)
        } catch {
            throw writeError(finalPath, error)
        }
    }

    /// Forgets `name` when its file is gone (a failed read). A write landing between the check
    /// and the lock leaves its entry out of the index until a read or rescan finds it again.
    private func forgetIfGone(_ name: String) {
        guard DiskCacheFileSystem.info(atPath: path(forName: name)) == nil else { return }
        state.withLock { $0.remove(name) }
    }

    /// Notes a read: moves the entry to the front of the LRU order, and records the access date on
    /// disk (throttled) so the order survives a restart without relying on the mount's atime.
    private func recordAccess(toName name: String) {
        loadIndexIfNeeded()
        let path = path(forName: name)
        // Decided under the lock, written to the file after it.
        let (date, known, records) = state.withLock { state -> (Double, Bool, Bool) in
            let date = nextDate(&state)
            guard var entry = state.index?[name] else { return (date, false, false) }
            let records = date - entry.recordedAccessDate >= config.accessDateUpdateInterval
            if records {
                entry.recordedAccessDate = date
                if config.expireType == .changeDate { entry.date = date }
            }
            if config.expireType == .accessDate { entry.date = date }
            state.set(entry, for: name)
            return (date, true, records)
        }
        if known {
            if records { DiskCacheFileSystem.setAccessDate(date, atPath: path) }
            return
        }
        // Written by another process since the scan (or removed since the read): ask the disk.
        guard let info = DiskCacheFileSystem.info(atPath: path) else { return }
        DiskCacheFileSystem.setAccessDate(date, atPath: path)
        state.withLock { state in
            guard state.index != nil, state.index?[name] == nil else { return }
            state.set(DiskCacheIndex.Entry(size: info.size, date: date, recordedAccessDate: date), for: name)
        }
    }
}
