import WebImageCodecs
import Dispatch
import Foundation
import Glibc

/// Size limits, expiry and compaction: whole files are deleted, oldest first, after the entries
/// used since the cut-off are copied forward out of them.
extension PackedStore {
    /// Live bytes kept by a trim: this share of the target, so copied entries and the segments
    /// being appended to still fit under it.
    static let keptShareOfTarget = 0.9
    /// A sealed segment whose live records are under this share of its bytes is compacted by
    /// ``removeExpiredData()``.
    static let compactionLiveShare = 0.5

    /// Applies the age limit, compacts mostly-dead segments, then trims to the size limit.
    func removeExpiredData() {
        loadIfNeeded()
        catchUp(listingOnly: false)
        // This store's own segment becomes one to compact like the others.
        appender.withLock { seal(&$0) }
        if config.maxDiskAge >= 0 {
            let cutoff = UInt64(max(0, (Date().timeIntervalSince1970 - config.maxDiskAge) * 1_000_000))
            let expired: [(UInt64, PackedEntry)] = state.withLock { state in
                state.index.entries.filter { $0.value.accessed <= cutoff }.map { ($0.key, $0.value) }
            }
            for (hash, entry) in expired {
                // Only the access time ranks entries here; a write sets it too, so an entry never
                // read since it was written expires by its write time.
                state.withLock { state in
                    if let current = state.index[hash], current.isAt(entry) { state.index.remove(hash) }
                    state.dirty = true
                }
                markDeleted(entry)
            }
        }
        compact(keepingAccessedSince: 0, until: nil) { segment in
            !segment.isSingleEntry && Double(segment.liveBytes) < Double(segment.covered) * Self.compactionLiveShare
        }
        trimToSizeLimit(savingIndex: false)
        saveIndex()
    }

    /// When over ``DiskCacheConfig/maxDiskSize``: deletes the oldest files until the store is
    /// under `maxDiskSize × trimRatio`, copying forward the entries used most recently that fit.
    func trimToSizeLimit(savingIndex: Bool = true) {
        guard config.maxDiskSize > 0 else { return }
        loadIfNeeded()
        catchUp(listingOnly: false)
        guard state.withLock({ $0.index.diskBytes }) > config.maxDiskSize else { return }
        let target = Int(Double(config.maxDiskSize) * min(1, max(0, config.trimRatio)))
        let cutoff = accessCutoff(keeping: Int(Double(target) * Self.keptShareOfTarget))
        // This store's own segment becomes one to compact like the others.
        appender.withLock { seal(&$0) }
        compact(keepingAccessedSince: cutoff, until: target) { _ in true }
        if savingIndex { saveIndex() }
    }

    /// The oldest access time that survives a trim: the newest entries that fit in `budget` bytes.
    private func accessCutoff(keeping budget: Int) -> UInt64 {
        var ranked: [(accessed: UInt64, length: UInt32)] = state.withLock { state in
            state.index.entries.values.map { ($0.accessed, $0.length) }
        }
        ranked.sort { $0.accessed > $1.accessed }
        var kept = 0
        for item in ranked {
            kept += Int(item.length)
            if kept > budget { return item.accessed + 1 }
        }
        return 0
    }

    /// Compacts the files `chosen` picks, oldest first, until the store's bytes are at most
    /// `target` (all of them when nil). Skips files another process is appending to, and runs in
    /// one process at a time (a lock file); another process's compaction makes this one a no-op.
    func compact(keepingAccessedSince cutoff: UInt64, until target: Int?, chosen: (PackedSegment) -> Bool) {
        guard let lock = CompactionLock(path: path(of: Self.compactionLockName), wait: false) else { return }
        defer { lock.release() }
        let candidates: [(UInt32, PackedSegment)] = state.withLock { state in
            state.index.segments.filter { !$0.value.isOwnActive && chosen($0.value) }
                .sorted { ($0.value.createdAt, $0.key) < ($1.value.createdAt, $1.key) }
        }
        var diskBytes = state.withLock { $0.index.diskBytes }
        var removed: Set<UInt32> = []
        for (number, segment) in candidates {
            if let target, diskBytes <= target { break }
            guard let copied = compactOne(number, segment, keepingAccessedSince: cutoff) else { continue }
            removed.insert(number)
            diskBytes += copied - segment.covered
        }
        // One pass over the entries for every file deleted.
        state.withLock { state in
            state.index.removeSegments(removed)
            state.dirty = true
        }
        if !removed.isEmpty { deleteDiscardedFiles() }
    }

