import Foundation

/// A response body being received. When the length is declared and large, its storage is sized
/// and pre-faulted once (see ``BitmapMemory``), so copying the chunks in costs no page fault per
/// 4 KiB; otherwise it grows as chunks arrive. A body longer than declared still fits: the storage
/// then grows past the declared size (the caller's size limit bounds it).
struct ResponseBody {
    private var storage = Data()
    private(set) var count = 0

    init(declaredLength: Int64?, limit: Int) {
        let declared = Int(min(max(declaredLength ?? 0, 0), Int64(limit)))
        if declared >= BitmapMemory.threshold {
            storage = Data(count: declared)
            storage.withUnsafeMutableBytes { raw in
                BitmapMemory.prepare(raw.bindMemory(to: UInt8.self))
            }
        } else {
            storage.reserveCapacity(declaredLength == nil ? 64 * 1024 : declared)
        }
    }

    /// Appends `bytes` after what was received so far.
    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        guard !bytes.isEmpty else { return }
        if count + bytes.count <= storage.count {
            let offset = count
            storage.withUnsafeMutableBytes { raw in
                raw.baseAddress!.advanced(by: offset).copyMemory(from: bytes.baseAddress!, byteCount: bytes.count)
            }
        } else {
            if storage.count != count { storage.count = count }
            storage.append(contentsOf: bytes)
        }
        count += bytes.count
    }

    /// The bytes received so far (shares the storage; no copy).
    var data: Data { count == storage.count ? storage : storage.prefix(count) }
}
