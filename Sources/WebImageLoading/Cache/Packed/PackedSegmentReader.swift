import Foundation

/// Reads a segment's records in order, a chunk at a time, stopping at the first that is cut short
/// or has no sound header (a torn append: its writer died or the machine lost power). A record
/// whose header is sound but whose checksum fails is skipped, and the ones after it still count.
struct PackedSegmentReader {
    /// One record as a replay sees it.
    struct Item {
        var hash: UInt64
        var offset: Int
        var length: Int
        var stamp: UInt64
        var kind: PackedRecord.Kind
        var isDeleted: Bool
        /// The record's bytes, when asked for.
        var bytes: Data?
    }

    /// Why a read stopped before the end it was given.
    enum Stop {
        /// Reached the end.
        case end
        /// A record runs past the file's end: still being written, or torn.
        case incomplete
        /// Bytes that are no record header.
        case damaged
    }

    static let chunkSize = 1 << 20

    /// The records of `file` in `[start, end)`, the offset after the last whole one, and why it
    /// stopped. `keepBytes` keeps each entry record's bytes (for copying it forward).
    static func records(of file: PackedFile, from start: Int, to end: Int, keepBytes: Bool = false) -> (items: [Item], next: Int, stop: Stop) {
        var items: [Item] = []
        var offset = start
        while offset < end {
            let want = min(end - offset, max(chunkSize, PackedRecord.headerSize))
            guard let chunk = file.read(count: want, at: offset) else { return (items, offset, .damaged) }
            guard chunk.count >= PackedRecord.headerSize else { return (items, offset, .incomplete) }
            var position = 0
            var needMore = 0
            let stop: Stop? = chunk.withUnsafeBytes { buffer -> Stop? in
                while position + PackedRecord.headerSize <= buffer.count {
                    let rest = UnsafeRawBufferPointer(rebasing: buffer[position...])
                    guard let header = PackedRecord.header(in: rest) else { return .damaged }
                    let length = header.recordLength
                    if position + length > buffer.count {
                        if offset + position + length > end { return .incomplete }
                        needMore = length
                        return nil
                    }
                    let record = UnsafeRawBufferPointer(rebasing: rest[0..<length])
                    guard PackedRecord.isIntact(record, header: header) else {
                        position += length
                        continue
                    }
                    let key = Array(record[PackedRecord.headerSize..<(PackedRecord.headerSize + header.keyLength)])
                    items.append(Item(hash: PackedKeyHash.hash(key), offset: offset + position, length: length,
                                      stamp: header.stamp, kind: header.kind, isDeleted: header.isDeleted,
                                      bytes: keepBytes && header.kind == .entry ? Data(record) : nil))
                    position += length
                }
                return nil
            }
            if let stop { return (items, offset + position, stop) }
            if position == 0 && needMore > 0 {
                // One record larger than a chunk: read it whole.
                guard let whole = file.read(count: needMore, at: offset), whole.count == needMore else {
                    return (items, offset, .incomplete)
                }
                let ok: Bool = whole.withUnsafeBytes { buffer in
                    guard let header = PackedRecord.header(in: buffer) else { return false }
                    guard PackedRecord.isIntact(buffer, header: header) else { return true }
                    let key = Array(buffer[PackedRecord.headerSize..<(PackedRecord.headerSize + header.keyLength)])
                    items.append(Item(hash: PackedKeyHash.hash(key), offset: offset, length: needMore, stamp: header.stamp,
                                      kind: header.kind, isDeleted: header.isDeleted,
                                      bytes: keepBytes && header.kind == .entry ? whole : nil))
                    return true
                }
                guard ok else { return (items, offset, .damaged) }
                offset += needMore
                continue
            }
            if position == 0 { return (items, offset, .incomplete) }
            offset += position
        }
        return (items, offset, .end)
    }
}
