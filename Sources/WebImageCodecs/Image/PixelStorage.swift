/// The memory behind a ``Bitmap``'s pixels, shared by every copy of that bitmap.
///
/// A class so that its lifetime is known: when the last bitmap holding it goes away, `deinit`
/// offers the bytes to the ``BitmapPool`` that was current when it was made, and the next
/// bitmap of the same size is filled into memory whose pages are already mapped instead of
/// fresh pages that fault one by one. Nothing a caller can still see is ever handed out again:
/// a storage dies only when no bitmap refers to it, and an array a caller took from
/// ``Bitmap/pixels`` keeps its own contents by copy-on-write.
// `bytes` is written only while the storage is being made (before any bitmap shares it) and only
// read afterwards. No lock: nothing is written once it is shared.
final class PixelStorage: @unchecked Sendable {
    var bytes: [UInt8]
    /// The pool the bytes return to; nil for small buffers and arrays a caller handed in.
    private let pool: BitmapPool?

    init(bytes: [UInt8], pool: BitmapPool?) {
        self.bytes = bytes
        self.pool = pool
    }

    deinit {
        pool?.offer(bytes)
    }
}
