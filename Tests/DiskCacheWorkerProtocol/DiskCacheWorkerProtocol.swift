import Foundation

/// What the disk-cache worker and the tests that run it agree on: the cache namespace, the keys,
/// the lines it prints and the self-checking values it writes, defined once for both.
public enum DiskCacheWorkerProtocol {
    /// The namespace under the cache root that the worker and the tests open.
    public static let namespace = "shared"

    /// The worker's key number `index` (it cycles through `--keys` of them).
    public static func key(_ index: Int) -> String {
        "https://example.com/image-\(index).png"
    }

    /// Printed once the first value is on disk, so a test knows when killing the worker interrupts writes.
    public static let readyLine = "ready"

    /// Printed when the worker ends normally after `iterations` writes.
    public static func doneLine(iterations: Int) -> String {
        "done \(iterations)"
    }

    /// The worker's exit status when it reads back a value that fails ``WorkerValue/isValid(_:)``.
    public static let corruptValueStatus: Int32 = 3
}

/// The self-checking value format: "WIMG", writer, iteration, length (each UInt32 little-endian),
/// then `length` bytes from a generator seeded by writer and iteration; a torn or mixed write fails
/// ``isValid(_:)``.
public enum WorkerValue {
    /// The value `writer` writes on `iteration`, with a payload of `size` bytes.
    public static func make(writer: Int, iteration: Int, size: Int) -> Data {
        var data = Data("WIMG".utf8)
        for field in [writer, iteration, size] {
            withUnsafeBytes(of: UInt32(truncatingIfNeeded: field).littleEndian) { data.append(contentsOf: $0) }
        }
        data.append(contentsOf: payload(writer: writer, iteration: iteration, size: size))
        return data
    }

    /// True when `data` is exactly one complete value: header, declared length and payload all agree.
    public static func isValid(_ data: Data) -> Bool {
        let bytes = [UInt8](data)
        guard bytes.count >= 16, bytes[0..<4] == [0x57, 0x49, 0x4D, 0x47] else { return false }
        let size = field(bytes, at: 12)
        guard bytes.count == 16 + size else { return false }
        return bytes[16...].elementsEqual(payload(writer: field(bytes, at: 4), iteration: field(bytes, at: 8), size: size))
    }

    /// The writer number in a value's header, or nil when `data` is too short to hold one.
    public static func writer(of data: Data) -> Int? {
        let bytes = [UInt8](data.prefix(8))
        return bytes.count == 8 ? field(bytes, at: 4) : nil
    }

    /// The UInt32 little-endian header field at byte `offset`.
    private static func field(_ bytes: [UInt8], at offset: Int) -> Int {
        (0..<4).reduce(0) { $0 | Int(bytes[offset + $1]) << (8 * $1) }
    }

    private static func payload(writer: Int, iteration: Int, size: Int) -> [UInt8] {
        var state = UInt32(truncatingIfNeeded: writer &* 7919 &+ iteration &* 104_729 &+ 1)
        return (0..<size).map { _ in
            state = state &* 1_664_525 &+ 1_013_904_223
            return UInt8(truncatingIfNeeded: state >> 24)
        }
    }
}
