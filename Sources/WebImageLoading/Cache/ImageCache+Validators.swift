import WebImageCodecs
import Foundation

/// A cache that keeps HTTP validators (ETag, Last-Modified) beside its disk entries, so the
/// manager's `refreshCached` loads can revalidate with a conditional request.
public protocol ImageCacheValidatorStoring: Sendable {
    /// The validators stored with the disk entry for `key`, if any.
    func validators(forKey key: String) -> HTTPValidators?
    /// Stores `validators` with the disk entry for `key` (after any write already asked for);
    /// nil removes them.
    func setValidators(_ validators: HTTPValidators?, forKey key: String)
}

extension ImageCache: ImageCacheValidatorStoring {
    /// Reads the validators from the entry's extended data (an extended attribute or sidecar).
    public func validators(forKey key: String) -> HTTPValidators? {
        guard let data = onIOQueueSync({ diskCache.extendedData(forKey: key) }) else { return nil }
        return try? JSONDecoder().decode(HTTPValidators.self, from: data)
    }

    /// Writes the validators on the I/O queue, so they follow the entry's pending write.
    public func setValidators(_ validators: HTTPValidators?, forKey key: String) {
        let data = validators.flatMap { try? JSONEncoder().encode($0) }
        ioQueue.async {
            // No entry (the write failed or was removed): nothing to annotate, and nothing is thrown for nil.
            try? self.diskCache.setExtendedData(data, forKey: key)
        }
    }
}
