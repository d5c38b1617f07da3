import WebImageCodecs
import Foundation
import Glibc
import Synchronization

/// The packed disk layout (``DiskCacheLayout/packed``): entries appended to shared segment files
/// under `<namespace>/.packed/`, found through an in-memory index, instead of one file each.
///
/// - Each process (each ``DiskCache`` on the directory) appends to a segment of its own, so a
///   write is one `pwrite` with no file created; entries larger than
///   ``DiskCacheConfig/packedEntryLimit`` get a file each (`.one`), written and renamed atomically.
/// - Every record carries its key and a CRC-32: a read checks both, so a torn append, a damaged
///   file or an index that lags another process's changes is a miss, never wrong bytes.
/// - Deletion sets a flag in the record itself, so every process sees it at once; another
///   process's new records are found by reading the segments' new tails (on a miss).
/// - The index is saved to `.packed/index` now and then and loaded at open; what the segments hold
///   beyond it is read back from them, and without it the whole index is rebuilt from them.
/// - Over the size limit, the oldest segments are compacted: the entries used since the trim's
///   cut-off are copied forward, the file is deleted (``PackedStore+Compaction``).
final class PackedStore: Sendable {
    let config: DiskCacheConfig
    /// `<namespace directory>/.packed`.
    let directory: String
    /// A segment is sealed and a new one begun past this many bytes.
    let segmentLimit: Int

    let state = Mutex(PackedState())
    let appender = Mutex(PackedAppender())
    /// Serialises catching up with other processes, so a tail is read once.
    let catchUpLock = Mutex(PackedCatchUp())

    static let directoryName = ".packed"
    static let indexFileName = "index"
    static let compactionLockName = "compaction.lock"
    static let temporaryPrefix = ".tmp-"

    /// Called after each background trim (tests wait for it).
    let trimObserver: (@Sendable () -> Void)?

    init(config: DiskCacheConfig, namespaceDirectory: String, trimObserver: (@Sendable () -> Void)? = nil) {
        self.config = config
        self.trimObserver = trimObserver
        directory = namespaceDirectory + "/" + Self.directoryName
        segmentLimit = Self.segmentLimit(forMaxSize: config.maxDiskSize)
        try? DiskCacheFileSystem.createDirectory(atPath: directory)
    }

    deinit {
        if state.withLock({ $0.dirty }) { saveIndex() }
    }

    /// Segments of a sixteenth of the size limit, between 16 KiB and 64 MiB, so a trim to half
    /// the limit deletes whole files.
    static func segmentLimit(forMaxSize maxSize: Int) -> Int {
        guard maxSize > 0 else { return 64 << 20 }
        return min(64 << 20, max(16 << 10, maxSize / 16))
    }

    func path(of name: String) -> String { directory + "/" + name }

    // MARK: Reads

    /// The record for `key`, checked, or nil; catches up with other processes once on a miss.
    func record(forKey key: [UInt8], hash: UInt64) -> PackedReadRecord? {
        loadIfNeeded()
        catchUp(listingOnly: true)
        for attempt in 0..<2 {
            if let (entry, file) = locate(hash) {
                if let record = read(entry, in: file, key: key) { return record }
                forget(hash, ifAt: entry)
            }
            if attempt == 0 { catchUp(listingOnly: false) }
        }
        return nil
    }

    /// The entry for `hash` and an open handle on its file.
    func locate(_ hash: UInt64) -> (PackedEntry, PackedFile)? {
        let found: (PackedEntry, PackedFile?, String, Bool)? = state.withLock { state in
            guard let entry = state.index[hash], let segment = state.index.segments[entry.segment] else { return nil }
            return (entry, segment.file, segment.name, segment.isSingleEntry)
        }
        guard let (entry, cached, name, single) = found else { return nil }
        if let cached { return (entry, cached) }
        guard let file = PackedFile.open(atPath: path(of: name)) else {
            forget(hash, ifAt: entry)
            return nil
        }
        if !single {
            state.withLock { state in
                if state.index.segments[entry.segment]?.file == nil { state.index.setFile(file, of: entry.segment) }
            }
        }
        return (entry, file)
    }

