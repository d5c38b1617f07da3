import CXXHash
import Foundation

/// How a value sits in Redis: a small versioned binary frame around the encoded bytes and their
/// metadata (HTTP validators and freshness, as JSON), closed by a checksum, so a truncated,
/// foreign or bit-flipped value is recognised and treated as a miss.
///
/// ```
/// "WIRC" | version (1) | flags (1) | stored-at ms (8, BE) | metadata length (4, BE)
///        | payload length (4, BE) | metadata | payload | XXH3-64 of all before (8, BE)
/// ```
///
/// The checksum finds damage, not tampering (whoever can write to the Redis can write a valid
/// frame); XXH3 reads a 4 MB source in a fraction of a millisecond.
public struct RedisEnvelope: Sendable, Equatable {
    /// The bytes stored (an encoded image or result).
    public var payload: Data
    /// Opaque metadata stored beside them (the cache keeps `HTTPValidators` JSON here).
    public var metadata: Data
    /// When the value was written, in milliseconds since 1970.
    public var storedAt: UInt64

    static let magic: [UInt8] = Array("WIRC".utf8)
    static let version: UInt8 = 2
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
        Self.append(Self.checksum(frame), to: &frame)
        return frame
    }

    /// Reads a frame; nil when it is not one of ours, of another version, truncated, or its
    /// checksum does not match.
    public init?(decoding frame: Data) {
        let parsed = frame.withUnsafeBytes { raw -> (storedAt: UInt64, metadata: Range<Int>, payload: Range<Int>)? in
            let bytes = raw.bindMemory(to: UInt8.self)
            guard bytes.count >= Self.headerSize + Self.checksumSize,
                  bytes[0..<4].elementsEqual(Self.magic), bytes[4] == Self.version else { return nil }
            let metadataCount = Int(Self.read(UInt32.self, bytes, at: 14))
            let payloadCount = Int(Self.read(UInt32.self, bytes, at: 18))
            let bodyEnd = Self.headerSize + metadataCount + payloadCount
            guard bodyEnd + Self.checksumSize == bytes.count,
                  XXH3_64bits(raw.baseAddress, bodyEnd) == Self.read(UInt64.self, bytes, at: bodyEnd) else { return nil }
            let metadataEnd = Self.headerSize + metadataCount
            return (Self.read(UInt64.self, bytes, at: 6), Self.headerSize..<metadataEnd, metadataEnd..<bodyEnd)
        }
        guard let parsed else { return nil }
        storedAt = parsed.storedAt
        let base = frame.startIndex
        metadata = frame.subdata(in: (base + parsed.metadata.lowerBound)..<(base + parsed.metadata.upperBound))
        payload = frame.subdata(in: (base + parsed.payload.lowerBound)..<(base + parsed.payload.upperBound))
    }

    /// XXH3-64 of `frame`.
    private static func checksum(_ frame: Data) -> UInt64 {
        frame.withUnsafeBytes { XXH3_64bits($0.baseAddress, $0.count) }
    }

    private static func append<T: FixedWidthInteger>(_ value: T, to data: inout Data) {
        withUnsafeBytes(of: value.bigEndian) { data.append(contentsOf: $0) }
    }

    private static func read<T: FixedWidthInteger>(_: T.Type, _ bytes: UnsafeBufferPointer<UInt8>, at offset: Int) -> T {
        var value: T = 0
        for byte in bytes[offset..<(offset + MemoryLayout<T>.size)] { value = value << 8 | T(byte) }
        return value
    }
}