    /// Copies forward `segment`'s live entries used at or after `cutoff`, then deletes it; returns
    /// the bytes copied, or nil when it is in use by an appender and was left alone.
    private func compactOne(_ number: UInt32, _ segment: PackedSegment, keepingAccessedSince cutoff: UInt64) -> Int? {
        let path = path(of: segment.name)
        if segment.isSingleEntry {
            guard segment.liveBytes == 0 || segment.lastAccess < cutoff else { return nil }
            discard(path)
            return 0
        }
        guard let file = PackedFile.open(atPath: path) else { return 0 }
        guard file.lock(.appender, exclusive: true, wait: false), file.lock(.records, exclusive: true, wait: false) else { return nil }
        var copied = 0
        defer { file.unlock(.records); file.unlock(.appender) }
        if segment.liveBytes > 0 && segment.lastAccess >= cutoff, let size = file.size {
            let read = PackedSegmentReader.records(of: file, from: 0, to: size, keepBytes: true)
            for item in read.items where item.kind == .entry && !item.isDeleted {
                guard var bytes = item.bytes else { continue }
                let old = PackedEntry(segment: number, offset: UInt32(item.offset), length: UInt32(item.length), accessed: 0)
                let current: PackedEntry? = state.withLock { state in state.index[item.hash].flatMap { $0.isAt(old) ? $0 : nil } }
                guard let current, current.accessed >= cutoff else { continue }
                bytes[bytes.startIndex + PackedRecord.flagsOffset] = 0
                guard let placed = try? append(bytes) else { return nil }
                copied += bytes.count
                state.withLock { state in
                    guard let now = state.index[item.hash], now.isAt(old) else { return }
                    state.index.set(PackedEntry(segment: placed.segment, offset: UInt32(placed.offset),
                                                length: UInt32(bytes.count), accessed: now.accessed), for: item.hash)
                }
            }
            if config.durability == .durable { appender.withLock { $0.file?.sync() } }
        }
        discard(path)
        return copied
    }

    /// Takes a compacted file out of the store at once (a rename, which every process sees as its
    /// deletion) and leaves freeing its blocks — tens of milliseconds for a large segment — to
    /// ``deleteDiscardedFiles()``.
    private func discard(_ path: String) {
        if rename(path, path + Self.discardedSuffix) != 0 { DiskCacheFileSystem.removeFile(atPath: path) }
    }

    /// Deletes the files compactions took out, in the background.
    func deleteDiscardedFiles() {
        let directory = directory
        DispatchQueue.global(qos: .utility).async {
            for name in DiskCacheFileSystem.contentsOfDirectory(atPath: directory) ?? [] where name.hasSuffix(Self.discardedSuffix) {
                DiskCacheFileSystem.removeFile(atPath: directory + "/" + name)
            }
        }
    }

    /// Suffix of a compacted file waiting to be deleted.
    static let discardedSuffix = ".deleted"

    // MARK: Automatic trims

    /// Claims the one pending background trim when the store is over its limit.
    func claimTrim(_ state: inout PackedState) -> TimeInterval? {
        guard let delay = config.automaticTrimDelay, config.maxDiskSize > 0, !state.trimScheduled,
              state.index.diskBytes > config.maxDiskSize else { return nil }
        state.trimScheduled = true
        return max(0, delay)
    }

    func scheduleTrim(after delay: TimeInterval) {
        DispatchQueue.global(qos: .utility).asyncAfter(deadline: .now() + min(delay, 1e6)) { [weak self] in
            guard let self else { return }
            self.state.withLock { $0.trimScheduled = false }
            self.trimToSizeLimit()
            self.trimObserver?()
        }
    }

    // MARK: Clearing

    /// Deletes every file of the store (another process's compaction finishes first).
    func removeAll() {
        let lock = CompactionLock(path: path(of: Self.compactionLockName), wait: true)
        defer { lock?.release() }
        appender.withLock { appender in
            appender.file?.unlock(.appender)
            appender.file = nil
        }
        let now = Date().timeIntervalSince1970
        for name in DiskCacheFileSystem.contentsOfDirectory(atPath: directory) ?? [] where name != Self.compactionLockName {
            if name.hasPrefix(DiskCacheFileSystem.temporaryPrefix),
               let info = DiskCacheFileSystem.info(atPath: path(of: name)),
               now - info.modificationDate < DiskCacheConfig.staleTemporaryFileAge { continue }
            DiskCacheFileSystem.removeFile(atPath: path(of: name))
        }
        state.withLock { state in
            state.index.removeAll()
            state.loaded = true
            state.dirty = false
        }
    }

    // MARK: The index file

    /// Writes the index file now (a temporary file renamed over it).
    func saveIndex() {
        let bytes: Data = state.withLock { state in
            state.dirty = false
            state.lastSaved = Date().timeIntervalSince1970
            return PackedIndexFile.encode(state.index)
        }
        guard let temporary = try? DiskCacheFileSystem.writeTemporaryFile(bytes, inDirectory: directory, date: Date().timeIntervalSince1970) else { return }
        if rename(temporary, path(of: Self.indexFileName)) != 0 { DiskCacheFileSystem.removeFile(atPath: temporary) }
    }

    /// Saves the index in the background when it changed and was last saved over
    /// ``indexSaveInterval`` seconds ago.
    func saveIndexIfDue() {
        let due = state.withLock { state -> Bool in
            let now = Date().timeIntervalSince1970
            guard state.dirty, !state.saving, now - state.lastSaved >= Self.indexSaveInterval else { return false }
            state.saving = true
            return true
        }
        guard due else { return }
        DispatchQueue.global(qos: .utility).async { [weak self] in
            guard let self else { return }
            self.saveIndex()
            self.state.withLock { $0.saving = false }
        }
    }

    static let indexSaveInterval: TimeInterval = 30
}

/// The directory-wide lock that lets one compaction (or clear) run at a time.
struct CompactionLock {
    private let descriptor: Int32

    init?(path: String, wait: Bool) {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return nil }
        while flock(fd, LOCK_EX | (wait ? 0 : LOCK_NB)) != 0 {
            if errno == EINTR { continue }
            close(fd)
            return nil
        }
        descriptor = fd
    }

    func release() { close(descriptor) }
}