    /// Reads and checks the record `entry` points at: the mark, the kind, not deleted, the key, the
    /// length and the checksum.
    func read(_ entry: PackedEntry, in file: PackedFile, key: [UInt8]) -> PackedReadRecord? {
        guard let bytes = file.read(count: Int(entry.length), at: Int(entry.offset)), bytes.count == Int(entry.length) else { return nil }
        return bytes.withUnsafeBytes { buffer -> PackedReadRecord? in
            guard let header = PackedRecord.header(in: buffer), header.kind == .entry, !header.isDeleted,
                  header.keyLength == key.count, header.recordLength == Int(entry.length),
                  key.withUnsafeBytes({ $0.elementsEqual(buffer[PackedRecord.headerSize..<(PackedRecord.headerSize + key.count)]) }),
                  PackedRecord.isIntact(buffer, header: header) else { return nil }
            let extendedStart = PackedRecord.headerSize + header.keyLength
            let dataStart = extendedStart + header.extendedLength
            let extended = header.hasExtendedData ? Data(buffer[extendedStart..<dataStart]) : nil
            return PackedReadRecord(stamp: header.stamp, extendedData: extended,
                                    data: Data(buffer[dataStart..<(dataStart + header.dataLength)]))
        }
    }

    /// Drops `hash` when it still points at `entry` (a failed read).
    func forget(_ hash: UInt64, ifAt entry: PackedEntry) {
        state.withLock { state in
            if let current = state.index[hash], current.isAt(entry) {
                state.index.remove(hash)
                state.dirty = true
            }
        }
    }

    /// Notes a hit for the LRU order.
    func touch(_ hash: UInt64) {
        state.withLock { state in
            let now = state.nextTime()
            state.index.touch(hash, at: now)
        }
    }

    // MARK: Writes

    /// Stores a record for `key` (its bytes and extended data), replacing the one before.
    func store(key: [UInt8], hash: UInt64, extendedData: Data?, data: Data) throws {
        guard data.count <= PackedRecord.maxDataLength, key.count <= PackedRecord.maxKeyLength,
              (extendedData?.count ?? 0) <= PackedRecord.maxExtendedLength else {
            throw WebImageError(.cacheFailure, "Cannot store \(data.count) bytes (key of \(key.count) bytes, extended data of \(extendedData?.count ?? 0)) in the packed disk cache: over its limits of \(PackedRecord.maxDataLength) bytes, keys of \(PackedRecord.maxKeyLength) and extended data of \(PackedRecord.maxExtendedLength).")
        }
        loadIfNeeded()
        let stamp = state.withLock { $0.nextTime() }
        let record = PackedRecord.encode(key: key, extendedData: extendedData, data: data, stamp: stamp)
        let placed: (segment: UInt32, offset: Int)
        if record.count > config.packedEntryLimit || record.count > segmentLimit {
            placed = (try writeSingleEntry(record, stamp: stamp), 0)
        } else {
            placed = try append(record)
        }
        let entry = PackedEntry(segment: placed.segment, offset: UInt32(placed.offset), length: UInt32(record.count), accessed: stamp)
        let (replaced, trimDelay) = state.withLock { state -> (PackedEntry?, TimeInterval?) in
            let old = state.index.set(entry, for: hash)
            state.dirty = true
            return (old, claimTrim(&state))
        }
        if let replaced, !replaced.isAt(entry) { markDeleted(replaced) }
        if let trimDelay { scheduleTrim(after: trimDelay) }
        saveIndexIfDue()
    }

    /// Appends `record` to this store's own segment, beginning a new one when it is full or gone.
    func append(_ record: Data) throws -> (segment: UInt32, offset: Int) {
        try appender.withLock { appender in
            if let file = appender.file, !file.isLinked { appender.file = nil }  // cleared by someone
            if appender.file != nil, appender.end > 0, appender.end + record.count > segmentLimit { seal(&appender) }
            if appender.file == nil { try beginSegment(&appender) }
            guard let file = appender.file else { throw writeError(nil, DiskCacheFileSystem.Failure(EIO)) }
            do throws(DiskCacheFileSystem.Failure) {
                try file.write(record, at: appender.end)
            } catch {
                file.truncate(to: appender.end)
                throw writeError(file.path, error)
            }
            if config.durability == .durable { file.sync() }
            let offset = appender.end
            appender.end += record.count
            let segment = appender.segment
            let end = appender.end
            state.withLock { $0.index.setCovered(end, of: segment) }
            return (segment, offset)
        }
    }

