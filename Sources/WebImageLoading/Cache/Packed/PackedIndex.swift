import Foundation

/// Where one key's record is, and when it was last used.
struct PackedEntry: Sendable, Equatable {
    /// The segment's number in ``PackedIndex/segments``.
    var segment: UInt32
    var offset: UInt32
    /// The record's length on disk, padding included.
    var length: UInt32
    /// The last write or read seen by this process, microseconds since 1970; it ranks entries
    /// for trimming.
    var accessed: UInt64

    func isAt(_ other: PackedEntry) -> Bool { segment == other.segment && offset == other.offset }
}

/// A segment (many records, appended) or single-entry file, as this process knows it.
struct PackedSegment: Sendable {
    /// The file's name in the packed directory.
    let name: String
    /// True for a file holding one large entry.
    let isSingleEntry: Bool
    /// Bytes of the file this process has read or written: its records up to here are indexed.
    var covered: Int
    /// True once the file gets no more records: sealed, a single entry, or its appender is gone.
    var sealed: Bool
    /// True while this process appends to it.
    var isOwnActive: Bool
    /// Bytes of the records the index points into it.
    var liveBytes = 0
    /// The newest ``PackedEntry/accessed`` of any entry it held; a trim that keeps nothing newer
    /// than that deletes the file without reading it.
    var lastAccess: UInt64 = 0
    /// An open handle for reads, kept for multi-entry segments.
    var file: PackedFile?

    /// The time in the name (microseconds since 1970): segments are created in this order.
    var createdAt: UInt64 { UInt64(name.prefix(16), radix: 16) ?? 0 }
}

/// The packed layout's in-memory index: key hash → record, and the files records live in.
///
/// 24 bytes of entry and 8 of key per record in a hash table at most 3/4 full: about 64 MB for a
/// million entries.
struct PackedIndex: Sendable {
    private(set) var entries: [UInt64: PackedEntry] = [:]
    private(set) var segments: [UInt32: PackedSegment] = [:]
    private(set) var segmentNumbers: [String: UInt32] = [:]
    private var nextSegment: UInt32 = 0
    /// Σ of the entries' record lengths.
    private(set) var liveBytes = 0
    /// Σ of the files' covered lengths: what the files take on disk, as far as this process knows.
    private(set) var diskBytes = 0

    var count: Int { entries.count }

    subscript(hash: UInt64) -> PackedEntry? { entries[hash] }

    mutating func reserve(_ count: Int) { entries.reserveCapacity(count) }

    // MARK: Files

    /// Adds a file by name (or returns the number it has already).
    @discardableResult
    mutating func addSegment(named name: String, isSingleEntry: Bool, covered: Int = 0, sealed: Bool,
                             isOwnActive: Bool = false) -> UInt32 {
        if let number = segmentNumbers[name] { return number }
        let number = nextSegment
        nextSegment &+= 1
        segments[number] = PackedSegment(name: name, isSingleEntry: isSingleEntry, covered: covered,
                                         sealed: sealed || isSingleEntry, isOwnActive: isOwnActive)
        segmentNumbers[name] = number
        diskBytes += covered
        return number
    }

    /// Records that a file's records up to `covered` are indexed.
    mutating func setCovered(_ covered: Int, of number: UInt32) {
        guard let old = segments[number]?.covered, covered > old else { return }
        segments[number]?.covered = covered
        diskBytes += covered - old
    }

    mutating func seal(_ number: UInt32) {
        segments[number]?.sealed = true
        segments[number]?.isOwnActive = false
    }

    mutating func setFile(_ file: PackedFile?, of number: UInt32) {
        segments[number]?.file = file
    }

    /// Forgets files (gone from the directory) and every entry in them.
    mutating func removeSegments(_ numbers: Set<UInt32>) {
        guard !numbers.isEmpty else { return }
        for number in numbers {
            guard let segment = segments.removeValue(forKey: number) else { continue }
            segmentNumbers[segment.name] = nil
            diskBytes -= segment.covered
        }
        var doomed: [UInt64] = []
        for (hash, entry) in entries where numbers.contains(entry.segment) { doomed.append(hash) }
        for hash in doomed {
            // Their files are gone: only the total keeps their bytes.
            if let old = entries.removeValue(forKey: hash) { liveBytes -= Int(old.length) }
        }
    }

    /// Forgets a file whose entries all went elsewhere, without the pass over every entry that
    /// ``removeSegments(_:)`` makes.
    mutating func removeUnusedSegment(_ number: UInt32) {
        guard let segment = segments[number] else { return }
        guard segment.liveBytes == 0 else { return removeSegments([number]) }
        segments[number] = nil
        segmentNumbers[segment.name] = nil
        diskBytes -= segment.covered
    }

    // MARK: Entries

    /// Points `hash` at `entry`; returns the entry it replaces.
    @discardableResult
    mutating func set(_ entry: PackedEntry, for hash: UInt64) -> PackedEntry? {
        let old = entries.updateValue(entry, forKey: hash)
        if let old { account(old, sign: -1) }
        account(entry, sign: 1)
        return old
    }

    /// Moves `hash` to the front of the LRU order.
    mutating func touch(_ hash: UInt64, at time: UInt64) {
        guard var entry = entries[hash] else { return }
        entry.accessed = time
        entries[hash] = entry
        if let last = segments[entry.segment]?.lastAccess, time > last { segments[entry.segment]?.lastAccess = time }
    }

    @discardableResult
    mutating func remove(_ hash: UInt64) -> PackedEntry? {
        guard let old = entries.removeValue(forKey: hash) else { return nil }
        account(old, sign: -1)
        return old
    }

    /// Empties the index, files included.
    mutating func removeAll() {
        let next = nextSegment
        self = PackedIndex()
        nextSegment = next  // numbers are never reused: a reader may still hold an old one
    }

    private mutating func account(_ entry: PackedEntry, sign: Int) {
        let length = Int(entry.length) * sign
        liveBytes += length
        segments[entry.segment]?.liveBytes += length
        if sign > 0, let last = segments[entry.segment]?.lastAccess, entry.accessed > last {
            segments[entry.segment]?.lastAccess = entry.accessed
        }
    }
}
