import Foundation

/// One fixed-size block of received body bytes, written only past what has been handed out.
///
/// A ``ResponseBody`` appends into the block and hands out `Data` views of the bytes received so
/// far (``snapshot(count:)``). Appending writes only after the last view's end, so a view held by
/// a partial decode stays valid and is never copied; the block lives until the body and every view
/// have let go of it.
final class ReceivedBytes: @unchecked Sendable {
    // @unchecked: the block is written only by its one ResponseBody, and only past the bytes any
    // snapshot covers; snapshots read only their own prefix, so no byte is shared with a writer.
    let base: UnsafeMutableRawPointer
    let capacity: Int

    /// An uninitialised block of `capacity` bytes (at least 1), its pages mapped up front when large.
    init(capacity: Int) {
        self.capacity = max(capacity, 1)
        base = UnsafeMutableRawPointer.allocate(byteCount: self.capacity, alignment: 16)
        if self.capacity >= BitmapMemory.threshold {
            BitmapMemory.prepare(UnsafeMutableBufferPointer(start: base.assumingMemoryBound(to: UInt8.self),
                                                            count: self.capacity))
        }
    }

    deinit { base.deallocate() }

    /// Copies `bytes` to `offset`; the caller keeps `offset + bytes.count` within ``capacity``.
    func write(_ bytes: UnsafeRawBufferPointer, at offset: Int) {
        (base + offset).copyMemory(from: bytes.baseAddress!, byteCount: bytes.count)
    }

    /// The first `count` bytes as `Data` without copying; the view keeps the block alive.
    func snapshot(count: Int) -> Data {
        guard count > 0 else { return Data() }
        return Data(bytesNoCopy: base, count: count, deallocator: .custom { _, _ in
            withExtendedLifetime(self) {}
        })
    }
}