    /// Ends the segment being appended to with a seal record and lets it go.
    func seal(_ appender: inout PackedAppender) {
        guard let file = appender.file else { return }
        let seal = PackedRecord.seal(stamp: state.withLock { $0.nextTime() })
        var end = appender.end
        if (try? file.write(seal, at: end)) != nil { end += seal.count }
        if config.durability == .durable { file.sync() }
        file.unlock(.appender)
        let segment = appender.segment
        state.withLock { state in
            state.index.setCovered(end, of: segment)
            state.index.seal(segment)
        }
        appender.file = nil
    }

    /// Creates this store's next segment, holding its appender lock.
    private func beginSegment(_ appender: inout PackedAppender) throws {
        let name = Self.uniqueName(suffix: ".seg")
        let file: PackedFile
        do {
            file = try PackedFile.create(atPath: path(of: name))
        } catch where error.code == ENOENT {
            try createDirectory()
            do { file = try PackedFile.create(atPath: path(of: name)) } catch { throw writeError(path(of: name), error) }
        } catch {
            throw writeError(path(of: name), error)
        }
        _ = file.lock(.appender, exclusive: true, wait: false)
        let segment = state.withLock { state in
            let number = state.index.addSegment(named: name, isSingleEntry: false, sealed: false, isOwnActive: true)
            state.index.setFile(file, of: number)
            return number
        }
        if config.durability == .durable { DiskCacheFileSystem.syncDirectory(atPath: directory) }
        appender = PackedAppender(file: file, segment: segment, end: 0)
    }

    /// Writes a large entry's record to a file of its own: a temporary file renamed into place.
    private func writeSingleEntry(_ record: Data, stamp: UInt64) throws -> UInt32 {
        let name = Self.uniqueName(suffix: ".one")
        let temporary: String
        do {
            temporary = try DiskCacheFileSystem.writeTemporaryFile(record, inDirectory: directory, date: Date().timeIntervalSince1970,
                                                                   sync: config.durability == .durable)
        } catch where error.code == ENOENT {
            try createDirectory()
            do {
                temporary = try DiskCacheFileSystem.writeTemporaryFile(record, inDirectory: directory, date: Date().timeIntervalSince1970,
                                                                       sync: config.durability == .durable)
            } catch { throw writeError(path(of: name), error) }
        } catch {
            throw writeError(path(of: name), error)
        }
        guard rename(temporary, path(of: name)) == 0 else {
            let failure = DiskCacheFileSystem.Failure()
            DiskCacheFileSystem.removeFile(atPath: temporary)
            throw writeError(path(of: name), failure)
        }
        if config.durability == .durable { DiskCacheFileSystem.syncDirectory(atPath: directory) }
        return state.withLock { $0.index.addSegment(named: name, isSingleEntry: true, covered: record.count, sealed: true) }
    }

    // MARK: Deletion

    /// Sets the deleted flag of the record `entry` points at (a single-entry file is deleted
    /// instead). Returns false when its segment was compacted away meanwhile, so the record may
    /// live on, copied, elsewhere.
    @discardableResult
    func markDeleted(_ entry: PackedEntry) -> Bool {
        let found = state.withLock { state in state.index.segments[entry.segment].map { ($0.name, $0.isSingleEntry) } }
        guard let (name, single) = found else { return false }
        if single {
            DiskCacheFileSystem.removeFile(atPath: path(of: name))
            state.withLock { $0.index.removeUnusedSegment(entry.segment) }
            return true
        }
        guard let file = PackedFile.open(atPath: path(of: name)) else { return false }
        guard file.lock(.records, exclusive: false, wait: true) else { return setDeletedFlag(in: file, at: Int(entry.offset)) }
        defer { file.unlock(.records) }
        guard file.isLinked else { return false }
        return setDeletedFlag(in: file, at: Int(entry.offset))
    }

