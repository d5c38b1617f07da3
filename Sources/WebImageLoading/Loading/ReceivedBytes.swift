import WebImageCodecs
import Foundation

/// One fixed-size block of received body bytes, written only past what has been handed out.
///
/// A ``ResponseBody`` appends into the block and hands out `Data` views of the bytes received so
/// far (``snapshot(count:)``). Appending writes only after the last view's end, so a view held by
/// a partial decode stays valid and is never copied; the block lives until the body and every view
/// have let go of it. Views cross threads inside `Data` (a partial decode runs on a Dispatch
/// queue); the block itself stays with the one body that writes it.
final class ReceivedBytes {
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
