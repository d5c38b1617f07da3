import WebImageCodecs
import Foundation
import Glibc

/// What the catch-up lock guards: when the directory was last listed.
struct PackedCatchUp: Sendable {
    /// The directory's modification time at the last listing (seconds since 1970), -1 for never.
    var listedModification: Double = -1
    /// When the last listing was taken (seconds since 1970).
    var listedAt: Double = 0
}

/// Loading the index, and catching up with what other processes wrote and deleted.
extension PackedStore {
    /// The directory's modification time is coarse (a few milliseconds): one this recent may hide
    /// a second change, so the directory is listed again.
    static let directoryTimeGranularity = 0.05

    /// Loads the index file, then reads what the files hold beyond it (everything when there is
    /// no index file or it is damaged).
    func loadIfNeeded() {
        if state.withLock({ $0.loaded }) { return }
        catchUpLock.withLock { catchUp in
            if state.withLock({ $0.loaded }) { return }
            var index = PackedIndexFile.load(atPath: path(of: Self.indexFileName)) ?? PackedIndex()
            removeStaleTemporaryFiles()
            let names = DiskCacheFileSystem.contentsOfDirectory(atPath: directory) ?? []
            catchUp.listedModification = directoryModification() ?? -1
            catchUp.listedAt = Date().timeIntervalSince1970
            reconcile(&index, withNames: names)
            for number in index.segments.keys.sorted() { replayTail(of: number, into: &index) }
            state.withLock { state in
                state.index = index
                state.loaded = true
                state.dirty = true
            }
        }
    }

    /// Brings the index up to date with the directory: files deleted by others are forgotten and
    /// new ones read (when the directory changed); unless `listingOnly`, the growing segments of
    /// other processes are read from where this process left them.
    func catchUp(listingOnly: Bool) {
        catchUpLock.withLock { catchUp in
            let modification = directoryModification()
            let now = Date().timeIntervalSince1970
            var changed: [UInt32] = []
            // A listing taken within the clock's granularity of the last change may have missed
            // a second change stamped with the same time; one taken later cannot.
            if modification == nil || modification != catchUp.listedModification
                || catchUp.listedAt < (modification ?? 0) + Self.directoryTimeGranularity {
                let names = DiskCacheFileSystem.contentsOfDirectory(atPath: directory) ?? []
                catchUp.listedModification = modification ?? -1
                catchUp.listedAt = now
                changed = state.withLock { state in
                    let before = Set(state.index.segments.keys)
                    reconcile(&state.index, withNames: names)
                    return state.index.segments.keys.filter { !before.contains($0) }.sorted()
                }
            }
            let growing: [UInt32] = listingOnly ? changed : state.withLock { state in
                state.index.segments.filter { !$0.value.sealed && !$0.value.isOwnActive }.map(\.key).sorted()
            } + changed
            for number in Set(growing).sorted() { catchUpTail(of: number) }
        }
    }

    /// Forgets the files `names` lacks and adds the ones it has that the index lacks.
    private func reconcile(_ index: inout PackedIndex, withNames names: [String]) {
        let present = Set(names)
        // This store's own segment is judged by its handle: it may be newer than the listing.
        let gone = Set(index.segments.filter { number, segment in
            segment.isOwnActive ? segment.file?.isLinked == false : !present.contains(segment.name)
        }.map(\.key))
        index.removeSegments(gone)
        for name in names.sorted() where index.segmentNumbers[name] == nil {
            if name.hasSuffix(".seg") {
                index.addSegment(named: name, isSingleEntry: false, sealed: false)
            } else if name.hasSuffix(".one") {
                index.addSegment(named: name, isSingleEntry: true, sealed: true)
            }
        }
    }

    /// Reads a file's records beyond what `index` covers into `index` (the load, no lock held).
    private func replayTail(of number: UInt32, into index: inout PackedIndex) {
        guard let segment = index.segments[number], !segment.isOwnActive,
              let file = PackedFile.open(atPath: path(of: segment.name)), let size = file.size else {
            if index.segments[number].map({ !$0.isOwnActive }) == true { index.removeSegments([number]) }
            return
        }
        guard size > segment.covered || !segment.sealed else { return }
        let read = PackedSegmentReader.records(of: file, from: segment.covered, to: size)
        var stamps: [UInt64: UInt64] = [:]
        for item in read.items where item.kind == .entry && !item.isDeleted {
            if let existing = index[item.hash], !existing.isAt(PackedEntry(segment: number, offset: UInt32(item.offset), length: 0, accessed: 0)) {
                stamps[item.hash] = stamp(of: existing, in: index)
            }
        }
        apply(read, of: number, file: file, size: size, existingStamps: stamps, to: &index)
    }

