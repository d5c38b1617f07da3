/// Builds a PNG byte stream chunk by chunk, computing each chunk's length and CRC.
struct PNGWriter {
    /// The eight bytes every PNG starts with.
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    private(set) var bytes: [UInt8]

    /// Starts a stream with the PNG signature.
    init(reservingCapacity capacity: Int = 0) {
        bytes = []
        bytes.reserveCapacity(capacity + 8)
        bytes += Self.signature
    }

    /// Appends one chunk of `type` holding `payload`.
    mutating func appendChunk(_ type: UInt32, _ payload: UnsafeBufferPointer<UInt8>) {
        appendUInt32(UInt32(payload.count))
        let typeStart = bytes.count
        appendUInt32(type)
        bytes.append(contentsOf: payload)
        let crc = bytes.withUnsafeBufferPointer { all in
            CRC32.update(0, UnsafeBufferPointer(rebasing: all[typeStart...]))
        }
        appendUInt32(crc)
    }

    /// Appends one chunk of `type` holding `payload`.
    mutating func appendChunk(_ type: UInt32, _ payload: [UInt8]) {
        payload.withUnsafeBufferPointer { appendChunk(type, $0) }
    }

    /// Appends one chunk whose payload is the concatenation of `parts` of `source`.
    mutating func appendChunk(_ type: UInt32, parts: [Range<Int>], of source: UnsafeBufferPointer<UInt8>) {
        let length = parts.reduce(0) { $0 + $1.count }
        appendUInt32(UInt32(truncatingIfNeeded: length))
        let typeStart = bytes.count
        appendUInt32(type)
        for part in parts { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: source[part])) }
        let crc = bytes.withUnsafeBufferPointer { all in
            CRC32.update(0, UnsafeBufferPointer(rebasing: all[typeStart...]))
        }
        appendUInt32(crc)
    }

    /// Appends a big-endian 32-bit value to the stream (not a chunk).
    mutating func appendUInt32(_ value: UInt32) {
        bytes += Self.bigEndian(value)
    }

    /// The four big-endian bytes of `value`.
    static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    /// The two big-endian bytes of `value`.
    static func bigEndian(_ value: UInt16) -> [UInt8] {
        [UInt8(value >> 8), UInt8(value & 0xFF)]
    }
}
