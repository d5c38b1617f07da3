import CZlib
import Foundation

/// One entry as the packed layout stores it in a segment file: a 32-byte header, the key, the
/// extended data and the bytes, padded to a multiple of 8.
///
/// Header, little-endian: the mark `WIP1` (4 bytes); flags (1 byte, bit 0: deleted — the one byte
/// ever written in place, so the checksum leaves it out); kind (1 byte: 1 an entry, 2 the seal that
/// ends a segment); options (2 bytes, bit 0: extended data present); the key's, extended data's
/// and bytes' lengths (4 bytes each); the CRC-32 (zlib's) of everything but the flags and the
/// checksum itself; the write time in microseconds since 1970 (8 bytes), which decides between
/// two processes' writes of one key (the later wins).
struct PackedRecord: Sendable {
    enum Kind: UInt8, Sendable {
        case entry = 1
        case seal = 2
    }

    static let headerSize = 32
    static let mark: [UInt8] = Array("WIP1".utf8)
    static let deletedFlag: UInt8 = 1
    /// Offset of the flags byte, the one byte ever rewritten in place.
    static let flagsOffset = 4
    /// Keys longer than this are not stored (no URL is); it bounds what a damaged header can ask for.
    static let maxKeyLength = 64 * 1024
    /// Extended data (HTTP validators and the like) longer than this is refused.
    static let maxExtendedLength = 16 * 1024 * 1024
    /// The largest stored value: records keep their lengths in 32 bits.
    static let maxDataLength = Int(Int32.max) - 2 * headerSize - maxKeyLength - maxExtendedLength

    /// What a header says, checked for consistency but not against the checksum.
    struct Header: Sendable {
        var flags: UInt8
        var kind: Kind
        var hasExtendedData: Bool
        var keyLength: Int
        var extendedLength: Int
        var dataLength: Int
        var checksum: UInt32
        var stamp: UInt64

        var isDeleted: Bool { flags & PackedRecord.deletedFlag != 0 }
        /// The whole record's length on disk, padding included.
        var recordLength: Int { PackedRecord.paddedLength(keyLength: keyLength, extendedLength: extendedLength, dataLength: dataLength) }
    }

    /// The record's length on disk for these parts.
    static func paddedLength(keyLength: Int, extendedLength: Int, dataLength: Int) -> Int {
        (headerSize + keyLength + extendedLength + dataLength + 7) & ~7
    }

    /// The record's bytes: header, key, extended data, bytes and padding.
    static func encode(key: [UInt8], extendedData: Data?, data: Data, stamp: UInt64, kind: Kind = .entry) -> Data {
        let extended = extendedData ?? Data()
        let length = paddedLength(keyLength: key.count, extendedLength: extended.count, dataLength: data.count)
        var record = Data(count: length)
        record.withUnsafeMutableBytes { buffer in
            let bytes = buffer.bindMemory(to: UInt8.self)
            for i in 0..<4 { bytes[i] = mark[i] }
            bytes[5] = kind.rawValue
            bytes[6] = extendedData == nil ? 0 : 1
            store(UInt64(key.count), 4, at: 8, in: bytes)
            store(UInt64(extended.count), 4, at: 12, in: bytes)
            store(UInt64(data.count), 4, at: 16, in: bytes)
            store(stamp, 8, at: 24, in: bytes)
            var at = headerSize
            for byte in key { bytes[at] = byte; at += 1 }
            _ = extended.copyBytes(to: UnsafeMutableBufferPointer(rebasing: bytes[at..<(at + extended.count)]))
            at += extended.count
            _ = data.copyBytes(to: UnsafeMutableBufferPointer(rebasing: bytes[at..<(at + data.count)]))
            store(UInt64(checksum(of: UnsafeBufferPointer(bytes), payloadEnd: at + data.count)), 4, at: 20, in: bytes)
        }
        return record
    }

    /// The seal that tells readers a segment gets no more records.
    static func seal(stamp: UInt64) -> Data {
        encode(key: [], extendedData: nil, data: Data(), stamp: stamp, kind: .seal)
    }

    /// The header at the start of `bytes`, or nil when there is no mark, the kind is unknown or a
    /// length is out of bounds. Needs at least ``headerSize`` bytes.
    static func header(in bytes: UnsafeRawBufferPointer) -> Header? {
        guard bytes.count >= headerSize, bytes[0] == mark[0], bytes[1] == mark[1], bytes[2] == mark[2],
              bytes[3] == mark[3], let kind = Kind(rawValue: bytes[5]) else { return nil }
        let keyLength = Int(load(bytes, at: 8, 4))
        let extendedLength = Int(load(bytes, at: 12, 4))
        let dataLength = Int(load(bytes, at: 16, 4))
        guard keyLength <= maxKeyLength, extendedLength <= maxExtendedLength, dataLength <= maxDataLength,
              bytes[6] & ~1 == 0, bytes[7] == 0 else { return nil }
        return Header(flags: bytes[4], kind: kind, hasExtendedData: bytes[6] & 1 != 0, keyLength: keyLength,
                      extendedLength: extendedLength, dataLength: dataLength,
                      checksum: UInt32(load(bytes, at: 20, 4)), stamp: load(bytes, at: 24, 8))
    }

    /// True when the record in `bytes` (its whole length) matches its checksum.
    static func isIntact(_ bytes: UnsafeRawBufferPointer, header: Header) -> Bool {
        let end = headerSize + header.keyLength + header.extendedLength + header.dataLength
        guard bytes.count >= end else { return false }
        return checksum(of: bytes.bindMemory(to: UInt8.self), payloadEnd: end) == header.checksum
    }

    /// The CRC-32 of the mark, kind, options, lengths, stamp and payload: every byte but the flags
    /// and the checksum field.
    private static func checksum(of bytes: UnsafeBufferPointer<UInt8>, payloadEnd: Int) -> UInt32 {
        guard let base = bytes.baseAddress else { return 0 }
        var crc = crc32_z(0, base, 4)
        crc = crc32_z(crc, base + 5, 15)
        crc = crc32_z(crc, base + 24, z_size_t(payloadEnd - 24))
        return UInt32(truncatingIfNeeded: crc)
    }

    private static func store(_ value: UInt64, _ count: Int, at offset: Int, in bytes: UnsafeMutableBufferPointer<UInt8>) {
        for i in 0..<count { bytes[offset + i] = UInt8(truncatingIfNeeded: value >> (8 * UInt64(i))) }
    }

    static func load(_ bytes: UnsafeRawBufferPointer, at offset: Int, _ count: Int) -> UInt64 {
        switch count {
        case 8: return UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
        case 4: return UInt64(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
        case 2: return UInt64(UInt16(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt16.self)))
        default: break
        }
        var value: UInt64 = 0
        for i in (0..<count).reversed() { value = value << 8 | UInt64(bytes[offset + i]) }
        return value
    }
}
