import CGIF

/// A giflib decoding handle reading from bytes already in memory.
///
/// giflib pulls its input through a C callback; the callback finds the bytes through a small
/// cursor passed as `UserData`. The bytes must outlive the reader (use it inside
/// `withUnsafeBytes`). Closing happens in `deinit`, so every exit path frees giflib's state.
final class GIFReader {
    /// The open giflib handle (screen descriptor and global colour map already read).
    let file: UnsafeMutablePointer<GifFileType>
    private let cursor: UnsafeMutablePointer<GIFReadCursor>

    /// Opens `bytes` and reads the GIF header; throws ``WebImageError/Code/badImageData`` when
    /// the header is missing, truncated or not GIF.
    init(bytes: UnsafeRawBufferPointer) throws {
        let cursor = UnsafeMutablePointer<GIFReadCursor>.allocate(capacity: 1)
        cursor.initialize(to: GIFReadCursor(bytes: bytes))
        var error: Int32 = 0
        guard let file = DGifOpen(cursor, gifReadFromCursor, &error) else {
            cursor.deallocate()
            throw WebImageError.badData("The GIF header could not be read: \(GIFReader.describe(error)).")
        }
        self.file = file
        self.cursor = cursor
    }

    deinit {
        var error: Int32 = 0
        DGifCloseFile(file, &error)
        cursor.deallocate()
    }

    /// Bytes consumed so far.
    var offset: Int { cursor.pointee.offset }

    /// Moves the input to `offset` (a record boundary found by an earlier walk): giflib reads
    /// exactly the bytes each call needs, so the next record read starts there.
    func seek(to offset: Int) { cursor.pointee.offset = offset }

    /// The last giflib error on this handle, as words.
    var lastError: String { GIFReader.describe(file.pointee.Error) }

    /// giflib's text for an error code.
    static func describe(_ code: Int32) -> String {
        guard let text = GifErrorString(code) else { return "giflib error \(code)" }
        return String(cString: text)
    }
}

/// Where the read callback is in the input.
struct GIFReadCursor {
    let bytes: UnsafeRawBufferPointer
    var offset = 0
}

/// giflib's input callback: copies up to `count` bytes from the cursor; a short count tells
/// giflib the data ended.
private func gifReadFromCursor(_ file: UnsafeMutablePointer<GifFileType>?,
                               _ destination: UnsafeMutablePointer<GifByteType>?,
                               _ count: Int32) -> Int32 {
    guard let file, let destination, count > 0,
          let user = file.pointee.UserData else { return 0 }
    let cursor = user.assumingMemoryBound(to: GIFReadCursor.self)
    let available = cursor.pointee.bytes.count - cursor.pointee.offset
    let n = min(Int(count), max(available, 0))
    guard n > 0, let base = cursor.pointee.bytes.baseAddress else { return 0 }
    UnsafeMutableRawPointer(destination).copyMemory(from: base + cursor.pointee.offset, byteCount: n)
    cursor.pointee.offset += n
    return Int32(n)
}
