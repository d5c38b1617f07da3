import WebImageCodecs
import Foundation

/// A response body being received.
///
/// A declared Content-Length is a claim, not bytes: sizing memory from it alone would let a
/// server that declares 199 MB and then stalls pin 199 MB per download. So at most
/// ``upFrontLimit`` bytes are sized (and pre-faulted, see ``BitmapMemory``) before any arrive;
/// past that the storage doubles as bytes come in, up to the declared size. An honest body is
/// still received into one pre-faulted block, with a few geometric regrowths when it is large.
/// Without a declared length, or for a small one, the storage grows as chunks arrive. A body
/// longer than declared still fits: the storage then grows past the declared size (the caller's
/// size limit bounds it).
///
/// The storage is append-only (``ReceivedBytes``): ``snapshot()`` is a view of the bytes so far,
/// and appending never copies because a view is alive — a progressive load's partial decode
/// holds one while the next chunks arrive. Only a regrowth copies, once per doubling.
struct ResponseBody {
    /// The most memory sized from the declared length before the bytes arrive.
    static let upFrontLimit = 8 * 1024 * 1024
    /// The first block when no length is declared.
    static let undeclaredStart = 64 * 1024

    private var block: ReceivedBytes?
    private(set) var count = 0
    /// The declared length, clamped to the limit: what the pre-sized storage may grow to.
    private let declared: Int

    /// Bytes sized or reserved so far (the current block's capacity).
    var reservedBytes: Int { block?.capacity ?? 0 }

    init(declaredLength: Int64?, limit: Int) {
        declared = Int(min(max(declaredLength ?? 0, 0), Int64(max(limit, 0))))
        let initial = declaredLength == nil ? Self.undeclaredStart : min(declared, Self.upFrontLimit)
        block = initial > 0 ? ReceivedBytes(capacity: initial) : nil
    }

    /// Appends `bytes` after what was received so far.
    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        guard !bytes.isEmpty else { return }
        let needed = count + bytes.count
        if needed > reservedBytes { grow(toFit: needed) }
        block!.write(bytes, at: count)
        count = needed
    }

    /// The bytes received so far, as a view that later appends leave untouched (no copy).
    /// For the library's own readers (partial decodes): a caller that mutates the returned `Data`
    /// in place would write into the block other views read.
    func snapshot() -> Data {
        snapshot(count: count)
    }

    /// The first `count` bytes received (at most all of them), as a view like ``snapshot()``.
    func snapshot(count: Int) -> Data {
        block?.snapshot(count: min(count, self.count)) ?? Data()
    }

    /// The whole body, to hand to callers. No copy unless a snapshot is still alive (a partial
    /// decode that has not finished): then the bytes are copied once, so the caller's `Data` is
    /// its own and may be mutated freely.
    mutating func finish() -> Data {
        guard count > 0, block != nil else { return Data() }
        if isKnownUniquelyReferenced(&block!) { return block!.snapshot(count: count) }
        return Data(bytes: block!.base, count: count)
    }

    /// Moves the received bytes into a block twice as large (at least `needed`; up to the declared
    /// length while the body is within it): the reservation follows the bytes that actually arrived.
    private mutating func grow(toFit needed: Int) {
        let doubled = max(needed, reservedBytes * 2)
        let size = needed <= declared ? min(declared, doubled) : doubled
        let grown = ReceivedBytes(capacity: size)
        if let block, count > 0 { grown.write(UnsafeRawBufferPointer(start: block.base, count: count), at: 0) }
        block = grown
    }
}
