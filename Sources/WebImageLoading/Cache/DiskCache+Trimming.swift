import WebImageCodecs
import Dispatch
import Foundation

/// Scanning, expiry and size trimming.
extension DiskCache {
    /// Rescans the directory, deletes entries older than `maxDiskAge`, then trims to the size limit.
    public func removeExpiredData() {
        if let packed { return packed.removeExpiredData() }
        // The one place that always rescans: it also picks up other processes' writes and removes.
        rescan()
        let expired: [String] = state.withLock { state in
            guard config.maxDiskAge >= 0, let index = state.index else { return [] }
            let cutoff = Date().timeIntervalSince1970 - config.maxDiskAge
            let names = index.entries.filter { $0.value.date <= cutoff }.map(\.key)
            for name in names { state.remove(name) }
            return names
        }
        deleteFiles(ofEntries: expired)
        trimToSizeLimit()
    }

    /// A background trim rescans first when the index is older than this (seconds).
    static let backgroundRescanAge: TimeInterval = 60

    /// Scans the directory when the index is not loaded.
    func loadIndexIfNeeded() {
        if state.withLock({ $0.index == nil }) { rescan() }
    }

    /// Rebuilds the index from the directory. The directory is listed without the lock; the
    /// changes made meanwhile are replayed onto the result before it becomes the index.
    func rescan() {
        let ticket = state.withLock { $0.scans.begin() }
        let scanned = scanDirectory()
        let now = Date().timeIntervalSince1970
        state.withLock { state in
            guard let index = state.scans.finish(ticket, scanned: scanned) else { return }
            state.index = index
            state.indexScannedAt = now
        }
    }

    /// Lists the directory once and builds an index of its entries: every regular, non-hidden file.
    ///
    /// Also deletes leftovers: temporary files older than ``DiskCacheConfig/staleTemporaryFileAge``
    /// (from killed writers) and sidecars whose entry is gone.
    func scanDirectory() -> DiskCacheIndex {
        var index = DiskCacheIndex()
        let now = Date().timeIntervalSince1970
        var sidecars: [String] = []
        for name in DiskCacheFileSystem.contentsOfDirectory(atPath: directoryPath) ?? [] {
            scanObserver?(name)
            let path = path(forName: name)
            if name.hasPrefix(DiskCacheFileSystem.temporaryPrefix) {
                if let info = DiskCacheFileSystem.info(atPath: path),
                   now - info.modificationDate > DiskCacheConfig.staleTemporaryFileAge {
                    DiskCacheFileSystem.removeFile(atPath: path)
                }
                continue
            }
            if name.hasPrefix(".") {
                if name.hasSuffix(".meta") { sidecars.append(name) }
                continue
            }
            // Vanished meanwhile, a directory, a symlink, a socket…: not an entry.
            guard let info = DiskCacheFileSystem.info(atPath: path), info.isRegularFile else { continue }
            index.set(DiskCacheIndex.Entry(size: info.size, date: rankingDate(of: info, atPath: path),
                                           recordedAccessDate: info.accessDate), for: name)
        }
        for sidecar in sidecars {
            let entryName = String(sidecar.dropFirst().dropLast(".meta".count))
            if index[entryName] == nil && DiskCacheFileSystem.info(atPath: path(forName: entryName)) == nil {
                DiskCacheFileSystem.removeFile(atPath: path(forName: sidecar))
            }
        }
        return index
    }

    /// Whether a write that left the index in `state` should start a background trim, and after
    /// what delay. Claims the single pending-trim slot when it says yes.
    func claimTrim(_ state: inout State) -> TimeInterval? {
        guard let delay = config.automaticTrimDelay, !state.trimScheduled, isOverSizeLimit(state.index) else {
            return nil
        }
        state.trimScheduled = true
        return delay
    }

    /// Runs a size trim on a background queue after `delay` seconds.
    func scheduleTrim(after delay: TimeInterval) {
        DispatchQueue.global(qos: .utility).asyncAfter(deadline: .now() + max(0, delay)) { [weak self] in
            guard let self else { return }
            let stale = state.withLock { state in
                state.trimScheduled = false
                return Date().timeIntervalSince1970 - state.indexScannedAt > Self.backgroundRescanAge
            }
            // Pick up other processes' writes now and then; trims are rare, so this scan is too.
            if stale { rescan() }
            trimToSizeLimit()
        }
    }

    /// Deletes entries oldest first (by the expire type) until the total is strictly below
    /// `maxDiskSize × trimRatio`, when the total is over `maxDiskSize`. The entries leave the
    /// index under the lock; their files are deleted after it.
    func trimToSizeLimit() {
        loadIndexIfNeeded()
        let victims: [String] = state.withLock { state in
            guard isOverSizeLimit(state.index), let index = state.index else { return [] }
            let target = Double(config.maxDiskSize) * min(1, max(0, config.trimRatio))
            var total = index.totalSize
            var names: [String] = []
            for name in index.namesOldestFirst() {
                guard Double(total) >= target else { break }
                total -= index[name]?.size ?? 0
                names.append(name)
            }
            for name in names { state.remove(name) }
            return names
        }
        deleteFiles(ofEntries: victims)
    }

    private func isOverSizeLimit(_ index: DiskCacheIndex?) -> Bool {
        guard config.maxDiskSize > 0, let index else { return false }
        return index.totalSize > config.maxDiskSize
    }

    /// The date of `info` that the configured expire type ranks by.
    private func rankingDate(of info: DiskCacheFileSystem.FileInfo, atPath path: String) -> Double {
        switch config.expireType {
        case .accessDate: info.accessDate
        case .modificationDate: info.modificationDate
        case .changeDate: info.changeDate
        case .creationDate: DiskCacheFileSystem.creationDate(atPath: path) ?? info.modificationDate
        }
    }
}