    /// Reads a file's new records (another process's appends, or a new file) into the index.
    private func catchUpTail(of number: UInt32) {
        let found = state.withLock { state in state.index.segments[number].map { ($0.name, $0.covered, $0.sealed, $0.isOwnActive, $0.file) } }
        guard let (name, covered, sealed, ownActive, cached) = found, !ownActive else { return }
        guard let file = cached ?? PackedFile.open(atPath: path(of: name)), let size = file.size else {
            state.withLock { $0.index.removeSegments([number]) }
            return
        }
        if size <= covered {
            if !sealed && !file.isLockedElsewhere(.appender) {
                state.withLock { $0.index.seal(number) }  // its appender is gone
            }
            return
        }
        let read = PackedSegmentReader.records(of: file, from: covered, to: size)
        // Keys this process already has elsewhere: the later write wins, so read those stamps.
        let conflicts: [UInt64: (PackedEntry, String)] = state.withLock { state in
            var found: [UInt64: (PackedEntry, String)] = [:]
            for item in read.items where item.kind == .entry && !item.isDeleted {
                if let existing = state.index[item.hash], existing.segment != number,
                   let existingName = state.index.segments[existing.segment]?.name {
                    found[item.hash] = (existing, existingName)
                }
            }
            return found
        }
        var stamps: [UInt64: UInt64] = [:]
        for (hash, (entry, existingName)) in conflicts {
            stamps[hash] = Self.stamp(of: entry, inFileNamed: path(of: existingName))
        }
        state.withLock { state in
            apply(read, of: number, file: file, size: size, existingStamps: stamps, to: &state.index)
            state.dirty = true
        }
    }

    /// Applies records read from a file: entries the index lacks or holds an older write of are
    /// added, deleted ones dropped; a seal, a damaged tail or a tail whose appender is gone seals it.
    private func apply(_ read: (items: [PackedSegmentReader.Item], next: Int, stop: PackedSegmentReader.Stop),
                       of number: UInt32, file: PackedFile, size: Int, existingStamps: [UInt64: UInt64],
                       to index: inout PackedIndex) {
        guard index.segments[number] != nil else { return }
        var sealed = false
        for item in read.items {
            if item.kind == .seal { sealed = true; continue }
            let entry = PackedEntry(segment: number, offset: UInt32(item.offset), length: UInt32(item.length), accessed: item.stamp)
            let existing = index[item.hash]
            if item.isDeleted {
                if let existing, existing.isAt(entry) { index.remove(item.hash) }
                continue
            }
            if let existing, !existing.isAt(entry), existing.segment != number,
               let existingStamp = existingStamps[item.hash], existingStamp > item.stamp { continue }
            index.set(entry, for: item.hash)
        }
        index.setCovered(read.next, of: number)
        let isSingle = index.segments[number]?.isSingleEntry == true
        if sealed || isSingle || read.stop == .damaged || !file.isLockedElsewhere(.appender) { index.seal(number) }
        if !isSingle, index.segments[number]?.file == nil { index.setFile(file, of: number) }
    }

    /// The write time in the header `entry` points at, or nil when it cannot be read.
    private func stamp(of entry: PackedEntry, in index: PackedIndex) -> UInt64? {
        guard let name = index.segments[entry.segment]?.name else { return nil }
        return Self.stamp(of: entry, inFileNamed: path(of: name))
    }

    static func stamp(of entry: PackedEntry, inFileNamed path: String) -> UInt64? {
        guard let file = PackedFile.open(atPath: path),
              let bytes = file.read(count: PackedRecord.headerSize, at: Int(entry.offset)) else { return nil }
        return bytes.withUnsafeBytes { PackedRecord.header(in: $0)?.stamp }
    }

    /// The directory's modification time, or nil when it is missing.
    func directoryModification() -> Double? {
        var st = stat()
        guard stat(directory, &st) == 0 else { return nil }
        return Double(st.st_mtim.tv_sec) + Double(st.st_mtim.tv_nsec) / 1_000_000_000
    }

    /// Deletes temporary files left by killed writers, and compacted files left undeleted.
    private func removeStaleTemporaryFiles() {
        let now = Date().timeIntervalSince1970
        for name in DiskCacheFileSystem.contentsOfDirectory(atPath: directory) ?? [] {
            if name.hasSuffix(Self.discardedSuffix) {
                DiskCacheFileSystem.removeFile(atPath: path(of: name))  // a compaction's, never deleted
                continue
            }
            guard name.hasPrefix(DiskCacheFileSystem.temporaryPrefix) else { continue }
            if let info = DiskCacheFileSystem.info(atPath: path(of: name)),
               now - info.modificationDate > DiskCacheConfig.staleTemporaryFileAge {
                DiskCacheFileSystem.removeFile(atPath: path(of: name))
            }
        }
    }
}
