import WebImageCodecs
import Foundation

/// HTTP validators and stored bytes for `refreshCached`, and the memory fast path: the
/// manager's requirements of ``ImageCaching`` beyond SDWebImage's protocol.
extension ImageCache {
    /// The memory entry for `key` as a query delivers it (first frame only with
    /// `decodeFirstFrameOnly`); never touches the disk.
    public func memoryImage(forKey key: String, options: WebImageOptions) -> Image? {
        memoryHit(forKey: key, options: options)
    }

    /// The bytes of the disk entry for `key` (or a read-only lookup path); waits for the I/O queue.
    public func storedData(forKey key: String) -> Data? {
        diskImageData(forKey: key)
    }

    /// Reads the validators from the entry's extended data (an extended attribute or sidecar).
    public func validators(forKey key: String) -> HTTPValidators? {
        guard let data = onIOQueueSync({ diskCache.extendedData(forKey: key) }) else { return nil }
        return try? JSONDecoder().decode(HTTPValidators.self, from: data)
    }

    /// Writes the validators on the I/O queue, so they follow the entry's pending write.
    public func setValidators(_ validators: HTTPValidators?, forKey key: String,
                              completion: (@Sendable () -> Void)?) {
        let data = validators.flatMap { try? JSONEncoder().encode($0) }
        onIOQueueAsync(changing: key) {
            // No entry (the write failed or was removed): nothing to annotate, and nothing is thrown for nil.
            try? self.diskCache.setExtendedData(data, forKey: key)
        } then: {
            completion?()
        }
    }
}
