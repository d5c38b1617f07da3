import CZlib
import Foundation

/// The packed layout's saved index (`.packed/index`), so opening a store reads one file instead
/// of every segment.
///
/// Little-endian: the mark `WIPI`, version 1, the file count (4 bytes) and entry count (8); per
/// file its name's length (2) and name, covered length (8) and flags (1: bit 0 sealed, bit 1 a
/// single entry); per entry its key hash (8), file's position in that list (4), offset (4),
/// length (4) and last use (8); then the CRC-32 of all before it. A file that fails any check is
/// ignored and the index is rebuilt from the segments.
enum PackedIndexFile {
    static let mark: [UInt8] = Array("WIPI".utf8)
    static let version: UInt32 = 1
    static let entrySize = 28

    /// The index's bytes.
    static func encode(_ index: PackedIndex) -> Data {
        let segments = index.segments.sorted { $0.key < $1.key }
        var position: [UInt32: UInt32] = [:]
        var bytes: [UInt8] = []
        bytes.reserveCapacity(20 + segments.count * 96 + index.count * entrySize + 4)
        bytes += mark
        append(UInt64(version), 4, to: &bytes)
        append(UInt64(segments.count), 4, to: &bytes)
        append(UInt64(index.count), 8, to: &bytes)
        for (i, (number, segment)) in segments.enumerated() {
            position[number] = UInt32(i)
            let name = Array(segment.name.utf8)
            append(UInt64(name.count), 2, to: &bytes)
            bytes += name
            append(UInt64(segment.covered), 8, to: &bytes)
            bytes.append((segment.sealed ? 1 : 0) | (segment.isSingleEntry ? 2 : 0))
        }
        let entriesStart = bytes.count
        bytes += [UInt8](repeating: 0, count: index.count * entrySize)
        var written = 0
        bytes.withUnsafeMutableBytes { buffer in
            var at = entriesStart
            for (hash, entry) in index.entries {
                guard let position = position[entry.segment] else { continue }
                buffer.storeBytes(of: hash.littleEndian, toByteOffset: at, as: UInt64.self)
                buffer.storeBytes(of: position.littleEndian, toByteOffset: at + 8, as: UInt32.self)
                buffer.storeBytes(of: entry.offset.littleEndian, toByteOffset: at + 12, as: UInt32.self)
                buffer.storeBytes(of: entry.length.littleEndian, toByteOffset: at + 16, as: UInt32.self)
                buffer.storeBytes(of: entry.accessed.littleEndian, toByteOffset: at + 20, as: UInt64.self)
                at += entrySize
                written += 1
            }
        }
        // Entries whose file the index no longer has are left out: the count says how many are in.
        bytes.removeLast((index.count - written) * entrySize)
        for i in 0..<8 { bytes[12 + i] = UInt8(truncatingIfNeeded: UInt64(written) >> (8 * UInt64(i))) }
        let crc = bytes.withUnsafeBufferPointer { UInt64(UInt32(truncatingIfNeeded: crc32_z(0, $0.baseAddress, z_size_t($0.count)))) }
        append(crc, 4, to: &bytes)
        return Data(bytes)
    }

    /// The index saved at `path`, or nil when there is none or it fails a check.
    static func load(atPath path: String) -> PackedIndex? {
        guard case .success(let data) = DiskCacheFileSystem.readFile(atPath: path), data.count >= 24 else { return nil }
        return data.withUnsafeBytes { buffer -> PackedIndex? in
            let body = buffer.count - 4
            let crc = UInt32(truncatingIfNeeded: crc32_z(0, buffer.bindMemory(to: UInt8.self).baseAddress, z_size_t(body)))
            guard UInt32(PackedRecord.load(buffer, at: body, 4)) == crc,
                  Array(buffer[0..<4]) == mark, PackedRecord.load(buffer, at: 4, 4) == UInt64(version) else { return nil }
            let segmentCount = Int(PackedRecord.load(buffer, at: 8, 4))
            let entryCount = PackedRecord.load(buffer, at: 12, 8)
            guard entryCount <= UInt64(body / entrySize), segmentCount <= body / 11 else { return nil }
            var index = PackedIndex()
            var at = 20
            var numbers: [UInt32] = []
            numbers.reserveCapacity(segmentCount)
            for _ in 0..<segmentCount {
                guard at + 2 <= body else { return nil }
                let nameLength = Int(PackedRecord.load(buffer, at: at, 2))
                guard at + 2 + nameLength + 9 <= body else { return nil }
                let name = String(decoding: buffer[(at + 2)..<(at + 2 + nameLength)], as: UTF8.self)
                at += 2 + nameLength
                let covered = Int(PackedRecord.load(buffer, at: at, 8))
                let flags = buffer[at + 8]
                at += 9
                guard !name.contains("/"), covered >= 0, covered <= Int(UInt32.max) + PackedRecord.headerSize else { return nil }
                numbers.append(index.addSegment(named: name, isSingleEntry: flags & 2 != 0, covered: covered, sealed: flags & 1 != 0))
            }
            guard at + Int(entryCount) * entrySize == body else { return nil }
            index.reserve(Int(entryCount))
            for _ in 0..<Int(entryCount) {
                let hash = PackedRecord.load(buffer, at: at, 8)
                let position = Int(PackedRecord.load(buffer, at: at + 8, 4))
                guard position < numbers.count else { return nil }
                let entry = PackedEntry(segment: numbers[position], offset: UInt32(PackedRecord.load(buffer, at: at + 12, 4)),
                                        length: UInt32(PackedRecord.load(buffer, at: at + 16, 4)),
                                        accessed: PackedRecord.load(buffer, at: at + 20, 8))
                index.set(entry, for: hash)
                at += entrySize
            }
            return index
        }
    }

    private static func append(_ value: UInt64, _ count: Int, to bytes: inout [UInt8]) {
        for i in 0..<count { bytes.append(UInt8(truncatingIfNeeded: value >> (8 * UInt64(i)))) }
    }
}
