import CZlib
import Foundation

/// The 16 bytes a ``DiskCacheDurability/durable`` entry file ends with, so a read can tell a whole
/// entry from one cut short by a power loss or changed on disk.
///
/// Layout, little-endian: the payload's length (8 bytes), its CRC-32 (4 bytes, zlib's), then the
/// mark `WIC1` (4 bytes).
enum DiskCacheTrailer {
    /// The trailer's length in bytes.
    static let size = 16

    private static let mark: [UInt8] = Array("WIC1".utf8)

    /// The trailer for `payload`.
    static func make(for payload: Data) -> Data {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(size)
        appendLittleEndian(UInt64(payload.count), byteCount: 8, to: &bytes)
        appendLittleEndian(UInt64(checksum(payload)), byteCount: 4, to: &bytes)
        bytes.append(contentsOf: mark)
        return Data(bytes)
    }

    /// The bytes before the trailer when `file` ends with a trailer that matches them; nil when
    /// the file is too short, has no trailer, or its length or checksum disagree.
    static func payload(of file: Data) -> Data? {
        guard file.count >= size else { return nil }
        let payloadCount = file.count - size
        let trailer = Array(file.suffix(size))
        guard Array(trailer[12..<16]) == mark,
              littleEndian(trailer[0..<8]) == UInt64(payloadCount) else { return nil }
        let payload = file.prefix(payloadCount)
        guard littleEndian(trailer[8..<12]) == UInt64(checksum(payload)) else { return nil }
        return payload
    }

    /// zlib's CRC-32 of `data`.
    static func checksum(_ data: Data) -> UInt32 {
        data.withUnsafeBytes { buffer in
            guard let base = buffer.bindMemory(to: UInt8.self).baseAddress else { return UInt32(crc32_z(0, nil, 0)) }
            return UInt32(truncatingIfNeeded: crc32_z(0, base, z_size_t(buffer.count)))
        }
    }

    private static func appendLittleEndian(_ value: UInt64, byteCount: Int, to bytes: inout [UInt8]) {
        for i in 0..<byteCount { bytes.append(UInt8(truncatingIfNeeded: value >> (8 * UInt64(i)))) }
    }

    private static func littleEndian(_ bytes: ArraySlice<UInt8>) -> UInt64 {
        bytes.reversed().reduce(0) { $0 << 8 | UInt64($1) }
    }
}