    private func setDeletedFlag(in file: PackedFile, at offset: Int) -> Bool {
        guard let flags = file.read(count: 1, at: offset + PackedRecord.flagsOffset), flags.count == 1 else { return false }
        var updated = flags
        updated[updated.startIndex] |= PackedRecord.deletedFlag
        if config.durability == .durable {
            let done = (try? file.write(updated, at: offset + PackedRecord.flagsOffset)) != nil
            file.sync()
            return done
        }
        return (try? file.write(updated, at: offset + PackedRecord.flagsOffset)) != nil
    }

    /// Deletes `key`'s record everywhere it is known to be, following a compaction that moves it.
    func remove(hash: UInt64) {
        loadIfNeeded()
        catchUp(listingOnly: false)
        for _ in 0..<4 {
            let removed: PackedEntry? = state.withLock { state in
                let entry = state.index.remove(hash)
                if entry != nil { state.dirty = true }
                return entry
            }
            guard let removed else { return }
            if markDeleted(removed) { return }
            catchUp(listingOnly: false)
        }
    }

    // MARK: Helpers

    func createDirectory() throws {
        do {
            try DiskCacheFileSystem.createDirectory(atPath: directory)
        } catch {
            throw WebImageError(.cacheFailure, "Could not create the disk cache directory \(directory): \(error.text) (errno \(error.code)).")
        }
    }

    func writeError(_ path: String?, _ failure: DiskCacheFileSystem.Failure) -> WebImageError {
        WebImageError(.cacheFailure, "Could not write the packed disk cache \(path ?? directory): \(failure.text) (errno \(failure.code)). Check that the cache directory exists, is writable and its disk has space.")
    }

    /// A name that sorts by creation time: 16 hex digits of microseconds, then random ones.
    static func uniqueName(suffix: String) -> String {
        let micros = UInt64(max(0, Date().timeIntervalSince1970 * 1_000_000))
        let time = String(micros, radix: 16)
        let random = String(UInt64.random(in: .min ... .max), radix: 16)
        return String(repeating: "0", count: max(0, 16 - time.count)) + time + "-" + random + suffix
    }
}

/// A checked record as a read returns it.
struct PackedReadRecord: Sendable {
    var stamp: UInt64
    var extendedData: Data?
    var data: Data
}

/// The segment this store appends to.
struct PackedAppender: Sendable {
    var file: PackedFile?
    var segment: UInt32 = 0
    var end = 0
}

/// What the index lock guards.
struct PackedState: Sendable {
    var index = PackedIndex()
    var loaded = false
    /// Changed since the index file was last written.
    var dirty = false
    var lastSaved = Date().timeIntervalSince1970
    var trimScheduled = false
    /// A background save of the index file is running.
    var saving = false
    var lastTime: UInt64 = 0

    /// Now in microseconds since 1970, strictly after every time handed out before.
    mutating func nextTime() -> UInt64 {
        let now = UInt64(max(0, Date().timeIntervalSince1970 * 1_000_000))
        lastTime = max(now, lastTime + 1)
        return lastTime
    }
}

/// The ``DiskCache`` calls that have no single-record counterpart above.
extension PackedStore {
    /// Rewrites `key`'s record with new extended data (nil removes it).
    func setExtendedData(_ extendedData: Data?, forKey key: [UInt8]) throws {
        let hash = PackedKeyHash.hash(key)
        guard let record = record(forKey: key, hash: hash) else {
            guard extendedData != nil else { return }
            throw WebImageError(.cacheFailure, "Cannot store extended data for a key with no disk cache entry; store its data first (key \(String(decoding: key.prefix(200), as: UTF8.self))).")
        }
        guard record.extendedData != extendedData else { return }
        try store(key: key, hash: hash, extendedData: extendedData, data: record.data)
    }

    /// Bytes the store's files take on disk, as far as this process knows (dead records included
    /// until their segment is compacted).
    var totalSize: Int {
        loadIfNeeded()
        catchUp(listingOnly: false)
        return state.withLock { $0.index.diskBytes }
    }

    /// Entries the index knows.
    var totalCount: Int {
        loadIfNeeded()
        catchUp(listingOnly: false)
        return state.withLock { $0.index.count }
    }
}
