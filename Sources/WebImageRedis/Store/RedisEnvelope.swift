import Crypto
import Foundation

/// How a value sits in Redis: a small versioned binary frame around the encoded bytes and their
/// metadata (HTTP validators and freshness, as JSON), closed by a checksum, so a truncated,
/// foreign or bit-flipped value is recognised and treated as a miss.
///
/// ```
/// "WIRC" | version (1) | flags (1) | stored-at ms (8, BE) | metadata length (4, BE)
///        | payload length (4, BE) | metadata | payload | SHA-256 of all before, first 8 bytes
/// ```
public struct RedisEnvelope: Sendable, Equatable {
    /// The bytes stored (an encoded image or result).
    public var payload: Data
    /// Opaque metadata stored beside them (the cache keeps `HTTPValidators` JSON here).
    public var metadata: Data
    /// When the value was written, in milliseconds since 1970.
    public var storedAt: UInt64

    static let magic: [UInt8] = Array("WIRC".utf8)
    static let version: UInt8 = 1
    static let headerSize = 4 + 1 + 1 + 8 + 4 + 4
    static let checksumSize = 8

    public init(payload: Data, metadata: Data = Data(), storedAt: UInt64 = UInt64(Date().timeIntervalSince1970 * 1000)) {
        self.payload = payload
        self.metadata = metadata
        self.storedAt = storedAt
    }

    /// The frame written to Redis.
    public func encoded() -> Data {
        var frame = Data(capacity: Self.headerSize + metadata.count + payload.count + Self.checksumSize)
        frame.append(contentsOf: Self.magic)
        frame.append(Self.version)
        frame.append(0)
        Self.append(storedAt, to: &frame)
        Self.append(UInt32(metadata.count), to: &frame)
        Self.append(UInt32(payload.count), to: &frame)
        frame.append(metadata)
        frame.append(payload)
        frame.append(contentsOf: SHA256.hash(data: frame).prefix(Self.checksumSize))
        return frame
    }

    /// Reads a frame; nil when it is not one of ours, of another version, truncated, or its
    /// checksum does not match.
    public init?(decoding frame: Data) {
        let bytes = [UInt8](frame)
        guard bytes.count >= Self.headerSize + Self.checksumSize,
              Array(bytes[0..<4]) == Self.magic, bytes[4] == Self.version else { return nil }
        let storedAt = Self.read(UInt64.self, bytes, at: 6)
        let metadataCount = Int(Self.read(UInt32.self, bytes, at: 14))
        let payloadCount = Int(Self.read(UInt32.self, bytes, at: 18))
        let bodyEnd = Self.headerSize + metadataCount + payloadCount
        guard bodyEnd + Self.checksumSize == bytes.count else { return nil }
        let checksum = Array(SHA256.hash(data: bytes[0..<bodyEnd]).prefix(Self.checksumSize))
        guard checksum == Array(bytes[bodyEnd...]) else { return nil }
        self.storedAt = storedAt
        metadata = Data(bytes[Self.headerSize..<(Self.headerSize + metadataCount)])
        payload = Data(bytes[(Self.headerSize + metadataCount)..<bodyEnd])
    }

    private static func append<T: FixedWidthInteger>(_ value: T, to data: inout Data) {
        withUnsafeBytes(of: value.bigEndian) { data.append(contentsOf: $0) }
    }

    private static func read<T: FixedWidthInteger>(_: T.Type, _ bytes: [UInt8], at offset: Int) -> T {
        var value: T = 0
        for byte in bytes[offset..<(offset + MemoryLayout<T>.size)] { value = value << 8 | T(byte) }
        return value
    }
}
