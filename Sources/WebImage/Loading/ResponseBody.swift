import Foundation

/// A response body being received.
///
/// A declared Content-Length is a claim, not bytes: sizing memory from it alone would let a
/// server that declares 199 MB and then stalls pin 199 MB per download. So at most
/// ``upFrontLimit`` bytes are sized (and pre-faulted, see ``BitmapMemory``) before any arrive;
/// past that the storage doubles as bytes come in, up to the declared size. An honest body is
/// still received into one pre-faulted buffer, with a few geometric regrowths when it is large.
/// Without a declared length, or for a small one, the storage grows as chunks arrive. A body
/// longer than declared still fits: the storage then grows past the declared size (the caller's
/// size limit bounds it).
struct ResponseBody {
    /// The most memory sized from the declared length before the bytes arrive.
    static let upFrontLimit = 8 * 1024 * 1024

    private var storage = Data()
    private(set) var count = 0
    /// The declared length, clamped to the limit: what the pre-sized storage may grow to.
    private let declared: Int
    /// Bytes sized or reserved so far (the storage's capacity, as far as this type decides it).
    private(set) var reservedBytes: Int
    /// The storage is a zero-filled buffer of `reservedBytes`, its first `count` bytes received.
    private var isPreSized = false

    init(declaredLength: Int64?, limit: Int) {
        declared = Int(min(max(declaredLength ?? 0, 0), Int64(max(limit, 0))))
        let initial = min(declared, Self.upFrontLimit)
        if initial >= BitmapMemory.threshold {
            storage = Self.preFaulted(count: initial)
            reservedBytes = initial
            isPreSized = true
        } else {
            reservedBytes = declaredLength == nil ? 64 * 1024 : initial
            storage.reserveCapacity(reservedBytes)
        }
    }

    /// Appends `bytes` after what was received so far.
    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        guard !bytes.isEmpty else { return }
        let needed = count + bytes.count
        if isPreSized, needed > storage.count, needed <= declared { growPreSized(toFit: needed) }
        if needed <= storage.count {
            let offset = count
            storage.withUnsafeMutableBytes { raw in
                raw.baseAddress!.advanced(by: offset).copyMemory(from: bytes.baseAddress!, byteCount: bytes.count)
            }
        } else {
            // Past the declared length (or none was declared): plain appends from here on.
            if storage.count != count { storage.count = count }
            storage.append(contentsOf: bytes)
            isPreSized = false
            reservedBytes = max(reservedBytes, needed)
        }
        count = needed
    }

    /// The bytes received so far (shares the storage; no copy).
    var data: Data { count == storage.count ? storage : storage.prefix(count) }

    /// Moves the received bytes into a pre-faulted buffer twice as large (at least `needed`, at
    /// most the declared length): the reservation follows the bytes that actually arrived.
    private mutating func growPreSized(toFit needed: Int) {
        let size = min(declared, max(needed, storage.count * 2))
        var grown = Self.preFaulted(count: size)
        let received = count
        if received > 0 {
            storage.withUnsafeBytes { old in
                grown.withUnsafeMutableBytes { new in
                    new.baseAddress!.copyMemory(from: old.baseAddress!, byteCount: received)
                }
            }
        }
        storage = grown
        reservedBytes = size
    }

    /// `count` zero bytes whose pages are already mapped.
    private static func preFaulted(count: Int) -> Data {
        var data = Data(count: count)
        data.withUnsafeMutableBytes { raw in
            BitmapMemory.prepare(raw.bindMemory(to: UInt8.self))
        }
        return data
    }
}
